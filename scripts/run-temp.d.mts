export declare const RUN_TEMP_PREFIX: string;
export declare function processStart(pid: number): string | undefined;
export declare function removeAbandonedRunFolders(base?: string, now?: number): string[];
export declare function openRunTemp(base?: string): { dir: string; abandoned: string[]; close(): void };
export declare function runTempHere(): { dir: string; abandoned: string[]; close(): void };
