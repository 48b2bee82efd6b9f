/** What each figure hands to the report (bench/report.ts). */
export interface FigureResult {
  id: string;
  title: string;
  /** One table per figure; each row a flat record (numbers are ms unless the column says otherwise). */
  rows: Record<string, string | number | boolean | null>[];
  notes: string[];
  /** Goal checks: what the issue asks, what was measured, met or not. */
  goals?: GoalCheck[];
  /** Anything the chart or docs/benchmarks.md needs. */
  data?: Record<string, unknown>;
}

export interface GoalCheck {
  goal: string;
  measured: string;
  met: boolean | null;
  note?: string;
}

export interface BenchContext {
  quick: boolean;
  /** `--long`: figure 2 also resumes a run of 10,000 recorded steps (recording it takes minutes). */
  long?: boolean;
  /** postgres://…/gnl_bench, created empty at the start of the run. */
  url: string;
  /** A scratch folder for PGlite data and logs, removed at the end. */
  tmp: string;
  log(message: string): void;
}
