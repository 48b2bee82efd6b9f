/**
 * The journal on a PostgreSQL server, through postgres.js.
 *
 * Connections, by role (their application_name says which):
 * - `gnl`: the pool; appends, loads, decisions and reads. The hot path is prepared statements
 *   (sql-driver.ts), one round trip each.
 * - `gnl-holds`: this process's side session. It holds a session advisory lock per run executing here;
 *   when the process dies the connection closes and the locks go with it, so an immediate resume
 *   elsewhere is not refused. Taking a run also writes a fresh holder token into its row. Every append
 *   checks inside its statement that the token is still the run's and that the lock is still held
 *   (event-rows.ts, run-locks.ts): a writer whose session died, or whose run was taken over (even by a
 *   session that reuses its pid), cannot add a single event. The live notifications are
 *   sent from this session too, after each append committed (notifications.ts), so they never wait
 *   for, or hold up, the pool. The session must outlive any tool or model call: it is exempt from
 *   idle_session_timeout and kept busy by a keep-alive while a run is held (advisory-holds.ts,
 *   docs/postgres-holds.md).
 * - `gnl-listen`: LISTEN for subscribers, opened on the first subscription (postgres-listener.ts).
 * (Appends do not go through the locking connection itself: postgres.js 3.4.9 crashes the process
 * with a TypeError when a reserved connection is used after the server closed it.)
 */
import type { MemoryStore } from '../internal';
import { SqlMemoryStore } from './memory-store';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { GnlError, type HoldSessionError, type JournalSecrets, type JournalSecretsOptions, type LiveJournal } from '../internal';
import { AdvisoryLockHolds } from './advisory-holds';
import { SERVER_CAPABILITIES, type StorageCapabilities } from './capabilities';
import { journalSecrets } from './event-rows';
import { migrate } from './migrate';
import { PostgresListener } from './postgres-listener';
import { ReadReplica } from './read-replica';
import { reconnectBackoff } from './reconnect-backoff';
import { DEFAULT_KEEP_ALIVE_MS, DEFAULT_TCP_KEEP_ALIVE_S, DURABLE_COMMIT_LEVELS, DURABLE_SESSION_OPTIONS } from './session-settings';
import { type SqlDriver, postgresDriver } from './sql-driver';
import { PostgresJournal, type RunEraser } from './postgres-journal';
import type { TransactionalDb } from './sql-rows';

export { advisoryKey, lockIds } from './run-locks';

export interface PostgresStorageOptions {
  /** postgres://user@host:port/database */
  connectionString: string;
  /** Pool size for appends, reads and decisions. Default 10. Holds use one more connection per process, whatever the number of runs. */
  max?: number;
  /**
   * More postgres.js options (ssl, connect_timeout, socket, debug, …) for every connection this storage opens. Pool size and lifetimes stay GNL's.
   * `backoff` defaults to reconnectBackoff (reconnect-backoff.ts: at most 1 s between attempts, not postgres.js's 20 s).
   */
  clientOptions?: postgres.Options<Record<string, postgres.PostgresType>>;
  /** Secrets in tool arguments and outputs: the journal key and the redaction list (docs/secrets.md). storageFromEnv sets it from GNL_JOURNAL_KEY. */
  secrets?: JournalSecrets | JournalSecretsOptions;
  /**
   * Interval (ms) of a keep-alive statement on the two sessions that are idle by design: the hold session
   * while this process holds at least one run, and the listener while anything subscribes. Keep it below
   * the idle timeout of any proxy, NAT or load balancer between GNL and Postgres (docs/postgres-holds.md).
   * Default 30 000.
   */
  keepAliveMs?: number;
  /**
   * Told when the keep-alive finds the hold session lost while runs were held (HoldSessionError, reason
   * 'session-lost', with the runIds): those runs append nothing more from here. Live subscribers' onError
   * hear it too. Default: a console warning.
   */
  onHoldsLost?: (error: HoldSessionError) => void;
  /**
   * A streaming replica of this database for reads that may lag a moment (the Studio's runs list and
   * overview: read-replica.ts); GNL_READ_DATABASE_URL. Unset: those read the primary.
   */
  readConnectionString?: string;
}

type Role = 'gnl' | 'gnl-holds' | 'gnl-listen';

export class PostgresStorage {
  /** For display and logs; code that depends on what the storage can do reads `capabilities`. */
  readonly kind = 'postgres' as const;
  readonly capabilities: StorageCapabilities = SERVER_CAPABILITIES;
  readonly runs: LiveJournal;
  /** Secrets are sealed with a journal key (GNL_JOURNAL_KEY): a revealed export requires one (docs/operations.md). */
  readonly encryptsSecrets: boolean;
  /** The journal key and redaction list; settings kept beside the journal (webhooks) are sealed with it too. */
  readonly secrets: JournalSecrets;
  /** Erasing runs whose data is sealed with a key of their own, and the erasure log (docs/erasure.md). */
  readonly erasure: RunEraser;
  /** What agents remember across runs, on this same database (docs/memory.md). */
  readonly memory: MemoryStore;
  private client: postgres.Sql;
  private readonly replica: ReadReplica | undefined;
  private readonly holds: AdvisoryLockHolds;
  private readonly journal: PostgresJournal;
  private ready: Promise<{ orm: TransactionalDb; sql: SqlDriver }> | undefined;
  /** False once the pool's first session was refused its startup options (a pooler): the pool opens plain sessions. */
  private poolTakesOptions = true;

  constructor(private readonly options: PostgresStorageOptions) {
    if (!options?.connectionString) throw new TypeError('PostgresStorage: connectionString is required.');
    this.secrets = journalSecrets(options.secrets);
    this.client = this.connectPool({ max: options.max ?? 10 });
    this.replica = options.readConnectionString ? new ReadReplica(options.readConnectionString) : undefined;
    // TCP keepalive on both idle-by-design sessions even if clientOptions turned it off for the pool.
    const keep_alive = options.clientOptions?.keep_alive || DEFAULT_TCP_KEEP_ALIVE_S;
    const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
    if (!(keepAliveMs > 0)) throw new TypeError(`PostgresStorage: keepAliveMs must be a positive number of milliseconds (got ${options.keepAliveMs}).`);
    const onHoldsLost = options.onHoldsLost ?? ((error: HoldSessionError) => console.warn(`[gnl] ${error.message}`));
    this.holds = new AdvisoryLockHolds({
      // Never recycled (postgres.js recycles connections after 30-60 minutes by default): closing the side
      // session would drop every hold of this process.
      openSession: () => this.connect('gnl-holds', { max: 1, idle_timeout: 0, max_lifetime: null, keep_alive }),
      pool: () => this.migrated(),
      keepAliveMs,
      onNotifyError: (error) => this.journal.reportLiveError(error),
      onHoldsLost: (error) => {
        this.journal.reportLiveError(error);
        onHoldsLost(error);
      },
    });
    this.journal = new PostgresJournal({
      database: () => this.migrated(),
      holds: this.holds,
      announcer: {
        mode: 'after-commit',
        announce: (runId, lastSeq) => this.holds.notifier.announce(runId, lastSeq),
        announceStream: (runId, batchId) => this.holds.notifier.announceStream(runId, batchId),
      },
      notifications: new PostgresListener(
        (hooks) =>
          this.connect('gnl-listen', { max: 1, idle_timeout: 0, max_lifetime: null, keep_alive, fetch_types: false, ...hooks } as postgres.Options<never>),
        keepAliveMs,
      ),
      secrets: this.secrets,
    });
    this.runs = this.journal;
    this.erasure = this.journal;
    this.memory = new SqlMemoryStore(() => this.database());
    this.encryptsSecrets = this.secrets.encrypts;
  }

  /** The migrated database (drizzle); migration runs once per storage object, under a lock across processes. */
  async database(): Promise<TransactionalDb> {
    return (await this.migrated()).orm;
  }

  /**
   * `read` on the read replica when one is set (readConnectionString), else (or when it fails) on this
   * database: for reads that may lag a moment, never for what a decision depends on.
   */
  async readReplica<T>(read: (db: TransactionalDb) => Promise<T>): Promise<T> {
    const primary = await this.database(); // migrated first: the replica has what the primary has
    return this.replica ? this.replica.read(async () => primary, read) : read(primary);
  }

  /** Reads the replica answered, and those it sent to the primary (undefined: no replica). */
  get replicaCounts(): { replica: number; primary: number } | undefined {
    return this.replica ? { ...this.replica.counts } : undefined;
  }

  private migrated(): Promise<{ orm: TransactionalDb; sql: SqlDriver }> {
    this.ready ??= (async () => {
      const settings = await this.firstStatement();
      await this.closeIdleBeforeTheServer(settings.idleSessionTimeoutMs);
      const orm = drizzle({ client: this.client });
      await migrate(orm);
      return { orm, sql: postgresDriver(this.client) };
    })().catch((error) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /**
   * The pool's first statement, on sessions opened with DURABLE_SESSION_OPTIONS (session-settings.ts).
   * A pooler that refuses startup options (pgbouncer without `options` in ignore_startup_parameters)
   * gets sessions without them, and then the journal runs only if what its sessions get is durable:
   * under `synchronous_commit = off` it refuses to start rather than acknowledge appends a crash can lose.
   */
  private async firstStatement(): Promise<SessionSettings> {
    let settings: SessionSettings;
    try {
      settings = await readSessionSettings(this.client);
    } catch (error) {
      if (!refusedStartupParameter(error)) throw error;
      await this.client.end({ timeout: 1 });
      this.poolTakesOptions = false;
      this.client = this.connectPool({ max: this.options.max ?? 10 });
      settings = await readSessionSettings(this.client);
    }
    if (!DURABLE_COMMIT_LEVELS.includes(settings.synchronousCommit)) {
      throw new GnlError(
        `The journal's sessions run with synchronous_commit = ${settings.synchronousCommit}, and their startup options (-c synchronous_commit=on) did not reach the server: ` +
          'an acknowledged append could be lost in a server crash. Set it for the role (ALTER ROLE … SET synchronous_commit = on), or let the pooler pass the options startup parameter (docs/operations.md).',
      );
    }
    if (settings.readOnly) {
      throw new GnlError(
        "The journal's connection reached a server that takes no writes (a standby, or a node a failover is still promoting). " +
          "With several hosts in DATABASE_URL, add target_session_attrs=primary (postgres.js's read-write does not skip a hot standby); " +
          'with one, point it at the primary (docs/operations.md#failover).',
      );
    }
    return settings;
  }

  /**
   * A server (or role, or database) `idle_session_timeout` ends pool connections that sit idle, and a
   * statement sent on one in the instant the server ends it fails (CONNECTION_CLOSED) instead of running.
   * A busy process fires its own idle timer late; the server never does. So, read once before the first
   * statement of this storage: the pool closes its idle connections itself, at a quarter of the server's
   * timeout (or the caller's smaller `clientOptions.idle_timeout`), honouring what the setting is for, and
   * its sessions ask the server not to end them (`-c idle_session_timeout=0` in the startup options) so a
   * late timer never meets a closed connection. A pooler that refuses the parameter (pgbouncer without
   * it in ignore_startup_parameters) gets the client-side timeout alone. The hold session and the
   * listener exempt themselves in their own statements (session-settings.ts).
   */
  private async closeIdleBeforeTheServer(timeoutMs: number): Promise<void> {
    if (timeoutMs <= 0) return;
    const ownS = this.options.clientOptions?.idle_timeout;
    const idle_timeout = Math.min(timeoutMs / 4000, ownS && ownS > 0 ? ownS : Number.POSITIVE_INFINITY);
    const max = this.options.max ?? 10;
    const old = this.client;
    if (!this.poolTakesOptions) {
      this.client = this.connectPool({ max, idle_timeout });
      await old.end({ timeout: 5 });
      return;
    }
    // `options -c`, not a plain startup parameter: a plain one loses to a role's ALTER ROLE … SET (tested).
    const exempt = this.connectPool({ max, idle_timeout }, '-c idle_session_timeout=0');
    try {
      await exempt`select 1`;
      this.client = exempt;
    } catch (error) {
      await exempt.end({ timeout: 1 });
      // Only a refused startup parameter (a pooler that does not pass it on) means the client-side
      // timeout alone; anything else is the caller's to see.
      if (!refusedStartupParameter(error)) throw new GnlError('The journal could not open a session exempt from idle_session_timeout.', { cause: error });
      this.client = this.connectPool({ max, idle_timeout });
    }
    await old.end({ timeout: 5 });
  }

  /** Resolves when every live notification announced so far was sent (tests, benchmarks, shutdown). */
  notificationsSent(): Promise<void> {
    return this.holds.notifier.idle();
  }

  async close(): Promise<void> {
    await this.journal.stopLive();
    // Announcements still on their way are sent if the server answers soon; a lost one costs nothing.
    await Promise.race([this.holds.notifier.idle(), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    await Promise.all([this.client.end({ timeout: 5 }), this.holds.close(), this.replica?.close()]);
  }

  /** The pool (`gnl`): its sessions get DURABLE_SESSION_OPTIONS, then the caller's and `more`, in their startup options. */
  private connectPool(options: postgres.Options<Record<string, postgres.PostgresType>>, more?: string): postgres.Sql {
    if (!this.poolTakesOptions) return this.connect('gnl', options);
    const own = this.options.clientOptions?.connection?.options;
    const startup = [DURABLE_SESSION_OPTIONS, typeof own === 'string' && own ? own : undefined, more].filter(Boolean).join(' ');
    return this.connect('gnl', { ...options, connection: { options: startup } });
  }

  /** A client for one role; its application_name is the role unless the connection string or clientOptions name one. */
  private connect(role: Role, options: postgres.Options<Record<string, postgres.PostgresType>>): postgres.Sql {
    const extra = this.options.clientOptions ?? {};
    const named = /[?&]application_name=/.test(this.options.connectionString) || extra.connection?.application_name !== undefined;
    return postgres(this.options.connectionString, {
      onnotice: () => {},
      backoff: reconnectBackoff,
      ...extra,
      ...options,
      connection: { ...(named ? {} : { application_name: role }), ...extra.connection, ...options.connection },
    });
  }
}

/**
 * Whether opening a session with `-c idle_session_timeout=0` was refused by what answered (a server or
 * pooler error: pgbouncer's "unsupported startup parameter"), not lost on the way (a connection error).
 */
function refusedStartupParameter(error: unknown): boolean {
  return error instanceof postgres.PostgresError;
}

/** How many times the first statement is sent again when the server ended its session first. */
const FIRST_STATEMENT_ATTEMPTS = 3;

interface SessionSettings {
  /** The idle_session_timeout that applies to this client's sessions, in ms (0: none, or a server before 14 that has none). */
  idleSessionTimeoutMs: number;
  /** current_setting('synchronous_commit') on a pool session. */
  synchronousCommit: string;
  /** The session takes no writes: a hot standby, or default_transaction_read_only on. */
  readOnly: boolean;
}

/**
 * What the pool's sessions get from the server. This is the one statement sent on a session not yet
 * exempt from idle_session_timeout, so on a loaded machine it can go out on a session the server just
 * ended (CONNECTION_CLOSED): it only reads, so it is sent again, on a new session.
 */
async function readSessionSettings(client: postgres.Sql): Promise<SessionSettings> {
  type Row = { setting: string | null; unit: string | null; synchronous_commit: string; read_only: boolean };
  let row: Row | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      [row] = await client<Row[]>`select s.setting, s.unit, current_setting('synchronous_commit') as synchronous_commit,
          pg_is_in_recovery() or current_setting('transaction_read_only') = 'on' as read_only
        from (select 1) one left join pg_settings s on s.name = 'idle_session_timeout'`;
      break;
    } catch (error) {
      if (attempt >= FIRST_STATEMENT_ATTEMPTS || (error as { code?: string })?.code !== 'CONNECTION_CLOSED') throw error;
    }
  }
  const value = Number(row?.setting);
  const perUnit: Record<string, number> = { ms: 1, s: 1000, min: 60_000 };
  const idleSessionTimeoutMs = Number.isFinite(value) && value > 0 ? value * (perUnit[row?.unit ?? 'ms'] ?? 1) : 0;
  return { idleSessionTimeoutMs, synchronousCommit: row?.synchronous_commit ?? 'unknown', readOnly: row?.read_only === true };
}
