/**
 * The journal on a PostgreSQL server, through postgres.js.
 *
 * A run's hold is a session advisory lock taken on a connection reserved for the holder; the run's
 * appends go through that same connection. When the holder dies, its connection closes and the lock
 * goes with it, so an immediate resume elsewhere is not refused; and a holder whose connection was
 * lost can no longer append through it.
 */
import { createHash } from 'node:crypto';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { RunBusyError, type Journal } from '../internal';
import { migrate } from './migrate';
import { SqlJournal, type HoldProvider } from './sql-journal';
import { query, type TransactionalDb } from './sql-rows';

export interface PostgresStorageOptions {
  /** postgres://user@host:port/database */
  connectionString: string;
  /** Pool size for reads, decisions and holds. Default 10. Each run executing in this process holds one connection. */
  max?: number;
}

export class PostgresStorage {
  readonly kind = 'postgres' as const;
  readonly runs: Journal;
  private readonly client: postgres.Sql;
  private ready: Promise<TransactionalDb> | undefined;

  constructor(options: PostgresStorageOptions) {
    if (!options?.connectionString) throw new TypeError('PostgresStorage: connectionString is required.');
    this.client = postgres(options.connectionString, { max: options.max ?? 10, onnotice: () => {} });
    this.runs = new SqlJournal(() => this.database(), new AdvisoryLockHolds(this.client));
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
    await this.client.end({ timeout: 5 });
  }
}

class AdvisoryLockHolds implements HoldProvider {
  constructor(private readonly client: postgres.Sql) {}

  async acquire(runId: string) {
    const key = advisoryKey(runId);
    const connection = await this.client.reserve();
    // drizzle reads the client's type options; a reserved connection shares its pool's.
    const db = drizzle({ client: Object.assign(connection, { options: this.client.options }) as unknown as postgres.Sql });
    try {
      const [row] = await query<{ locked: boolean }>(db, sql`select pg_try_advisory_lock(${key}::bigint) as locked`);
      if (!row?.locked) throw new RunBusyError({ runId, holder: await describeHolder(db, key) });
    } catch (error) {
      connection.release();
      throw error;
    }
    return {
      db,
      release: async () => {
        try {
          await query(db, sql`select pg_advisory_unlock(${key}::bigint)`);
        } finally {
          connection.release();
        }
      },
    };
  }
}

/** 64 bits of SHA-256 of the runId, as the signed bigint Postgres expects. */
export function advisoryKey(runId: string): string {
  return createHash('sha256').update(`gnl-run:${runId}`).digest().readBigInt64BE(0).toString();
}

async function describeHolder(db: TransactionalDb | ReturnType<typeof drizzle>, key: string): Promise<string | undefined> {
  const big = BigInt(key);
  const unsigned = big < 0n ? big + (1n << 64n) : big;
  const [row] = await query<{ pid: number; client_addr: string | null; application_name: string }>(
    db,
    sql`select a.pid, a.client_addr::text as client_addr, a.application_name from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.classid = ${(unsigned >> 32n).toString()}::bigint::oid and l.objid = ${(unsigned & 0xffffffffn).toString()}::bigint::oid and l.objsubid = 1
        limit 1`,
  );
  return row ? `held by database session ${row.pid}${row.client_addr ? ` from ${row.client_addr}` : ''}` : undefined;
}
