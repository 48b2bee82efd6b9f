export interface Failure {
  where: string;
  test: string;
  error: string;
}
export declare function vitestFailures(report: unknown, root?: string): Failure[];
export declare function playwrightFailures(report: unknown): Failure[];
export declare function failureSummary(folder: string, failed: string[], root?: string): string[];
