/**
 * Who holds a run, in Postgres's own terms. A run executing on Postgres is a session advisory lock
 * (advisory-holds.ts takes it) keyed by 64 bits of SHA-256 of the run id. Every statement that asks
 * about those locks is built here, so `pg_locks` and the key's derivation live in one file:
 *   - is the run's lock still held (the append's fence, event-rows.ts: by the lock manager, not pg_locks);
 *   - who holds this run (the RunBusyError a second taker gets);
 *   - does anyone hold it (the Studio's runs page: a lapsed lease with no live holder);
 *   - end the sessions holding it (an executor taking over from a holder that hangs, lib/executor).
 * PGlite is Postgres too, but holds there are in-process (pglite-storage.ts): no advisory lock is ever
 * granted on it, so these find no holder.
 */
import { createHash } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { type Db, query } from './sql-rows';

/** 64 bits of SHA-256 of the runId, as the signed bigint Postgres expects. */
export function advisoryKey(runId: string): string {
  return createHash('sha256').update(`gnl-run:${runId}`).digest().readBigInt64BE(0).toString();
}

/** 64 bits of SHA-256 of a job's name, in a key space of its own (`gnl-job:`): never a run's lock. */
export function jobAdvisoryKey(job: string): string {
  return createHash('sha256').update(`gnl-job:${job}`).digest().readBigInt64BE(0).toString();
}

// advisoryKey in SQL, around a run-id expression: one text for drizzle's statements and the prepared ones.
const KEY_BEFORE = `('x' || left(encode(sha256(convert_to('gnl-run:' || `;
const KEY_AFTER = `, 'UTF8')), 'hex'), 16))::bit(64)::bigint`;

/** advisoryKey computed by the server from a run-id expression (a column): the same key (run-locks.test.ts). */
export function advisoryKeySql(runId: SQL): SQL {
  return sql`${sql.raw(KEY_BEFORE)}${runId}${sql.raw(KEY_AFTER)}`;
}

/** The two halves of the advisory key, as pg_locks shows them. */
export function lockIds(key: string): { classid: string; objid: string } {
  const big = BigInt(key);
  const unsigned = big < 0n ? big + (1n << 64n) : big;
  return { classid: (unsigned >> 32n).toString(), objid: (unsigned & 0xffffffffn).toString() };
}

// A single-bigint advisory lock shows in pg_locks as (classid, objid) = (high, low 32 bits), objsubid 1.
const GRANTED_ADVISORY = `l.locktype = 'advisory' and l.granted and l.objsubid = 1`;

/**
 * For a prepared statement's text (the append's fence, event-rows.ts): some session still holds the run's
 * lock, whose key is the parameter `key` (such as `$8`). Asked of the lock manager for that one key: a
 * shared transaction lock is tried, which only a session holding the lock exclusively refuses (a writer's
 * own session never holds it: its lock is on the side session). Not `pg_locks`: that view copies the
 * whole lock table under all of its partition locks, so an append that read it cost more with every run
 * held anywhere on the server (0.17 ms at no lock, 0.53 ms with 1,000 runs held, 2.46 ms with 3,000:
 * `npx tsx bench/fence-check.ts`), and held up every lock taken meanwhile. When the lock is free the try
 * takes it until the statement's transaction ends: a taker in that instant is refused (RunBusyError) and
 * tries again, as for any held run.
 */
export function lockHeldClause(key: string): string {
  return `not pg_try_advisory_xact_lock_shared(${key}::bigint)`;
}

/** runLockHeld for a prepared statement's text: `runId` is an SQL expression (a column, a parameter such as `$1::text`). */
export function runLockHeldClause(runId: string): string {
  return `exists (select 1 from pg_locks l, lateral (select ${KEY_BEFORE}${runId}${KEY_AFTER} as k) key
    where ${GRANTED_ADVISORY} and l.classid = ((key.k >> 32) & 4294967295)::oid and l.objid = (key.k & 4294967295)::oid)`;
}

/** Some database session holds the lock of the run `runId` names (a column, or a value). */
export function runLockHeld(runId: SQL): SQL {
  return sql`exists (select 1 from pg_locks l, lateral (select ${advisoryKeySql(runId)} as k) key
    where ${sql.raw(GRANTED_ADVISORY)} and l.classid = ((key.k >> 32) & 4294967295)::oid and l.objid = (key.k & 4294967295)::oid)`;
}

/** The sessions holding the run's lock, by key halves. */
function heldBy(key: string): SQL {
  const { classid, objid } = lockIds(key);
  return sql`${sql.raw(GRANTED_ADVISORY)} and l.classid = ${classid}::bigint::oid and l.objid = ${objid}::bigint::oid`;
}

/** Who holds the run (by its advisory key), for a RunBusyError: `held by database session N from ADDR`, or undefined. */
export async function describeRunHolder(db: Db, key: string): Promise<string | undefined> {
  const [row] = await query<{ pid: number; client_addr: string | null }>(
    db,
    sql`select a.pid, a.client_addr::text as client_addr from pg_locks l join pg_stat_activity a on a.pid = l.pid where ${heldBy(key)} limit 1`,
  );
  return row ? `held by database session ${row.pid}${row.client_addr ? ` from ${row.client_addr}` : ''}` : undefined;
}

/**
 * Ends every other database session holding the run's lock, in one statement and only while `onlyIf`
 * is true (checked in that statement, e.g. "this executor's lease on the run is unexpired"). The pids
 * ended. The ended session's locks go with it as its backend exits, a moment later.
 */
export async function terminateRunHolders(db: Db, args: { runId: string; onlyIf: SQL }): Promise<number[]> {
  const rows = await query<{ pid: number; terminated: boolean }>(
    db,
    sql`select l.pid, pg_terminate_backend(l.pid) as terminated from pg_locks l
      where ${heldBy(advisoryKey(args.runId))} and l.pid <> pg_backend_pid() and ${args.onlyIf}`,
  );
  return rows.filter((row) => row.terminated).map((row) => row.pid);
}
