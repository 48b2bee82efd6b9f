/**
 * One process per embedded journal folder. Two processes on one PGlite folder silently lose
 * acknowledged rows, so PGliteStorage takes this lock before PGlite opens the folder.
 *
 * The lock is one the kernel holds for an open file: `<dataDir>.lock.db`, an empty SQLite database
 * held in an exclusive transaction (node:sqlite: a POSIX record lock on Unix, LockFileEx on Windows;
 * Node has no flock of its own). The kernel releases it when the holder closes it or dies in any way,
 * SIGKILL included, and it sees a holder in another PID namespace (two containers of one pod sharing
 * a volume): a process id is never asked whether it is alive, since in another namespace it names
 * another process or none. A second opener, in this process or another, gets DataDirLockedError at once.
 * Rejected: a native flock addon (it must be compiled, or ship binaries, for every Node ABI, and the
 * installable package would carry it), a flock(1) child per holder (util-linux only: not on macOS,
 * nor in a distroless image; one more process to outlive its parent).
 *
 * Who holds it is only a hint for the message: `<dataDir>.lock` (JSON: pid, host, PID namespace,
 * since), written by the holder after it has the lock. The lock file itself is never removed: a
 * process that removed and recreated it could hold a lock on a file nobody else opens.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, readlinkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { GnlError } from '../internal';
import { makePrivateFolder } from './private-folder';

/** Who holds a folder, as the holder wrote it: a hint for people, never used to decide. */
export interface LockOwner {
  /** In the holder's PID namespace: in another one it may name another process, or none. */
  pid: number;
  host: string;
  /** The holder's PID namespace (`pid:[4026531836]` from /proc/self/ns/pid), or null where /proc is absent. */
  pidNamespace: string | null;
  since: string;
}

export class DataDirLockedError extends GnlError {
  override name = 'DataDirLockedError';
  readonly dataDir: string;
  /** The holder as it recorded itself; undefined when it has not written it yet (or an older GNL holds it). */
  readonly holder: LockOwner | undefined;
  /** Whether the holder's pid names a process this one can see (same host, same PID namespace). */
  readonly holderVisible: boolean;
  constructor(dataDir: string, holder: LockOwner | undefined, options?: { cause?: unknown }) {
    super(
      `The embedded journal at ${dataDir} is in use by ${describeHolder(holder)}. ` +
        'PGlite serves one process: stop that process, or use Postgres (DATABASE_URL) to share a journal.',
      options,
    );
    this.dataDir = dataDir;
    this.holder = holder;
    this.holderVisible = holder !== undefined && holder.host === hostname() && !isOtherPidNamespace(holder);
  }
  static override isInstance = (error: unknown): error is DataDirLockedError => GnlError.isInstance(error) && error.name === 'DataDirLockedError';
}

/** "process 42 on host (since …)", "… in another PID namespace", or "another process" when unknown. */
function describeHolder(holder: LockOwner | undefined): string {
  if (!holder) return 'another process';
  const elsewhere = holder.host === hostname() && isOtherPidNamespace(holder) ? ' in another PID namespace' : '';
  return `process ${holder.pid} on ${holder.host}${elsewhere} (since ${holder.since})`;
}

/** Whether the holder's pid is not one this process can look up (another PID namespace); false when unknown. */
function isOtherPidNamespace(holder: LockOwner): boolean {
  const mine = pidNamespace();
  return holder.pidNamespace !== null && mine !== null && holder.pidNamespace !== mine;
}

export interface FolderLock {
  readonly path: string;
  release(): void;
}

export function lockFolder(dataDir: string): FolderLock {
  const base = path.resolve(/*turbopackIgnore: true*/ dataDir);
  const lockPath = `${base}.lock.db`;
  const ownerPath = `${base}.lock`;
  makePrivateFolder(path.dirname(base)); // only the folders it creates: an existing parent is the user's
  const { DatabaseSync } = nodeSqlite();
  let db: SqliteDatabase;
  try {
    db = new DatabaseSync(lockPath, { timeout: 0 });
  } catch (error) {
    throw new GnlError(`Could not open the lock file ${lockPath}.`, { cause: error });
  }
  try {
    chmodSync(lockPath, 0o600); // SQLite creates it 0644 less the umask
    // EXCLUSIVE locking mode: the lock is kept until the connection closes, whatever happens in it.
    db.exec('PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE'); // MEMORY: no journal file beside it
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new DataDirLockedError(base, readOwner(ownerPath), { cause: error });
    throw new GnlError(`Could not take the lock ${lockPath}.`, { cause: error });
  }
  const me: LockOwner = { pid: process.pid, host: hostname(), pidNamespace: pidNamespace(), since: new Date().toISOString() };
  try {
    writeOwner(ownerPath, me);
  } catch (error) {
    db.close();
    throw error;
  }
  let released = false;
  return {
    path: lockPath,
    release: () => {
      if (released) return;
      released = true;
      try {
        if (sameOwner(readOwner(ownerPath), me)) unlinkSync(ownerPath);
      } finally {
        db.close(); // the kernel lets the folder go
      }
    },
  };
}

interface SqliteDatabase {
  exec(sql: string): void;
  close(): void;
}

interface NodeSqlite {
  DatabaseSync: new (file: string, options?: { timeout?: number }) => SqliteDatabase;
}

/**
 * node:sqlite, loaded when a folder is first locked (a server-only journal never needs it). Node 22
 * announces it with an ExperimentalWarning on stderr: that one warning is kept out of the CLI's output.
 */
function nodeSqlite(): NodeSqlite {
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    if (/SQLite is an experimental feature/.test(typeof warning === 'string' ? warning : warning.message)) return;
    return (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  let sqlite: NodeSqlite | undefined;
  try {
    sqlite = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
  } finally {
    process.emitWarning = emit;
  }
  if (!sqlite?.DatabaseSync) {
    throw new GnlError(
      `The embedded journal's folder lock needs node:sqlite (Node 22.13 or later, or 22.5 with --experimental-sqlite); this is Node ${process.version}. Use a newer Node, or Postgres (DATABASE_URL).`,
    );
  }
  return sqlite;
}

/** SQLITE_BUSY (5) or SQLITE_LOCKED (6): another connection, in any process, holds the lock. */
function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: number } | null)?.errcode;
  return code === 5 || code === 6;
}

function writeOwner(file: string, owner: LockOwner): void {
  // Whole or not at all: a reader never sees half a hint.
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, JSON.stringify(owner), { mode: 0o600 }); // the umask can only take bits away
  renameSync(temp, file);
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const owner = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return undefined;
    return { pid: owner.pid, host: owner.host, pidNamespace: owner.pidNamespace ?? null, since: owner.since ?? 'unknown' };
  } catch {
    return undefined; // absent, torn or foreign: the message says "another process"
  }
}

function sameOwner(a: LockOwner | undefined, b: LockOwner): boolean {
  return a !== undefined && a.pid === b.pid && a.host === b.host && a.pidNamespace === b.pidNamespace && a.since === b.since;
}

function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}
