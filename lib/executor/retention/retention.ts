/**
 * Retention: drop the runs that ended more than their agent's retention ago (retention-policy.ts), a
 * bounded batch at a time, each run in its own short transaction, never one big one.
 *
 * Ended means completed or canceled: nothing can move such a run again. A failed run is not ended (an
 * operator or the executor's retry may resume it), nor is a run waiting for a person; those are kept
 * whatever their age. The end is the run's last event: the summary row's `updated_at`, which every
 * append sets in the statement that writes the events.
 *
 * A run's drop, in one transaction: set `gnl.retention_drop` to its id (set_config(…, true): this
 * transaction only; migration 0016's triggers let the journal's rows of that run, and blobs no event
 * names any more, be deleted then and only then); lock its summary row (as every writer does) and check
 * again that it is ended, unchanged since it was selected, not leased by an executor and not held by a
 * writer; delete its rows from every table that holds the run's data; write one gnl.retention_log row.
 * A run that moved, or is held, is skipped and reported; the next pass looks again.
 *
 * Left alone: ids that name a run in other records (gnl.schedule_audit and gnl.operator_audit, append-only;
 * a schedule's `last_run_id`; a bulk dry run's snapshot in gnl.bulk_preview_runs). They hold no run data.
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { runLockHeld, type Storage } from '@/lib/durable/storage';
import { type RetentionPolicy, retentionPolicySchema } from './retention-policy';

type Database = Awaited<ReturnType<Storage['database']>>;
type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

/** Statuses after which nothing moves a run again. */
export const ENDED_STATUSES = ['completed', 'canceled'] as const;

/** A run the policy makes eligible to drop. */
export interface ExpiredRun {
  runId: string;
  agent: string;
  status: string;
  /** Its last event (the summary row's updated_at). */
  endedAt: Date;
  lastSeq: number;
  policyDays: number;
}

/** A run dropped: what its gnl.retention_log row says. */
export interface DroppedRun extends ExpiredRun {
  eventCount: number;
  payloadBytes: number;
  blobBytes: number;
  droppedAt: Date;
}

export type RetentionSkipReason = 'gone' | 'changed' | 'leased' | 'held';

/** Where the next batch starts (keyset on the end time, then the run id): past the runs this batch skipped. */
export interface RetentionCursor {
  endedKey: string;
  runId: string;
}

export interface RetentionBatch {
  /** Runs selected (at most batchSize). */
  selected: number;
  dropped: DroppedRun[];
  skipped: { runId: string; reason: RetentionSkipReason }[];
  /** True when the batch was full: more runs may be eligible. */
  more: boolean;
  /** Pass it as `after` to continue past this batch (its skipped runs included). */
  cursor: RetentionCursor | undefined;
}

const requestSchema = z.object({
  policy: retentionPolicySchema,
  batchSize: z.number().int().min(1).max(10_000).default(100),
  now: z.date().optional(),
  after: z.object({ endedKey: z.string(), runId: z.string() }).optional(),
});

export interface FindExpiredRequest {
  storage: Storage;
  policy: RetentionPolicy;
  /** Runs per batch. Default 100. */
  batchSize?: number;
  /** The instant ages are measured from. Default: the database's clock. */
  now?: Date;
  /** Continue after this cursor (a previous batch's). Default: from the oldest. */
  after?: RetentionCursor;
}

export interface DropExpiredRequest extends FindExpiredRequest {
  /** Who drops (recorded in gnl.retention_log): an executor's owner, or `cli:<user>@<host>`. */
  droppedBy: string;
}

interface CandidateRow {
  runId: string;
  agent: string;
  status: string;
  endedAt: Date | string;
  endedKey: string;
  lastSeq: number;
  policyDays: number;
}

/** The oldest eligible runs, at most batchSize, oldest end first. Writes nothing (the CLI's dry run). */
export async function findExpiredRuns(request: FindExpiredRequest): Promise<{ runs: ExpiredRun[]; cursor: RetentionCursor | undefined }> {
  const { policy, batchSize, now, after } = requestSchema.parse(request);
  const db = await request.storage.database();
  const rows = await selectCandidates(db, { policy, batchSize, now, after });
  const last = rows.at(-1);
  return { runs: rows.map(toExpired), cursor: last ? { endedKey: last.endedKey, runId: last.runId } : undefined };
}

/** One batch: selects at most batchSize eligible runs and drops each in its own transaction. */
export async function dropExpiredRuns(request: DropExpiredRequest): Promise<RetentionBatch> {
  const droppedBy = z.string().trim().min(1, 'say who drops').max(200).parse(request.droppedBy);
  const { policy, batchSize, now, after } = requestSchema.parse(request);
  const db = await request.storage.database();
  const rows = await selectCandidates(db, { policy, batchSize, now, after });
  const batch: RetentionBatch = { selected: rows.length, dropped: [], skipped: [], more: rows.length === batchSize, cursor: undefined };
  for (const row of rows) {
    const outcome = await dropRun(db, toExpired(row), droppedBy);
    if ('reason' in outcome) batch.skipped.push({ runId: row.runId, reason: outcome.reason });
    else batch.dropped.push(outcome);
  }
  const last = rows.at(-1);
  batch.cursor = last ? { endedKey: last.endedKey, runId: last.runId } : undefined;
  return batch;
}

function selectCandidates(db: Database, args: z.output<typeof requestSchema>): Promise<CandidateRow[]> {
  if (args.policy.agents.length === 0) return Promise.resolve([]);
  const policy = JSON.stringify(args.policy.agents);
  const now = args.now ? sql`${args.now.toISOString()}::timestamptz` : sql`now()`;
  const after = args.after ? sql`and (r.updated_at, r.run_id) > (${args.after.endedKey}::timestamptz, ${args.after.runId}::text)` : sql``;
  return rows<CandidateRow>(
    db,
    sql`select r.run_id as "runId", p.agent, r.status, r.updated_at as "endedAt", r.updated_at::text as "endedKey",
          r.last_seq as "lastSeq", p.days as "policyDays"
        from jsonb_to_recordset(${policy}::text::jsonb) as p(agent text, days int)
        join gnl.runs r on r.input->>'agent' = p.agent
        where r.status in ('completed', 'canceled') and r.updated_at < ${now} - make_interval(days => p.days) ${after}
        order by r.updated_at, r.run_id
        limit ${args.batchSize}`,
  );
}

async function dropRun(db: Database, run: ExpiredRun, droppedBy: string): Promise<DroppedRun | { reason: RetentionSkipReason }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('gnl.retention_drop', ${run.runId}, true)`);
    const [current] = await rows<{ status: string; lastSeq: number; held: boolean; leased: boolean }>(
      tx,
      sql`select r.status, r.last_seq as "lastSeq", ${runLockHeld(sql`r.run_id`)} as held,
            exists (select 1 from gnl.run_queue q where q.run_id = r.run_id and q.lease_owner is not null and q.lease_expires_at > now()) as leased
          from gnl.runs r where r.run_id = ${run.runId} for update of r`,
    );
    if (!current) return { reason: 'gone' as const };
    if (current.status !== run.status || Number(current.lastSeq) !== run.lastSeq) return { reason: 'changed' as const };
    if (current.leased) return { reason: 'leased' as const };
    if (current.held) return { reason: 'held' as const };
    return deleteRunRows(tx, run, droppedBy);
  });
}

async function deleteRunRows(tx: Tx, run: ExpiredRun, droppedBy: string): Promise<DroppedRun> {
  const { runId } = run;
  const [stats] = await rows<{ eventCount: number | string; payloadBytes: number | string; blobs: string[] | null }>(
    tx,
    sql`select count(*) as "eventCount", coalesce(sum(octet_length(payload::text) + coalesce(octet_length(answer::text), 0)), 0) as "payloadBytes",
          (select array_agg(distinct h) from gnl.run_events, unnest(blobs) as h where run_id = ${runId} and blobs is not null) as blobs
        from gnl.run_events where run_id = ${runId}`,
  );
  // Bookkeeping beside the journal first (run_queue refers to runs), then the events, then the blobs no
  // event names any more (content-addressed: another run may name the same one), then the summary row.
  await tx.execute(sql`delete from gnl.stream_chunks where run_id = ${runId}`);
  await tx.execute(sql`delete from gnl.notifications where run_id = ${runId}`);
  await tx.execute(sql`delete from gnl.demo_crash_points where run_id = ${runId}`);
  await tx.execute(sql`delete from gnl.run_queue where run_id = ${runId}`);
  await tx.execute(sql`delete from gnl.run_keys where run_id = ${runId}`); // its data goes with it: its key too (migration 0017)
  await tx.execute(sql`delete from gnl.run_events where run_id = ${runId}`);
  const blobs = JSON.stringify(stats?.blobs ?? []);
  const [freed] = await rows<{ blobBytes: number | string }>(
    tx,
    sql`with d as (delete from gnl.payloads p
          where p.hash in (select jsonb_array_elements_text(${blobs}::text::jsonb))
            and not exists (select 1 from gnl.run_events e where e.blobs is not null and e.blobs @> array[p.hash])
          returning p.bytes)
        select coalesce(sum(bytes), 0) as "blobBytes" from d`,
  );
  await tx.execute(sql`delete from gnl.runs where run_id = ${runId}`);
  const eventCount = Number(stats?.eventCount ?? 0);
  const payloadBytes = Number(stats?.payloadBytes ?? 0);
  const blobBytes = Number(freed?.blobBytes ?? 0);
  const [logged] = await rows<{ droppedAt: Date | string }>(
    tx,
    sql`insert into gnl.retention_log (run_id, agent, status, ended_at, event_count, payload_bytes, blob_bytes, policy_days, dropped_by)
        values (${runId}, ${run.agent}, ${run.status}, ${run.endedAt.toISOString()}::timestamptz, ${eventCount}, ${payloadBytes}, ${blobBytes},
          ${run.policyDays}, ${droppedBy})
        returning dropped_at as "droppedAt"`,
  );
  return { ...run, eventCount, payloadBytes, blobBytes, droppedAt: toDate(logged?.droppedAt) };
}

function toExpired(row: CandidateRow): ExpiredRun {
  return {
    runId: row.runId,
    agent: row.agent,
    status: row.status,
    endedAt: toDate(row.endedAt),
    lastSeq: Number(row.lastSeq),
    policyDays: Number(row.policyDays),
  };
}

/** Timestamps arrive as Dates from postgres.js and as strings from PGlite's raw results. */
export function toDate(value: Date | string | undefined | null): Date {
  if (value instanceof Date) return value;
  if (typeof value !== 'string') throw new TypeError(`expected a timestamp, got ${String(value)}`);
  return new Date(value);
}

/** A statement's rows, as either driver returns them (postgres.js: an array; PGlite: `{ rows }`). */
export async function rows<T>(db: Pick<Database, 'execute'>, statement: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await db.execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
