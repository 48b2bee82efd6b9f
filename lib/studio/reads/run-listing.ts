/**
 * A row of the runs page as the browser receives it: the run's summary, plus what the runs page's
 * query (run-search.ts) reads beside it. Browser-safe (types and pure helpers only).
 */
import type { WireRun } from './wire';

export interface RunListing extends WireRun {
  /** Input plus output tokens over the run's model steps; absent until the page re-reads a run that arrived live. */
  tokens?: number;
  /**
   * A running run whose executor's lease expired and that no live process holds: nobody is executing it
   * until an executor claims it again. Which executor held it, when the lease ran out, its last heartbeat.
   */
  lapsedLease?: { owner: string; expiredAt: string; heartbeatAt: string | null };
}

export interface RunListPage {
  runs: RunListing[];
  nextCursor?: string;
}

/** The runs page's filters, as they appear in its URL. */
export interface RunListFilters {
  status?: WireRun['status'];
  agent?: string;
  /** A run-id prefix, a tool name or an idempotency key. */
  q?: string;
}

/** Whether a run (as a live change reports it) belongs to a list with these filters, as far as the browser can tell. */
export function listingMatches(run: Pick<WireRun, 'status' | 'input'>, filters: RunListFilters): boolean {
  return (filters.status === undefined || run.status === filters.status) && (filters.agent === undefined || run.input?.agent === filters.agent);
}
