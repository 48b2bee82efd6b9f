/**
 * One process per embedded journal folder. Two processes on one PGlite folder silently lose
 * acknowledged rows, so PGliteStorage takes this lock before PGlite opens the folder.
 *
 * The lock is a file beside the folder (`<dataDir>.lock`) created atomically (link, which fails if it
 * exists) and holding the owner's pid, host and process start time. A second live process gets
 * DataDirLockedError at once, naming the holder. A lock whose holder is dead (by pid and process start
 * time, never by the file's age) is taken over at once. Holders on another host cannot be checked and
 * count as alive. Known limit: two processes taking over the same stale lock at the same instant are
 * resolved by the atomic link, but the loser may briefly see the winner's lock as stale; it re-reads
 * the moved file and puts it back if it was not the stale one.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { GnlError } from '../internal';
import { makePrivateFolder } from './private-folder';

export interface LockOwner {
  pid: number;
  host: string;
  /** Process start time from /proc (clock ticks since boot), to tell a reused pid from the holder. */
  processStart: string | null;
  since: string;
}

export class DataDirLockedError extends GnlError {
  override name = 'DataDirLockedError';
  readonly dataDir: string;
  readonly holder: LockOwner;
  constructor(dataDir: string, holder: LockOwner) {
    super(
      `The embedded journal at ${dataDir} is in use by process ${holder.pid} on ${holder.host} (since ${holder.since}). ` +
        'PGlite serves one process: stop that process, or use Postgres (DATABASE_URL) to share a journal.',
    );
    this.dataDir = dataDir;
    this.holder = holder;
  }
  static override isInstance = (error: unknown): error is DataDirLockedError => GnlError.isInstance(error) && error.name === 'DataDirLockedError';
}

export interface FolderLock {
  readonly path: string;
  release(): void;
}

export function lockFolder(dataDir: string): FolderLock {
  const lockPath = `${path.resolve(/*turbopackIgnore: true*/ dataDir)}.lock`;
  makePrivateFolder(path.dirname(lockPath)); // only the folders it creates: an existing parent is the user's
  const me: LockOwner = { pid: process.pid, host: hostname(), processStart: processStart(process.pid), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 10; attempt++) {
    if (tryCreate(lockPath, me)) return { path: lockPath, release: () => releaseLock(lockPath, me) };
    const holder = readOwner(lockPath);
    if (!holder) continue; // removed meanwhile: try again
    if (isAlive(holder)) throw new DataDirLockedError(path.resolve(dataDir), holder);
    takeOver(lockPath, holder);
  }
  throw new GnlError(`Could not take the lock ${lockPath}: it kept changing hands.`);
}

function tryCreate(lockPath: string, me: LockOwner): boolean {
  const temp = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, JSON.stringify(me), { mode: 0o600 }); // the umask can only take bits away
  try {
    linkSync(temp, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
}

function takeOver(lockPath: string, stale: LockOwner): void {
  const moved = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    renameSync(lockPath, moved);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const what = readOwner(moved);
  if (what && !sameOwner(what, stale)) {
    // Another process took the stale lock between our read and our rename: give it back.
    try {
      linkSync(moved, lockPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  unlinkSync(moved);
}

function releaseLock(lockPath: string, me: LockOwner): void {
  const owner = readOwner(lockPath);
  if (owner && sameOwner(owner, me)) unlinkSync(lockPath);
}

function readOwner(file: string): LockOwner | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockOwner;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    // A torn or foreign file: treat it as a dead holder's, so it is taken over rather than blocking forever.
    return { pid: -1, host: hostname(), processStart: null, since: 'unknown' };
  }
}

function sameOwner(a: LockOwner, b: LockOwner): boolean {
  return a.pid === b.pid && a.host === b.host && a.processStart === b.processStart && a.since === b.since;
}

function isAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  if (owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const start = processStart(owner.pid);
  return owner.processStart === null || start === null || start === owner.processStart;
}

/** Field 22 of /proc/<pid>/stat (start time), or null where /proc is absent. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
