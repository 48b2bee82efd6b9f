/**
 * The Studio's reads of the journal, for server components. Server-only: it opens the storage the
 * environment names (storageFromEnv), which the browser must never import.
 *
 * Types come from the core with `import type`; values only through the storage adapters.
 */
import 'server-only';
import { registry } from '@/agents';
import { fromLastModelStep, InvalidRunIdError, type RecordedEvent, type RunStatus, type RunSummary } from '@/lib/durable';
import { EMBEDDED_DURABILITY_NOTE, storageFromEnv, withBlobPlaceholders } from '@/lib/durable/storage';
import { addToTotals, addToWaterfall, EMPTY_TOTALS, EMPTY_WATERFALL, type RunTotals, type RunWaterfall, trimWaterfall } from '@/lib/durable/projection';
import { queueEntry } from '@/lib/executor';
import type { PriceTable } from '@/lib/cost';
import { pagePriceTable } from '@/lib/cost/price-file';
import { type CostDb, runCosts } from './run-costs';
import { toolDeclarations } from './tool-policy';
import { CHUNK_SIZE, type Tail, tailStartFor } from './timeline-window';
import type { RunListFilters, RunListing, RunListPage } from './run-listing';
import type { ToolDeclaration } from './resume-preview';
import type { RunExecutorInfo } from './run-executor';
import { decodeRunCursor, encodeRunCursor, type RunSearchRow, type SearchDb, searchRuns } from './run-search';
import { jsonSafe, toWireEvent, toWireRun, type WireEvent, type WireRun } from './wire';

/** Every status, in the order the filter shows them. A Record so the compiler fails when RunStatus gains one. */
const STATUS_ORDER: Record<RunStatus, number> = {
  running: 0,
  'waiting-approval': 1,
  'waiting-tool-result': 2,
  waiting: 3,
  blocked: 4,
  completed: 5,
  failed: 6,
  canceled: 7,
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

const MAX_FILTER_LENGTH = 200;

/** A `?q=` or `?agent=` value: trimmed, at most 200 characters; empty or absent means none. */
export function parseFilterText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Control characters (a NUL the database refuses, a newline that would forge a log line) are no text to search for.
  const text = value.replace(CONTROL_CHARACTERS, '').trim().slice(0, MAX_FILTER_LENGTH);
  return text === '' ? undefined : text;
}

const CONTROL_CHARACTERS = /[\p{Cc}\p{Cs}]/gu;

/** For the JSON routes: why a filter's text is refused (with a 400), or undefined. The pages drop the characters instead (parseFilterText). */
export function filterTextProblem(name: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return /[\p{Cc}\p{Cs}]/u.test(value) ? `${name} must not contain control characters (a NUL, a line break).` : undefined;
}

/** The agents the filter offers: the registered ones (agents/index.ts), sorted. */
export function agentNames(): string[] {
  return registry.listAgents().map((agent) => agent.name);
}

/**
 * One page of runs, newest first, filtered and searched (run-search.ts), with tokens, cost (run-costs.ts) and lapsed leases.
 * A cursor the runs page did not give out (an edited link) is a result, not an error.
 */
export async function listRuns(options: RunListFilters & { cursor?: string; limit?: number }): Promise<RunListPage | { badCursor: true }> {
  const cursor = options.cursor === undefined ? undefined : decodeRunCursor(options.cursor);
  if (options.cursor !== undefined && !cursor) return { badCursor: true };
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  // A listing may lag a moment: on the read replica when one is set (GNL_READ_DATABASE_URL, read-replica.ts).
  const { rows, page, costs } = await storageFromEnv().readReplica(async (db) => {
    const rows = await searchRuns(db as unknown as SearchDb, {
      ...(options.status ? { status: options.status } : {}),
      ...(options.agent ? { agent: options.agent } : {}),
      ...(options.q ? { q: options.q } : {}),
      ...(cursor ? { cursor } : {}),
      limit,
    });
    const page = rows.slice(0, limit);
    const costs = await runCosts(
      db as unknown as CostDb,
      page.map((row) => row.run_id),
      pagePriceTable(),
    );
    return { rows, page, costs };
  });
  const last = page[page.length - 1];
  return {
    runs: await Promise.all(page.map(async (row) => ({ ...(await toListing(row)), ...(costs.has(row.run_id) ? { cost: costs.get(row.run_id) } : {}) }))),
    ...(rows.length > limit && last ? { nextCursor: encodeRunCursor({ createdAt: last.created_at_text, runId: last.run_id }) } : {}),
  };
}

const iso = (value: Date | string) => new Date(value).toISOString();

async function toListing(row: RunSearchRow): Promise<RunListing> {
  // Input and pending as the journal stored them; values json-codec tagged (a Date in a prompt, …) are
  // rare, and for those the journal's own reader decodes the run. A big value stored apart (an image)
  // is shown as a placeholder first, so a page of runs never fetches their bodies.
  const input = withBlobPlaceholders(row.input);
  // So are the runs sealed with a key of their own (run-keys.ts: opened, or erased, by that reader).
  const stored = JSON.stringify([input, row.pending]);
  const tagged = stored.includes('"$gnl"') || stored.includes('"$gnl:enc":"r1:');
  const summary = tagged ? await findRun(row.run_id) : undefined;
  const run: WireRun = summary
    ? toWireRun(summary)
    : jsonSafe({
        runId: row.run_id,
        status: row.status as RunStatus,
        input: input as RunSummary['input'],
        stepCount: row.step_count,
        lastSeq: row.last_seq,
        pending: row.pending as RunSummary['pending'],
        createdAt: iso(row.created_at),
        updatedAt: iso(row.updated_at),
      });
  return {
    ...run,
    tokens: Number(row.tokens),
    ...(row.worked_until ? { workedUntil: iso(row.worked_until) } : {}),
    marks: { interrupted: row.interrupted === true, waited: row.waited === true, decided: row.decided === true, imported: row.imported === true },
    ...(row.lease_lapsed && row.lease_owner && row.lease_expires_at
      ? { lapsedLease: { owner: row.lease_owner, expiredAt: iso(row.lease_expires_at), heartbeatAt: row.heartbeat_at ? iso(row.heartbeat_at) : null } }
      : {}),
  };
}

/** The run with this id; undefined when there is none (or the id could never be one). */
export async function findRun(runId: string): Promise<RunSummary | undefined> {
  try {
    return await storageFromEnv().runs.getRun(runId);
  } catch (error) {
    // An empty or over-long id names no run.
    if (InvalidRunIdError.isInstance(error)) return undefined;
    throw error;
  }
}

/** Bars of a run's waterfall sent with its page (the chart draws the newest 60; live events add to them). */
export const WATERFALL_BARS_SENT = 200;

export interface RunView {
  run: WireRun;
  /** The newest events, from a chunk boundary on (timeline-window.ts). */
  tail: Tail;
  /** Over every event up to the tail's head. */
  totals: RunTotals;
  /** How the run's agent declares its tools (for the resume preview); null when the run names no registered agent. */
  declarations: Record<string, ToolDeclaration> | null;
  /** The events from the run's last model step up to the tail: with the tail, what the resume preview folds (planResume reads no further back). */
  planBasis: WireEvent[];
  /** Over every event up to the tail's head: the run's calls on its clock and its invocations (run-waterfall.ts). */
  waterfall: RunWaterfall;
  /** The run queue's memory of who invoked the run last (absent: not run through an executor). */
  executor: RunExecutorInfo | null;
  /** The price table (lib/cost) the page prices the totals' tokens with, live events included. */
  prices: PriceTable;
}

/** What a run page starts with: the summary, the tail of the journal, and the totals over all of it. */
export async function getRunView(runId: string): Promise<RunView | undefined> {
  const run = await findRun(runId);
  if (!run) return undefined;
  const journal = storageFromEnv().runs;
  const startSeq = tailStartFor(run.lastSeq);
  const tailEvents = await journal.events(run.runId, { afterSeq: startSeq - 1 });
  let totals = EMPTY_TOTALS;
  let waterfall = EMPTY_WATERFALL;
  let planBasis: RecordedEvent[] = [];
  for (let after = 0; after < startSeq - 1; ) {
    const page = await journal.events(run.runId, { afterSeq: after, limit: Math.min(500, startSeq - 1 - after) });
    const last = page[page.length - 1];
    if (!last) break;
    totals = addToTotals(totals, page as unknown as WireEvent[]);
    waterfall = addToWaterfall(waterfall, page);
    planBasis = fromLastModelStep(planBasis, page);
    after = last.seq;
  }
  totals = addToTotals(totals, tailEvents as unknown as WireEvent[]);
  waterfall = addToWaterfall(waterfall, tailEvents);
  const entry = await queueEntry(run.runId);
  return {
    run: toWireRun(run),
    tail: { startSeq, events: tailEvents.map(toWireEvent) },
    totals,
    declarations: toolDeclarations(run.input.agent) ?? null,
    planBasis: planBasis.map(toWireEvent),
    // The chart draws the newest bars only: the page carries those, not a bar per call of a long run.
    waterfall: jsonSafe(trimWaterfall(waterfall, WATERFALL_BARS_SENT)),
    executor: entry ? { lastOwner: entry.lastLeaseOwner, claimedAt: entry.claimedAt ? iso(entry.claimedAt) : null, claims: entry.claims } : null,
    prices: pagePriceTable(),
  };
}

/** One chunk of a run's journal (timeline-window.ts); empty for an unknown run. */
export async function getEventsChunk(runId: string, chunk: number): Promise<WireEvent[]> {
  const events: RecordedEvent[] = await storageFromEnv().runs.events(runId, { afterSeq: chunk * CHUNK_SIZE, limit: CHUNK_SIZE });
  return events.map(toWireEvent);
}
