/** Browser-safe: what a run page knows of the executors that ran the run, from gnl.run_queue. */

/** The executor that claimed the run last (kept after its lease ends), when, and how often the run was claimed. */
export interface RunExecutorInfo {
  lastOwner: string | null;
  claimedAt: string | null;
  claims: number;
}
