/**
 * The Studio's reads of the journal, for server components. Server-only: it opens the storage the
 * environment names (storageFromEnv), which the browser must never import.
 *
 * Types come from the core with `import type`; values only through the storage adapters.
 */
import 'server-only';
import type { RecordedEvent, RunPage, RunStatus, RunSummary } from '@/lib/durable';
import { EMBEDDED_DURABILITY_NOTE, storageFromEnv } from '@/lib/durable/storage';

/** Every status, in the order the filter shows them. A Record so the compiler fails when RunStatus gains one. */
const STATUS_ORDER: Record<RunStatus, number> = {
  running: 0,
  'waiting-approval': 1,
  blocked: 2,
  completed: 3,
  failed: 4,
  canceled: 5,
};

export const RUN_STATUS_FILTERS = (Object.keys(STATUS_ORDER) as RunStatus[]).sort((a, b) => STATUS_ORDER[a] - STATUS_ORDER[b]);

/** A `?status=` value as a RunStatus; anything else (absent, misspelt) means no filter. */
export function parseRunStatus(value: unknown): RunStatus | undefined {
  return typeof value === 'string' && Object.hasOwn(STATUS_ORDER, value) ? (value as RunStatus) : undefined;
}

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;

/** A `?limit=` value clamped to what listRuns accepts. */
export function parsePageSize(value: unknown): number {
  const n = typeof value === 'string' ? Number.parseInt(value, 10) : Number.NaN;
  return Number.isFinite(n) ? Math.min(Math.max(n, 1), MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
}

export type JournalInfo = { kind: 'pglite'; dataDir: string | undefined; durabilityNote: string } | { kind: 'postgres' };

/** Which journal this Studio reads, and what a person must know about it. */
export function journalInfo(): JournalInfo {
  const storage = storageFromEnv();
  return storage.kind === 'pglite' ? { kind: 'pglite', dataDir: storage.dataDir, durabilityNote: EMBEDDED_DURABILITY_NOTE } : { kind: 'postgres' };
}

/** One page of runs, newest first; a cursor the journal did not give out (an edited link) is a result, not an error. */
export async function listRuns(options: { status?: RunStatus; cursor?: string; limit?: number }): Promise<RunPage | { badCursor: true }> {
  try {
    return await storageFromEnv().runs.listRuns(options);
  } catch (error) {
    // Matched by name: the core's classes are not imported here.
    if (options.cursor !== undefined && error instanceof Error && error.name === 'JournalDataError') return { badCursor: true };
    throw error;
  }
}

export const EVENTS_PAGE_SIZE = 500;

export interface RunWithEvents {
  run: RunSummary;
  /** Events after `afterSeq`, in order, at most EVENTS_PAGE_SIZE. */
  events: RecordedEvent[];
  /** The `afterSeq` of the next page, when the run has more events. */
  nextAfterSeq?: number;
}

/** A run and a page of its journal; undefined when no run has this id (or the id could never be one). */
export async function getRunWithEvents(runId: string, afterSeq = 0): Promise<RunWithEvents | undefined> {
  const journal = storageFromEnv().runs;
  let run: RunSummary | undefined;
  try {
    run = await journal.getRun(runId);
  } catch (error) {
    // An empty or over-long id names no run. Matched by name, as above.
    if (error instanceof Error && error.name === 'InvalidRunIdError') return undefined;
    throw error;
  }
  if (!run) return undefined;
  const events = await journal.events(runId, { afterSeq, limit: EVENTS_PAGE_SIZE });
  const last = events[events.length - 1];
  // A short page is the end (the events were read after the summary); a full one may have more.
  return { run, events, ...(last && events.length === EVENTS_PAGE_SIZE ? { nextAfterSeq: last.seq } : {}) };
}
