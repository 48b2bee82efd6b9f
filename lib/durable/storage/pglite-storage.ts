/**
 * The embedded journal: PGlite (Postgres in WASM) in a data folder, or in memory without one.
 *
 * One PGlite instance per folder per process (kept on globalThis, so Next.js module reloads and
 * several PGliteStorage objects share it), and one process per folder (folder-lock.ts). Holds are
 * in-process: the folder lock already keeps every other process out.
 *
 * Privacy: the folder is 0700 and its files 0600 from the first start, whatever the umask; one found
 * looser is tightened with a line on stderr (private-folder.ts says why chmod and not a umask).
 *
 * Durability: PGlite does not flush commits to disk. The embedded journal survives a killed process,
 * not a power cut or an OS crash. Use Postgres for that.
 *
 * Live notifications ride inside the append statement: PGlite has one connection, so there are no
 * concurrent commits for a NOTIFY to serialise, and a separate statement would cost a second turn.
 */
import type { MemoryStore } from '../internal';
import { SqlMemoryStore } from './memory-store';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { type JournalSecrets, type JournalSecretsOptions, RunBusyError, type LiveJournal } from '../internal';
import { EMBEDDED_CAPABILITIES, type StorageCapabilities } from './capabilities';
import { journalSecrets } from './event-rows';
import { type FolderLock, lockFolder } from './folder-lock';
import { migrate } from './migrate';
import { prepareJournalFolder, tightenTree } from './private-folder';
import { NOTIFY_CHANNEL, type NotificationSource } from './notifications';
import { pgliteDriver, type SqlDriver } from './sql-driver';
import { PostgresJournal, type RunEraser } from './postgres-journal';
import type { TransactionalDb } from './sql-rows';

/**
 * PGlite's own start parameters, with 16 MB of shared buffers instead of Postgres's 128 MB: one process
 * uses the embedded journal, and the files under it are in the OS cache anyway. A fresh process opens
 * a data folder in less CPU (every CLI call, worker and Studio start opens one; the buffers are zeroed
 * at start): 128 → 32 MB saved about 70 ms a process, 32 → 16 MB about 50 ms more, below 16 MB nothing.
 * `node --liftoff-only bench/pglite-open.mjs` measures it.
 */
const EMBEDDED_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

export interface PGliteStorageOptions {
  /** Folder of the database; created if missing. Default: in memory (gone when the process ends). */
  dataDir?: string;
  /** Secrets in tool arguments and outputs: the journal key and the redaction list (docs/secrets.md). storageFromEnv sets it from GNL_JOURNAL_KEY. */
  secrets?: JournalSecrets | JournalSecretsOptions;
}

interface Instance {
  db: Promise<{ orm: TransactionalDb; sql: SqlDriver }>;
  pglite: Promise<PGlite>;
  lock: FolderLock | undefined;
  held: Set<string>;
  users: number;
}

const registryKey = Symbol.for('gnl.pglite.instances');
const globalScope = globalThis as Record<symbol, Map<string, Instance> | undefined>;
globalScope[registryKey] ??= new Map<string, Instance>();
const registry = globalScope[registryKey];

export const EMBEDDED_DURABILITY_NOTE =
  'Embedded journal (PGlite): survives a killed process, not a power cut — PGlite does not flush its commits to disk. Use Postgres (DATABASE_URL) for production.';

export class PGliteStorage {
  /** For display and logs; code that depends on what the storage can do reads `capabilities`. */
  readonly kind = 'pglite' as const;
  readonly capabilities: StorageCapabilities = EMBEDDED_CAPABILITIES;
  readonly dataDir: string | undefined;
  readonly runs: LiveJournal;
  /** Secrets are sealed with a journal key (GNL_JOURNAL_KEY): a revealed export requires one (docs/operations.md). */
  readonly encryptsSecrets: boolean;
  /** The journal key and redaction list; settings kept beside the journal (webhooks) are sealed with it too. */
  readonly secrets: JournalSecrets;
  /** Erasing runs whose data is sealed with a key of their own, and the erasure log (docs/erasure.md). */
  readonly erasure: RunEraser;
  /** What agents remember across runs, on this same database (docs/memory.md). */
  readonly memory: MemoryStore;
  private readonly journal: PostgresJournal;
  private instance: Instance | undefined;
  private closed = false;

  constructor(options: PGliteStorageOptions = {}) {
    this.secrets = journalSecrets(options.secrets);
    this.dataDir = options.dataDir ? path.resolve(/*turbopackIgnore: true*/ options.dataDir) : undefined;
    this.journal = new PostgresJournal({
      database: () => this.open().db,
      holds: {
        acquire: async (runId) => {
          const instance = this.open();
          await instance.db;
          if (instance.held.has(runId)) throw new RunBusyError({ runId, holder: `another call in process ${process.pid}`, holderPid: process.pid });
          instance.held.add(runId);
          return { release: async () => void instance.held.delete(runId) };
        },
      },
      announcer: { mode: 'in-statement' },
      notifications: pgliteListener(() => this.pglite()),
      secrets: this.secrets,
    });
    this.runs = this.journal;
    this.erasure = this.journal;
    this.memory = new SqlMemoryStore(() => this.database());
    this.encryptsSecrets = this.secrets.encrypts;
  }

  /** The migrated database (opening the folder, under its lock, on first use). */
  async database(): Promise<TransactionalDb> {
    return (await this.open().db).orm;
  }

  /** As PostgresStorage.readReplica: an embedded journal has no replica, so `read` runs on its database. */
  async readReplica<T>(read: (db: TransactionalDb) => Promise<T>): Promise<T> {
    return read(await this.database());
  }

  /** The PGlite instance, for tools and tests that need the driver itself. */
  pglite(): Promise<PGlite> {
    return this.open().pglite;
  }

  private open(): Instance {
    if (this.closed) throw new Error('PGliteStorage is closed.');
    if (this.instance) return this.instance;
    const shared = this.dataDir ? registry.get(this.dataDir) : undefined;
    if (shared) {
      shared.users += 1;
      this.instance = shared;
      return shared;
    }
    const dataDir = this.dataDir;
    const lock = dataDir ? lockFolder(dataDir) : undefined;
    try {
      if (dataDir) prepareJournalFolder(dataDir);
    } catch (error) {
      lock?.release();
      throw error;
    }
    const pglite = PGlite.create({ ...(dataDir ? { dataDir } : {}), startParams: EMBEDDED_START_PARAMS });
    const db = pglite.then(async (client) => {
      const orm = drizzle({ client }) as unknown as TransactionalDb;
      await migrate(orm);
      // What initdb's image and the startup wrote (0666, 0644): silent, the folder was already 0700.
      if (dataDir) tightenTree(dataDir);
      return { orm, sql: pgliteDriver(client) };
    });
    const instance: Instance = { db, pglite, lock, held: new Set(), users: 1 };
    db.catch(() => this.forget(instance));
    if (this.dataDir) registry.set(this.dataDir, instance);
    this.instance = instance;
    return instance;
  }

  private forget(instance: Instance) {
    if (this.dataDir && registry.get(this.dataDir) === instance) registry.delete(this.dataDir);
    instance.lock?.release();
  }

  /** Closes PGlite when the last user in this process closes, and gives the folder back. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal.stopLive();
    const instance = this.instance;
    if (!instance) return;
    instance.users -= 1;
    if (instance.users > 0) return;
    if (this.dataDir && registry.get(this.dataDir) === instance) registry.delete(this.dataDir);
    try {
      await (await instance.pglite).close();
      if (this.dataDir) tightenTree(this.dataDir); // what the shutdown checkpoint wrote
    } finally {
      instance.lock?.release();
    }
  }
}

/** LISTEN on the PGlite instance: one connection that cannot be lost, so it never reconnects. */
function pgliteListener(pglite: () => Promise<PGlite>): NotificationSource {
  let unlisten: (() => Promise<void>) | undefined;
  return {
    async start(handlers) {
      unlisten = await (await pglite()).listen(NOTIFY_CHANNEL, handlers.onNotify);
      handlers.onListening(false);
    },
    async stop() {
      await unlisten?.().catch(() => undefined); // the instance may be closing already
    },
  };
}
