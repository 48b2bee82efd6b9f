/**
 * The embedded journal's folder is private to the user running GNL: folders 0700, files 0600. Its WAL
 * holds operator password hashes and, without GNL_JOURNAL_KEY, secrets in clear.
 *
 * Why a 0700 folder plus chmod, not a umask. PGlite writes through Node's fs from inside its WASM
 * module (Emscripten's NODEFS): most of a new folder is unpacked from initdb's image and then chmod-ed
 * to the image's modes (0666: measured, the same under umask 022 and 000), so a umask would not even
 * reach those files; and process.umask() is process-wide (every file the app writes meanwhile) and not
 * allowed in worker threads. So: the folder is made 0700 before PGlite opens it (a 0700 folder keeps
 * other users out of everything beneath it, whatever the files' own modes), and the files are chmod-ed
 * after PGlite opens (initdb's image, the startup's files) and after it closes (the shutdown
 * checkpoint). Between those, Postgres creates its files 0600 itself (measured: new relations, new WAL
 * segments), and WAL segments are recycled by rename, keeping the mode they were given.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, type Stats, statSync } from 'node:fs';
import path from 'node:path';
import { GnlError } from '../internal';

/** An entry that other users could read, write or enter, as found. */
export interface LooseEntry {
  path: string;
  kind: 'folder' | 'file';
  /** Permission bits as found (e.g. 0o666). */
  mode: number;
}

/**
 * Before PGlite opens `dataDir`: creates it 0700, or tightens one found looser (a folder from before this
 * rule) with one line on stderr saying what was found. The folder `.gnl` that holds it (the default
 * .gnl/data) is GNL's own and is tightened too; any other parent belongs to the user and is left alone.
 */
export function prepareJournalFolder(dataDir: string, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): LooseEntry[] {
  const parent = path.dirname(dataDir);
  const ours = path.basename(parent) === '.gnl';
  const existed = existsSync(dataDir);
  if (existed) refuseForeignFolder(dataDir);
  makePrivateFolder(dataDir);
  warnOpenParent(dataDir, log);
  const loose = [...(ours ? [tightenEntry(parent)] : []), ...(existed ? tightenTree(dataDir) : [])].filter((entry) => entry !== undefined);
  // A first start says nothing: no journal was there to be exposed (a loose .gnl may be only moments old,
  // made by whatever wrote into it first: the Studio's session secret).
  if (existed && loose.length > 0) {
    log(
      `gnl: the embedded journal at ${dataDir} was open to other users (${describeLoose(loose, [parent, dataDir])}); ` +
        `now ${ours ? `${parent} and ` : ''}its folders are 0700 and its files 0600.`,
    );
  }
  return loose;
}

/**
 * A journal folder another user owns is refused, as Postgres refuses a data directory with the wrong
 * owner: that user can read every password hash and secret in it, or swap its files for a journal of
 * their own. Nothing in it is touched.
 */
export function refuseForeignFolder(dataDir: string): void {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const stats = statSyncOrThrow(dataDir);
  if (uid === undefined || stats.uid === uid) return;
  throw new GnlError(
    `The embedded journal's folder ${dataDir} belongs to another user (uid ${stats.uid}); this process runs as uid ${uid}. ` +
      "Run GNL as the folder's owner, or use a folder of your own (GNL_DATA_DIR).",
  );
}

/**
 * One line when the folder that holds the journal is writable by everyone without the sticky bit (as
 * /tmp has): anyone could rename the journal away and put one of their own in its place. Said at every
 * start, the first too: it is about the place, not about what was found in it.
 */
export function warnOpenParent(dataDir: string, log: (line: string) => void): boolean {
  const parent = path.dirname(dataDir);
  const stats = statOrMissing(parent);
  if (!stats || (stats.mode & 0o002) === 0 || (stats.mode & 0o1000) !== 0) return false;
  log(
    `gnl: ${parent}, the folder that holds the embedded journal, is writable by everyone (mode ${(stats.mode & 0o7777).toString(8).padStart(4, '0')}): ` +
      'anyone could replace the journal. Use a folder of your own (GNL_DATA_DIR) or take the write bit off (chmod o-w).',
  );
  return true;
}

function statSyncOrThrow(entry: string): Stats {
  try {
    return statSync(entry);
  } catch (error) {
    throw new GnlError(`Could not read the owner of ${entry}: ${(error as Error).message}`, { cause: error });
  }
}

/** Creates `dir` and its missing parents as 0700 (exactly: the umask can only take bits away, and then they are put back). */
export function makePrivateFolder(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  for (let made = dir; ; made = path.dirname(made)) {
    chmodPrivate(made, 0o700);
    if (made === first || path.dirname(made) === made) break;
  }
}

/** Takes group and other bits off `root` and everything beneath it (symlinks are not followed); returns what was loose. */
export function tightenTree(root: string): LooseEntry[] {
  const loose: LooseEntry[] = [];
  walk(root, loose);
  return loose;
}

/** Takes group and other bits off `entry` alone; returns it if it was loose. */
export function tightenEntry(entry: string): LooseEntry | undefined {
  const stats = statOrMissing(entry);
  return stats ? tighten(entry, stats) : undefined;
}

/** "data 0755, 26 folders 0755, 968 files 0666": the entries at `named` paths by their names, the rest counted, most common first (then by name). */
export function describeLoose(loose: readonly LooseEntry[], named: readonly string[] = []): string {
  const octal = (mode: number) => mode.toString(8).padStart(4, '0');
  const byName = loose.filter((entry) => named.includes(entry.path)).map((entry) => `${path.basename(entry.path)} ${octal(entry.mode)}`);
  const counts = new Map<string, number>();
  for (const entry of loose) {
    if (named.includes(entry.path)) continue;
    const key = `${entry.kind} ${octal(entry.mode)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const counted = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, count]) => (count === 1 ? `1 ${key}` : `${count} ${key.replace(' ', 's ')}`));
  return [...byName, ...counted].join(', ');
}

function walk(entry: string, loose: LooseEntry[]): void {
  const stats = statOrMissing(entry);
  if (!stats || stats.isSymbolicLink()) return;
  const found = tighten(entry, stats);
  if (found) loose.push(found);
  if (!stats.isDirectory()) return;
  for (const child of readdirOrMissing(entry)) walk(path.join(entry, child), loose);
}

function tighten(entry: string, stats: Stats): LooseEntry | undefined {
  const mode = stats.mode & 0o777;
  if ((mode & 0o077) === 0 || stats.isSymbolicLink()) return undefined;
  chmodPrivate(entry, mode & 0o700);
  return { path: entry, kind: stats.isDirectory() ? 'folder' : 'file', mode };
}

function chmodPrivate(entry: string, mode: number): void {
  try {
    chmodSync(entry, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // removed meanwhile (a temp file): nothing left to protect
    throw new GnlError(
      `Could not make ${entry} private (chmod ${mode.toString(8).padStart(4, '0')}): ${(error as Error).message}. ` +
        'The folder must belong to the user running GNL.',
      { cause: error },
    );
  }
}

// Postgres removes temp files as it goes: an entry gone between readdir and stat has nothing left to protect.
function statOrMissing(entry: string): Stats | undefined {
  try {
    return lstatSync(entry);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new GnlError(`Could not read the mode of ${entry}: ${(error as Error).message}`, { cause: error });
  }
}

function readdirOrMissing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new GnlError(`Could not list ${dir} to make it private: ${(error as Error).message}`, { cause: error });
  }
}
