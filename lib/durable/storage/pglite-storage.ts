/**
 * The embedded journal: PGlite (Postgres in WASM) in a data folder, or in memory without one.
 *
 * One PGlite instance per folder per process (kept on globalThis, so Next.js module reloads and
 * several PGliteStorage objects share it), and one process per folder (folder-lock.ts). Holds are
 * in-process: the folder lock already keeps every other process out.
 *
 * Durability: PGlite does not flush commits to disk. The embedded journal survives a killed process,
 * not a power cut or an OS crash. Use Postgres for that.
 */
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { RunBusyError, type Journal } from '../internal';
import { type FolderLock, lockFolder } from './folder-lock';
import { migrate } from './migrate';
import { SqlJournal } from './sql-journal';
import type { TransactionalDb } from './sql-rows';

export interface PGliteStorageOptions {
  /** Folder of the database; created if missing. Default: in memory (gone when the process ends). */
  dataDir?: string;
}

interface Instance {
  db: Promise<TransactionalDb>;
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
  readonly kind = 'pglite' as const;
  readonly dataDir: string | undefined;
  readonly runs: Journal;
  private instance: Instance | undefined;
  private closed = false;

  constructor(options: PGliteStorageOptions = {}) {
    this.dataDir = options.dataDir ? path.resolve(/*turbopackIgnore: true*/ options.dataDir) : undefined;
    this.runs = new SqlJournal(() => this.open().db, {
      acquire: async (runId) => {
        const instance = this.open();
        const db = await instance.db;
        if (instance.held.has(runId)) throw new RunBusyError({ runId, holder: `another call in process ${process.pid}` });
        instance.held.add(runId);
        return { db, release: async () => void instance.held.delete(runId) };
      },
    });
  }

  /** The migrated database (opening the folder, under its lock, on first use). */
  database(): Promise<TransactionalDb> {
    return this.open().db;
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
    const lock = this.dataDir ? lockFolder(this.dataDir) : undefined;
    const pglite = PGlite.create(this.dataDir ? { dataDir: this.dataDir } : {});
    const db = pglite.then(async (client) => {
      const database = drizzle({ client });
      await migrate(database);
      return database as unknown as TransactionalDb;
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
    const instance = this.instance;
    if (!instance) return;
    instance.users -= 1;
    if (instance.users > 0) return;
    if (this.dataDir && registry.get(this.dataDir) === instance) registry.delete(this.dataDir);
    try {
      await (await instance.pglite).close();
    } finally {
      instance.lock?.release();
    }
  }
}
