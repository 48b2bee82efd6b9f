/**
 * gnl.run_keys in SQL (run-keys.ts, docs/erasure.md): loading the runs' keys into the ring before their
 * data is sealed or opened (one query for the runs the ring does not hold fresh; nothing without a
 * journal key), and erasing: a run's wrapped key is destroyed, the erasure recorded in the append-only
 * gnl.erasures, and the run's stream log (a cache, sealed with the same key) dropped.
 */
import { JournalDataError, type JournalSecrets, RunErasedError, type RunErasure } from '../internal';
import { runLockHeldClause } from './run-locks';
import type { SqlDriver, SqlQuery } from './sql-driver';

type KeyRow = { run_id: string; wrapped: string | null; erased_at: Date | string | null; erased_by: string | null; erased_reason: string | null };

/** Loads what the ring does not hold fresh for `runIds`. */
export async function ensureRunKeys(db: SqlQuery, secrets: JournalSecrets, runIds: readonly string[]): Promise<void> {
  const ring = secrets.ring;
  if (!ring) return;
  const missing = [...new Set(runIds)].filter((runId) => ring.cached(runId) === undefined);
  if (missing.length === 0) return;
  const rows = await db.query<KeyRow>('select run_id, wrapped, erased_at, erased_by, erased_reason from gnl.run_keys where run_id = any($1::text[])', [
    missing,
  ]);
  const byRun = new Map(rows.map((row) => [row.run_id, row]));
  for (const runId of missing) ring.remember(runId, ring.fromRow(runId, byRun.get(runId)));
}

/** The erasure of `runId`, if it was erased (loaded first). */
export function erasureOf(secrets: JournalSecrets, runId: string): RunErasure | undefined {
  const state = secrets.ring?.cached(runId);
  return state?.kind === 'erased' ? state.erasure : undefined;
}

/**
 * Refuses to run an erased run again (its data reads as erased): RunErasedError. Read from the database,
 * never from the ring: an erasure made by another process a moment ago is seen (the ring is refreshed).
 */
export async function assertNotErased(db: SqlQuery, secrets: JournalSecrets, runId: string): Promise<void> {
  const ring = secrets.ring;
  // Without a journal key no key is read: the run's first append is refused in its statement instead (event-rows.ts).
  if (!ring) return;
  const [row] = await db.query<KeyRow>('select run_id, wrapped, erased_at, erased_by, erased_reason from gnl.run_keys where run_id = $1::text', [runId]);
  const state = ring.fromRow(runId, row);
  ring.remember(runId, state);
  if (state.kind === 'erased') throw new RunErasedError(runId, state.erasure);
}

/** The erasure of `runId` as the database records it (an append refused for it says why), or undefined. */
export async function erasureInDatabase(db: SqlQuery, runId: string): Promise<RunErasure | undefined> {
  const [row] = await db.query<Omit<KeyRow, 'run_id' | 'wrapped'>>(
    'select erased_at, erased_by, erased_reason from gnl.run_keys where run_id = $1::text and wrapped is null',
    [runId],
  );
  return row ? { at: new Date(row.erased_at ?? 0), by: row.erased_by ?? 'unknown', reason: row.erased_reason ?? '' } : undefined;
}

/** The statuses a run may be erased in: it will not run again. */
export const ERASABLE_STATUSES = ['completed', 'failed', 'canceled'] as const;

export interface EraseOptions {
  /** Who erases (an operator's login, `cli:<user>@<host>`). */
  by: string;
  /** Why (a deletion request's reference): recorded with the erasure. */
  reason: string;
}

export type EraseOutcome =
  | { runId: string; outcome: 'erased'; at: Date }
  | { runId: string; outcome: 'already-erased'; erasure: RunErasure }
  | { runId: string; outcome: 'refused'; why: string };

/**
 * Erases one run, in `tx` (a transaction): its summary row is locked first, the lock every append takes,
 * so the erasure is ordered with every writer's appends (each append refuses a run whose key is erased,
 * event-rows.ts); its key row is locked, checked and emptied, the erasure recorded, its stream log
 * deleted. Refused (nothing written) for a run that does not exist, has no key of its own (recorded
 * before run keys), may still run, or is held by a writer (Postgres: an invocation took it and is about
 * to append; PGlite's holds are in-process, its appends see the erasure). An erased run answers already-erased.
 */
export async function eraseRunIn(tx: SqlQuery, runId: string, options: EraseOptions): Promise<EraseOutcome> {
  const [run] = await tx.query<{ status: string; held: boolean }>(
    `select status, ${runLockHeldClause('run_id')} as held from gnl.runs where run_id = $1::text for update`,
    [runId],
  );
  const [row] = await tx.query<KeyRow & { subject: string | null }>(
    'select run_id, wrapped, erased_at, erased_by, erased_reason, subject from gnl.run_keys where run_id = $1::text for update',
    [runId],
  );
  if (!row) {
    return {
      runId,
      outcome: 'refused',
      why: run
        ? 'it was recorded without a key of its own (before run keys were on), so its data cannot be erased by destroying one'
        : 'no run has this id in this journal',
    };
  }
  if (row.wrapped === null) {
    return { runId, outcome: 'already-erased', erasure: { at: new Date(row.erased_at ?? 0), by: row.erased_by ?? 'unknown', reason: row.erased_reason ?? '' } };
  }
  if (!run || !(ERASABLE_STATUSES as readonly string[]).includes(run.status)) {
    return { runId, outcome: 'refused', why: `it is ${run?.status ?? 'missing'}: only a completed, failed or canceled run is erased (cancel it first)` };
  }
  if (run.held) return { runId, outcome: 'refused', why: 'it is held by a writer (an invocation took it to run it): erase it once that ends' };
  const [erased] = await tx.query<{ erased_at: Date | string }>(
    `update gnl.run_keys set wrapped = null, erased_at = now(), erased_by = $2::text, erased_reason = $3::text
      where run_id = $1::text returning erased_at`,
    [runId, options.by, options.reason],
  );
  await tx.query('insert into gnl.erasures (run_id, subject, erased_by, reason, erased_at) values ($1::text, $2::text, $3::text, $4::text, $5::timestamptz)', [
    runId,
    row.subject,
    options.by,
    options.reason,
    erased?.erased_at,
  ]);
  await tx.query('delete from gnl.stream_chunks where run_id = $1::text', [runId]);
  return { runId, outcome: 'erased', at: new Date(erased?.erased_at ?? Date.now()) };
}

/** The runs recorded for a subject that have a key of their own, oldest first. */
export async function runsOfSubject(db: SqlQuery, subject: string): Promise<string[]> {
  const rows = await db.query<{ run_id: string }>('select run_id from gnl.run_keys where subject = $1::text order by created_at, run_id', [subject]);
  return rows.map((row) => row.run_id);
}

export interface ErasureRecord {
  id: number;
  runId: string;
  subject: string | null;
  by: string;
  reason: string;
  at: Date;
}

/** The erasure log, newest first. */
export async function readErasures(db: SqlQuery, options: { runId?: string; limit?: number } = {}): Promise<ErasureRecord[]> {
  const limit = options.limit ?? 100;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000) throw new JournalDataError(`limit must be 1 to 10000 (got ${limit}).`);
  const rows = await db.query<{ id: number | string; run_id: string; subject: string | null; erased_by: string; reason: string; erased_at: Date | string }>(
    `select id, run_id, subject, erased_by, reason, erased_at from gnl.erasures
      where ($1::text is null or run_id = $1::text) order by erased_at desc, id desc limit $2::int`,
    [options.runId ?? null, limit],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    runId: row.run_id,
    subject: row.subject,
    by: row.erased_by,
    reason: row.reason,
    at: new Date(row.erased_at),
  }));
}

/** Deletes what memory holds about a resource (gnl.memory_items, gnl.working_memory), in one transaction: the rows deleted. */
export async function forgetResource(db: SqlDriver, resource: string): Promise<{ items: number; versions: number }> {
  return db.transaction(async (tx) => {
    const items = await tx.query<{ id: number }>('delete from gnl.memory_items where resource = $1::text returning id', [resource]);
    const versions = await tx.query<{ version: number }>('delete from gnl.working_memory where resource = $1::text returning version', [resource]);
    return { items: items.length, versions: versions.length };
  });
}
