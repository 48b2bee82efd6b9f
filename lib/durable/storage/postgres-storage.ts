/**
 * The journal on a PostgreSQL server, through postgres.js.
 *
 * A run's hold is a session advisory lock, taken on this process's lock session: one dedicated
 * connection that holds the locks of every run executing here. When the process dies, that
 * connection closes and the locks go with it, so an immediate resume elsewhere is not refused.
 * Appends go through the pool, and each append checks INSIDE its statement that the lock is still
 * held by this process's lock session (by backend pid): a writer whose lock session was lost
 * (connection cut, server restarted) cannot add a single event.
 * (Appends do not go through the locking connection itself: postgres.js 3.4.9 crashes the process
 * with a TypeError when a reserved connection is used after the server closed it.)
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { type Journal, RunBusyError } from '../internal';
import { migrate } from './migrate';
import { type HoldProvider, SqlJournal } from './sql-journal';
import { query, type TransactionalDb } from './sql-rows';

export interface PostgresStorageOptions {
  /** postgres://user@host:port/database */
  connectionString: string;
  /** Pool size for appends, reads and decisions. Default 10. Holds use one more connection per process, whatever the number of runs. */
  max?: number;
}

export class PostgresStorage {
  readonly kind = 'postgres' as const;
  readonly runs: Journal;
  private readonly client: postgres.Sql;
  private readonly holds: AdvisoryLockHolds;
  private ready: Promise<TransactionalDb> | undefined;

  constructor(options: PostgresStorageOptions) {
    if (!options?.connectionString) throw new TypeError('PostgresStorage: connectionString is required.');
    this.client = postgres(options.connectionString, { max: options.max ?? 10, onnotice: () => {} });
    this.holds = new AdvisoryLockHolds(options.connectionString, () => this.database());
    this.runs = new SqlJournal(() => this.database(), this.holds);
  }

  /** The migrated database; migration runs once per storage object, under a lock across processes. */
  database(): Promise<TransactionalDb> {
    this.ready ??= (async () => {
      const db = drizzle({ client: this.client });
      await migrate(db);
      return db;
    })().catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async close(): Promise<void> {
    await Promise.all([this.client.end({ timeout: 5 }), this.holds.close()]);
  }
}

class AdvisoryLockHolds implements HoldProvider {
  private readonly held = new Set<string>();
  private lockSession: postgres.Sql | undefined;

  constructor(
    private readonly connectionString: string,
    private readonly pool: () => Promise<TransactionalDb>,
  ) {}

  async acquire(runId: string) {
    const db = await this.pool();
    // Advisory locks are re-entrant within a session, so a second caller in this process is refused here.
    if (this.held.has(runId)) throw new RunBusyError({ runId, holder: `another call in process ${process.pid}` });
    this.held.add(runId);
    try {
      const key = advisoryKey(runId);
      // Never recycled (postgres.js recycles connections after 30-60 minutes by default): closing this
      // session would drop every hold of this process.
      this.lockSession ??= postgres(this.connectionString, { max: 1, idle_timeout: 0, max_lifetime: null, onnotice: () => {} });
      const [row] = await this.lockSession<{ locked: boolean; pid: number }[]>`select pg_try_advisory_lock(${key}::bigint) as locked, pg_backend_pid() as pid`;
      if (!row?.locked) throw new RunBusyError({ runId, holder: await describeHolder(db, key) });
      const { classid, objid } = lockIds(key);
      const guard = sql`exists (select 1 from pg_locks where locktype = 'advisory' and granted and pid = ${row.pid}
        and classid = ${classid}::bigint::oid and objid = ${objid}::bigint::oid and objsubid = 1)`;
      return { db, guard, release: () => this.release(runId, key) };
    } catch (error) {
      this.held.delete(runId);
      throw error;
    }
  }

  private async release(runId: string, key: string): Promise<void> {
    try {
      // On a lock session that was lost and reconnected this unlocks nothing, which is right.
      if (this.lockSession) await this.lockSession`select pg_advisory_unlock(${key}::bigint)`;
    } finally {
      this.held.delete(runId);
    }
  }

  async close(): Promise<void> {
    await this.lockSession?.end({ timeout: 5 });
  }
}

function lockIds(key: string): { classid: string; objid: string } {
  const big = BigInt(key);
  const unsigned = big < 0n ? big + (1n << 64n) : big;
  return { classid: (unsigned >> 32n).toString(), objid: (unsigned & 0xffffffffn).toString() };
}

/** 64 bits of SHA-256 of the runId, as the signed bigint Postgres expects. */
export function advisoryKey(runId: string): string {
  return createHash('sha256').update(`gnl-run:${runId}`).digest().readBigInt64BE(0).toString();
}

async function describeHolder(db: TransactionalDb, key: string): Promise<string | undefined> {
  const { classid, objid } = lockIds(key);
  const [row] = await query<{ pid: number; client_addr: string | null }>(
    db,
    sql`select a.pid, a.client_addr::text as client_addr from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.classid = ${classid}::bigint::oid and l.objid = ${objid}::bigint::oid and l.objsubid = 1
        limit 1`,
  );
  return row ? `held by database session ${row.pid}${row.client_addr ? ` from ${row.client_addr}` : ''}` : undefined;
}
