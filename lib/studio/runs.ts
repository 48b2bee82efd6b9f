/**
 * The Studio's reads of the journal, for server components. Server-only: it opens the storage the
 * environment names (storageFromEnv), which the browser must never import.
 *
 * Types come from the core with `import type`; values only through the storage adapters.
 */
import 'server-only';
import type { RecordedEvent, RunStatus, RunSummary } from '@/lib/durable';
import { EMBEDDED_DURABILITY_NOTE, storageFromEnv } from '@/lib/durable/storage';
import { addToTotals, EMPTY_TOTALS, type RunTotals } from './run-totals';
import { CHUNK_SIZE, type Tail, tailStartFor } from './timeline-window';
import { toWireEvent, toWireRun, type WireEvent, type WireRun, type WireRunPage } from './wire';

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
export async function listRuns(options: { status?: RunStatus; cursor?: string; limit?: number }): Promise<WireRunPage | { badCursor: true }> {
  try {
    const page = await storageFromEnv().runs.listRuns(options);
    return { runs: page.runs.map(toWireRun), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  } catch (error) {
    // Matched by name: the core's classes are not imported here.
    if (options.cursor !== undefined && error instanceof Error && error.name === 'JournalDataError') return { badCursor: true };
    throw error;
  }
}

/** The run with this id; undefined when there is none (or the id could never be one). */
export async function findRun(runId: string): Promise<RunSummary | undefined> {
  try {
    return await storageFromEnv().runs.getRun(runId);
  } catch (error) {
    // An empty or over-long id names no run. Matched by name, as above.
    if (error instanceof Error && error.name === 'InvalidRunIdError') return undefined;
    throw error;
  }
}

export interface RunView {
  run: WireRun;
  /** The newest events, from a chunk boundary on (timeline-window.ts). */
  tail: Tail;
  /** Over every event up to the tail's head. */
  totals: RunTotals;
}

/** What a run page starts with: the summary, the tail of the journal, and the totals over all of it. */
export async function getRunView(runId: string): Promise<RunView | undefined> {
  const run = await findRun(runId);
  if (!run) return undefined;
  const journal = storageFromEnv().runs;
  const startSeq = tailStartFor(run.lastSeq);
  const tailEvents = await journal.events(run.runId, { afterSeq: startSeq - 1 });
  let totals = EMPTY_TOTALS;
  for (let after = 0; after < startSeq - 1; ) {
    const page = await journal.events(run.runId, { afterSeq: after, limit: Math.min(500, startSeq - 1 - after) });
    const last = page[page.length - 1];
    if (!last) break;
    totals = addToTotals(totals, page as unknown as WireEvent[]);
    after = last.seq;
  }
  totals = addToTotals(totals, tailEvents as unknown as WireEvent[]);
  return { run: toWireRun(run), tail: { startSeq, events: tailEvents.map(toWireEvent) }, totals };
}

/** One chunk of a run's journal (timeline-window.ts); empty for an unknown run. */
export async function getEventsChunk(runId: string, chunk: number): Promise<WireEvent[]> {
  const events: RecordedEvent[] = await storageFromEnv().runs.events(runId, { afterSeq: chunk * CHUNK_SIZE, limit: CHUNK_SIZE });
  return events.map(toWireEvent);
}
