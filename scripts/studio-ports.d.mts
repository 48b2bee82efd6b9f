export declare const DEMO_SERVICE_ID: string;
export declare function portFree(host: string, port: number | string): Promise<boolean>;
export declare function choosePort(args: {
  host: string;
  explicit: string | undefined;
  fallback: number;
  variable: string;
  what: string;
}): Promise<{ port: number; note?: string; error?: undefined } | { error: string; port?: undefined; note?: undefined }>;
export declare function demoServiceAt(port: number | string): Promise<'ours' | 'foreign'>;
