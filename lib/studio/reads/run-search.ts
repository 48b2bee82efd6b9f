/**
 * The runs page's one query: newest first, filtered by status and agent, searched by run-id prefix,
 * tool name or idempotency key, a keyset cursor on (created_at, run_id), with each run's tokens and its
 * lease as the run queue knows it. Pure SQL building (drizzle `sql`), no server-only import: the
 * Studio runs it on storageFromEnv's database (runs.ts), bench/studio-queries.ts on a seeded one.
 *
 * Fast at 100 000 runs / 2 000 000 events because every branch has an index (migration 0006):
 * - no search: runs_created_idx / runs_status_created_idx / runs_agent_created_idx, read backwards;
 * - run-id prefix: `run_id like 'p%'` on runs_run_id_prefix_idx (text_pattern_ops);
 * - tool name, key: run_events_tool_name_idx / run_events_idempotency_key_idx, partial expression
 *   indexes the insert maintains itself (no trigger, nothing added to the append statement).
 * A search is the union of three branches, each limited to one page after the cursor in its own
 * index order, so a tool half the runs called and a key one run holds are both one index walk.
 * Tokens are summed per listed run over its model steps (the primary key finds them), read as the
 * core reads them (usage-sql.ts).
 */
import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { runLockHeld } from '@/lib/durable/storage';
import { stepTokensSql } from './usage-sql';
import { runMarksSql } from './run-marks-sql';

export const SEARCH_MAX_LENGTH = 200;

export const runSearchSchema = z.object({
  status: z.string().optional(),
  agent: z.string().min(1).max(200).optional(),
  /** A run-id prefix, a tool name or an idempotency key. */
  q: z.string().trim().min(1).max(SEARCH_MAX_LENGTH).optional(),
  cursor: z.object({ createdAt: z.string(), runId: z.string() }).optional(),
  limit: z.number().int().min(1).max(500),
});

export type RunSearch = z.input<typeof runSearchSchema>;

/** A row of the runs page: the summary columns, tokens, and the run queue's lease. */
export interface RunSearchRow {
  run_id: string;
  status: string;
  input: unknown;
  step_count: number;
  last_seq: number;
  pending: unknown;
  created_at: Date | string;
  updated_at: Date | string;
  created_at_text: string;
  /** Input plus output tokens over the run's model steps (as the providers reported them). */
  tokens: string | number;
  lease_owner: string | null;
  last_lease_owner: string | null;
  lease_expires_at: Date | string | null;
  heartbeat_at: Date | string | null;
  /** The lease expired, and (Postgres) no database session holds the run's advisory lock. */
  lease_lapsed: boolean | null;
  /** The marks of run-marks-sql.ts: an invocation was interrupted, the run waited for people, a person decided. */
  interrupted: boolean;
  waited: boolean;
  decided: boolean;
  imported: boolean;
  /** Its last event's time, a run-forked or run-restarted appended later aside (where its duration ends). */
  worked_until: Date | string | null;
}

/** `like` with the prefix's own %, _ and \ taken literally. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const TOOL_EVENTS = sql.raw(`e.type in ('tool-call-start', 'tool-call-end', 'tool-call-error', 'tool-approval-request')`);
const KEY_EVENTS = sql.raw(`e.type in ('tool-call-start', 'tool-call-end', 'tool-call-error')`);

/**
 * Below this many events naming the tool, the tool branch starts from the tool's index entries; above
 * it, from the newest runs, probing the index per run (a common tool fills a page after a few runs).
 * The planner cannot tell the two apart (a rare tool name is missing from its statistics), so we ask.
 */
export const FEW_TOOL_EVENTS = 2_000;

/** How many events name the tool `q`, counted up to FEW_TOOL_EVENTS + 1 (one index range scan). */
export function toolEventCountStatement(q: string): SQL {
  // Ordered as the index is, so the planner walks it and stops at the limit (a bitmap scan reads every entry).
  return sql`select count(*)::int as n from (select 1 from gnl.run_events e where (e.payload->>'toolName') = ${q} and ${TOOL_EVENTS}
    order by (e.payload->>'toolName'), e.run_id limit ${FEW_TOOL_EVENTS + 1}) x`;
}

/**
 * The statement for one page (limit + 1 rows: one more says there is a next page). With a search,
 * `toolEvents` is toolEventCountStatement's answer (it picks the tool branch's plan).
 */
export function runSearchStatement(search: RunSearch, toolEvents = 0): SQL {
  const { status, agent, q, cursor, limit } = runSearchSchema.parse(search);
  const filters = sql.join(
    [
      sql`true`,
      ...(status ? [sql`r.status = ${status}`] : []),
      ...(agent ? [sql`(r.input->>'agent') = ${agent}`] : []),
      ...(cursor ? [sql`(r.created_at, r.run_id) < (${cursor.createdAt}::timestamptz, ${cursor.runId}::text)`] : []),
    ],
    sql` and `,
  );
  const take = limit + 1;
  const newest = sql`order by r.created_at desc, r.run_id desc limit ${take}`;
  /**
   * Runs among `hits` (a CTE of run ids), each looked up by its primary key: the hits are few. (`offset 0`
   * keeps the planner from turning the lookups into a hash join over every run: it cannot know how few.)
   */
  const among = (hits: SQL) =>
    sql`(select r.run_id, r.created_at from ${hits} h cross join lateral (select r.run_id, r.created_at from gnl.runs r
      where r.run_id = h.run_id and ${filters} offset 0) r ${newest})`;
  const toolBranch =
    toolEvents <= FEW_TOOL_EVENTS
      ? among(sql`tool_hits`)
      : sql`(select r.run_id, r.created_at from gnl.runs r where ${filters} and exists (select 1 from gnl.run_events e
          where (e.payload->>'toolName') = ${q} and e.run_id = r.run_id and ${TOOL_EVENTS}) ${newest})`;
  const page = q
    ? sql`(select r.run_id, r.created_at from gnl.runs r where ${filters} and r.run_id like ${likePrefix(q)} ${newest})
      union ${toolBranch}
      union ${among(sql`key_hits`)}
      order by created_at desc, run_id desc limit ${take}`
    : sql`select r.run_id, r.created_at from gnl.runs r where ${filters} ${newest}`;
  const hits = q
    ? sql`key_hits as materialized (select distinct e.run_id from gnl.run_events e where (e.payload->>'idempotencyKey') = ${q} and ${KEY_EVENTS}),
      ${toolEvents <= FEW_TOOL_EVENTS ? sql`tool_hits as materialized (select distinct e.run_id from gnl.run_events e where (e.payload->>'toolName') = ${q} and ${TOOL_EVENTS}),` : sql``}`
    : sql``;
  return sql`with ${hits} page as (${page})
    select r.run_id, r.status, r.input, r.step_count, r.last_seq, r.pending, r.created_at, r.updated_at,
      r.created_at::text as created_at_text,
      (select coalesce(sum(${stepTokensSql(sql`e.payload`)}), 0) from gnl.run_events e where e.run_id = r.run_id and e.type = 'model-step') as tokens,
      ${runMarksSql(sql`r.run_id`)},
      (select e.created_at from gnl.run_events e where e.run_id = r.run_id and e.type not in ('run-forked', 'run-restarted', 'run-imported')
        order by e.seq desc limit 1) as worked_until,
      q.lease_owner, q.last_lease_owner, q.lease_expires_at, q.heartbeat_at,
      case when r.status = 'running' and q.lease_owner is not null and q.lease_expires_at <= now() then not ${runLockHeld(sql`r.run_id`)}
      end as lease_lapsed
    from page p join gnl.runs r on r.run_id = p.run_id left join gnl.run_queue q on q.run_id = r.run_id
    order by r.created_at desc, r.run_id desc`;
}

/** created_at as Postgres prints timestamptz (`2026-11-29 22:51:23.123456+00`). */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}(:?\d{2})?|Z)?$/;

export function encodeRunCursor(value: { createdAt: string; runId: string }): string {
  return Buffer.from(JSON.stringify([value.createdAt, value.runId])).toString('base64url');
}

/** The cursor's position, or undefined when it is not one runs pages give out. Same encoding as the journal's listRuns. */
export function decodeRunCursor(cursor: string): { createdAt: string; runId: string } | undefined {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && TIMESTAMP.test(value[0])) {
      return { createdAt: value[0], runId: value[1] };
    }
  } catch {
    // Not base64url JSON: the caller says the link is not one it gave out.
  }
  return undefined;
}

/** A drizzle database (either driver) that can open a transaction. */
export interface SearchDb {
  transaction<T>(work: (tx: { execute(statement: SQL): Promise<unknown> }) => Promise<T>): Promise<T>;
}

async function rowsOf<T>(tx: { execute(statement: SQL): Promise<unknown> }, statement: SQL): Promise<T[]> {
  const result = await tx.execute(statement);
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/**
 * One page of the runs page: limit + 1 rows at most. In one read transaction without parallel workers
 * or JIT: this is a handful of index probes, and both cost more to start than they save (measured at
 * 100 000 runs on a loaded server: a parallel plan took 100+ ms to start its workers, and the planner,
 * which cannot estimate the search CTEs, judged the statement costly enough to JIT-compile for 130 ms).
 */
export async function searchRuns(db: SearchDb, search: RunSearch): Promise<RunSearchRow[]> {
  const parsed = runSearchSchema.parse(search);
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local max_parallel_workers_per_gather = 0`);
    await tx.execute(sql`set local jit = off`);
    const toolEvents = parsed.q ? ((await rowsOf<{ n: number }>(tx, toolEventCountStatement(parsed.q)))[0]?.n ?? 0) : 0;
    return rowsOf<RunSearchRow>(tx, runSearchStatement(parsed, toolEvents));
  });
}
