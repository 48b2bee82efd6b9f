/**
 * The journal on a PostgreSQL server, through postgres.js.
 *
 * Connections, by role (their application_name says which):
 * - `gnl`: the pool; appends, loads, decisions and reads. The hot path is prepared statements
 *   (sql-driver.ts), one round trip each.
 * - `gnl-holds`: this process's side session. It holds a session advisory lock per run executing here;
 *   when the process dies the connection closes and the locks go with it, so an immediate resume
 *   elsewhere is not refused. Taking a run also writes a fresh holder token into its row. Every append
 *   checks inside its statement that the token is still the run's and that this session still holds
 *   the lock (event-rows.ts): a writer whose session died, or whose run was taken over (even by a
 *   session that reuses its pid), cannot add a single event. The live notifications are
 *   sent from this session too, after each append committed (notifications.ts), so they never wait
 *   for, or hold up, the pool.
 * - `gnl-listen`: LISTEN for subscribers, opened on the first subscription (postgres-listener.ts).
 * (Appends do not go through the locking connection itself: postgres.js 3.4.9 crashes the process
 * with a TypeError when a reserved connection is used after the server closed it.)
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { type JournalSecrets, type JournalSecretsOptions, type LiveJournal, RunBusyError } from '../internal';
import { journalSecrets } from './event-rows';
import { migrate } from './migrate';
import { CoalescingNotifier, NOTIFY_CHANNEL } from './notifications';
import { PostgresListener } from './postgres-listener';
import { type SqlDriver, postgresDriver } from './sql-driver';
import { type HoldProvider, SqlJournal } from './sql-journal';
import { query, type TransactionalDb } from './sql-rows';

export interface PostgresStorageOptions {
  /** postgres://user@host:port/database */
  connectionString: string;
  /** Pool size for appends, reads and decisions. Default 10. Holds use one more connection per process, whatever the number of runs. */
  max?: number;
  /** More postgres.js options (ssl, connect_timeout, socket, debug, …) for every connection this storage opens. Pool size and lifetimes stay GNL's. */
  clientOptions?: postgres.Options<Record<string, postgres.PostgresType>>;
  /** Secrets in tool arguments and outputs: the journal key and the redaction list (docs/secrets.md). storageFromEnv sets it from GNL_JOURNAL_KEY. */
  secrets?: JournalSecrets | JournalSecretsOptions;
}

type Role = 'gnl' | 'gnl-holds' | 'gnl-listen';

export class PostgresStorage {
  readonly kind = 'postgres' as const;
  readonly runs: LiveJournal;
  private readonly client: postgres.Sql;
  private readonly holds: AdvisoryLockHolds;
  private readonly journal: SqlJournal;
  private ready: Promise<{ orm: TransactionalDb; sql: SqlDriver }> | undefined;

  constructor(private readonly options: PostgresStorageOptions) {
    if (!options?.connectionString) throw new TypeError('PostgresStorage: connectionString is required.');
    this.client = this.connect('gnl', { max: options.max ?? 10 });
    // Never recycled (postgres.js recycles connections after 30-60 minutes by default): closing the side
    // session would drop every hold of this process.
    const sideSession = () => this.connect('gnl-holds', { max: 1, idle_timeout: 0, max_lifetime: null });
    this.holds = new AdvisoryLockHolds(
      sideSession,
      () => this.migrated(),
      (error) => this.journal.reportLiveError(error),
    );
    this.journal = new SqlJournal({
      database: () => this.migrated(),
      holds: this.holds,
      announcer: { mode: 'after-commit', announce: (runId, lastSeq) => this.holds.notifier.announce(runId, lastSeq) },
      notifications: new PostgresListener((hooks) =>
        this.connect('gnl-listen', { max: 1, idle_timeout: 0, max_lifetime: null, fetch_types: false, ...hooks } as postgres.Options<never>),
      ),
      secrets: journalSecrets(options.secrets),
    });
    this.runs = this.journal;
  }

  /** The migrated database (drizzle); migration runs once per storage object, under a lock across processes. */
  async database(): Promise<TransactionalDb> {
    return (await this.migrated()).orm;
  }

  private migrated(): Promise<{ orm: TransactionalDb; sql: SqlDriver }> {
    this.ready ??= (async () => {
      const orm = drizzle({ client: this.client });
      await migrate(orm);
      return { orm, sql: postgresDriver(this.client) };
    })().catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** Resolves when every live notification announced so far was sent (tests, benchmarks, shutdown). */
  notificationsSent(): Promise<void> {
    return this.holds.notifier.idle();
  }

  async close(): Promise<void> {
    await this.journal.stopLive();
    // Announcements still on their way are sent if the server answers soon; a lost one costs nothing.
    await Promise.race([this.holds.notifier.idle(), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await Promise.all([this.client.end({ timeout: 5 }), this.holds.close()]);
  }

  /** A client for one role; its application_name is the role unless the connection string or clientOptions name one. */
  private connect(role: Role, options: postgres.Options<Record<string, postgres.PostgresType>>): postgres.Sql {
    const extra = this.options.clientOptions ?? {};
    const named = /[?&]application_name=/.test(this.options.connectionString) || extra.connection?.application_name !== undefined;
    return postgres(this.options.connectionString, {
      onnotice: () => {},
      ...extra,
      ...options,
      connection: { ...(named ? {} : { application_name: role }), ...extra.connection },
    });
  }
}

class AdvisoryLockHolds implements HoldProvider {
  private readonly held = new Set<string>();
  private session: postgres.Sql | undefined;
  readonly notifier: CoalescingNotifier;

  constructor(
    private readonly openSession: () => postgres.Sql,
    private readonly pool: () => Promise<{ orm: TransactionalDb }>,
    /** A notification could not be sent (subscribers catch up with the next one). */
    onNotifyError: (error: unknown) => void,
  ) {
    this.notifier = new CoalescingNotifier(async (payloads) => {
      await this.side().unsafe(`select pg_notify('${NOTIFY_CHANNEL}', p) from jsonb_array_elements_text($1::text::jsonb) as p`, [JSON.stringify(payloads)], {
        prepare: true,
      });
    }, onNotifyError);
  }

  private side(): postgres.Sql {
    this.session ??= this.openSession();
    return this.session;
  }

  async acquire(runId: string) {
    const { orm } = await this.pool();
    // Advisory locks are re-entrant within a session, so a second caller in this process is refused here.
    if (this.held.has(runId)) throw new RunBusyError({ runId, holder: `another call in process ${process.pid}` });
    this.held.add(runId);
    try {
      const key = advisoryKey(runId);
      const holder = randomUUID();
      // One statement: the lock, and (only if it was granted) the run's new holder token. Data-modifying
      // CTEs always run; the update matches no row for a run that does not exist yet (create sets it).
      const [row] = await this.side().unsafe<{ locked: boolean; pid: number }[]>(
        `with l as (select pg_try_advisory_lock($1::bigint) as locked),
              u as (update gnl.runs set holder = $3::text from l where l.locked and run_id = $2::text)
         select locked, pg_backend_pid() as pid from l`,
        [key, runId, holder],
        { prepare: true },
      );
      if (!row?.locked) throw new RunBusyError({ runId, holder: await describeHolder(orm, key) });
      return { fence: { holder, lock: { pid: row.pid, ...lockIds(key) } }, release: () => this.release(runId, key) };
    } catch (error) {
      this.held.delete(runId);
      throw error;
    }
  }

  private async release(runId: string, key: string): Promise<void> {
    try {
      // On a side session that was lost and reconnected this unlocks nothing, which is right.
      if (this.session) await this.session`select pg_advisory_unlock(${key}::bigint)`;
    } catch (error) {
      // The session is gone (terminated by a takeover, the server restarted): its locks went with it, so
      // there is nothing left to release. Thrown from runDurable's finally, this error would hide the
      // invocation's own (a HoldLostError, a step-boundary stop) from whoever classifies it.
      if (!sessionLost(error)) throw error;
    } finally {
      this.held.delete(runId);
    }
  }

  async close(): Promise<void> {
    await this.session?.end({ timeout: 5 });
  }
}

/** A connection-level failure (postgres.js errors without a server SQLSTATE, or the server ending the session). */
function sessionLost(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (error instanceof postgres.PostgresError) return code === '57P01' || code === '57P02' || code === '57P03';
  return typeof code === 'string' && /^(CONNECTION_|E[A-Z]+$)/.test(code);
}

/** The two halves of the advisory key, as pg_locks shows them. */
export function lockIds(key: string): { classid: string; objid: string } {
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
