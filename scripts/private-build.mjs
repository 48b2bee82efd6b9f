/**
 * The Studio's build holds keys: .next/server/server-reference-manifest.json (the key server actions'
 * arguments are encrypted with), .next/server/preview-props.json and .next/prerender-manifest.json (the
 * preview-mode keys). `next build` writes them under the umask (0644, 0666 under umask 000). After a
 * build and at each Studio start (scripts/studio.mjs; `npm run build` too) this makes them the user's:
 *   - .next/server and .next/cache, recursively: folders 0700, files 0600. The folder is the boundary:
 *     what the server writes there later (a revalidated page) is out of other users' reach whatever its
 *     own mode;
 *   - .next/prerender-manifest.json: 0600;
 *   - .next and everything else in it: nothing writable by group or other (static chunks run in the
 *     operators' browsers), still readable (a proxy in front may serve .next/static itself).
 * Symlinks are not followed. A chmod that fails stops the start, naming the file.
 * Plain Node on purpose, like studio.mjs: it runs before any dependency is installed. The data folder's
 * counterpart is lib/durable/storage/private-folder.ts (TypeScript, shipped in the package).
 *
 * Usage: node scripts/private-build.mjs [.next folder] (default: this checkout's .next).
 */
import { chmodSync, existsSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Beneath these, nothing for group or other. */
const PRIVATE_TREES = ['server', 'cache'];
/** Files at the top that hold keys. */
const PRIVATE_FILES = ['prerender-manifest.json', 'prerender-manifest.js'];
/** Checked again after tightening: if any is still open to others, the start stops. */
const KEY_FILES = ['server/server-reference-manifest.json', 'server/preview-props.json', 'prerender-manifest.json'];

/**
 * Tightens the build in `nextDir`; returns the entries that were loose ({ path, kind, mode, now }).
 * `log` gets one line when something was loose (omit it right after a build: its modes are the umask's, not news).
 * @param {string} nextDir
 * @param {{ log?: (line: string) => void }} [options]
 */
export function privateBuild(nextDir, { log } = {}) {
  const loose = [];
  if (!existsSync(nextDir)) return loose;
  tighten(nextDir, 0o022, loose);
  for (const entry of readdirSync(nextDir)) {
    const full = path.join(nextDir, entry);
    if (PRIVATE_TREES.includes(entry)) walk(full, 0o077, loose);
    else if (PRIVATE_FILES.includes(entry)) tighten(full, 0o077, loose);
    else walk(full, 0o022, loose);
  }
  for (const file of KEY_FILES) {
    const mode = modeOf(path.join(nextDir, file));
    if (mode !== undefined && (mode & 0o077) !== 0) {
      throw new Error(`studio: ${path.join(nextDir, file)} is still ${octal(mode)} after chmod: other users could read the build's keys.`);
    }
  }
  if (log && loose.length > 0) {
    log(
      `studio: the build in ${nextDir} was open to other users (${describe(nextDir, loose)}); ` +
        'now server/ and cache/ are 0700 folders of 0600 files, prerender-manifest.json 0600, and nothing in it is writable by others.',
    );
  }
  return loose;
}

function walk(entry, strip, loose) {
  const stats = statOrMissing(entry);
  if (!stats || stats.isSymbolicLink()) return;
  tighten(entry, strip, loose, stats);
  if (stats.isDirectory()) for (const child of readdirSync(entry)) walk(path.join(entry, child), strip, loose);
}

function tighten(entry, strip, loose, stats = statOrMissing(entry)) {
  if (!stats || stats.isSymbolicLink()) return;
  const mode = stats.mode & 0o777;
  if ((mode & strip) === 0) return;
  const now = mode & ~strip;
  try {
    chmodSync(entry, now);
  } catch (error) {
    throw new Error(`studio: could not make ${entry} private (chmod ${octal(now)}): ${error.message}. The build must belong to the user running the Studio.`, {
      cause: error,
    });
  }
  loose.push({ path: entry, kind: stats.isDirectory() ? 'folder' : 'file', mode, now });
}

function statOrMissing(entry) {
  try {
    return lstatSync(entry);
  } catch (error) {
    if (error.code === 'ENOENT') return undefined; // removed meanwhile: nothing left to protect
    throw new Error(`studio: could not read the mode of ${entry}: ${error.message}`, { cause: error });
  }
}

function modeOf(entry) {
  const stats = statOrMissing(entry);
  return stats ? stats.mode & 0o777 : undefined;
}

/** "server/: 300 files 0644, 20 folders 0755; the rest: 40 files 0666": by part (in a fixed order), then by count and name. */
function describe(nextDir, loose) {
  const parts = [...PRIVATE_TREES.map((tree) => `${tree}/`), ...PRIVATE_FILES, 'the rest'];
  const counts = new Map(parts.map((part) => [part, new Map()]));
  for (const entry of loose) {
    const top = path.relative(nextDir, entry.path).split(path.sep)[0];
    const part = PRIVATE_TREES.includes(top) ? `${top}/` : PRIVATE_FILES.includes(top) ? top : 'the rest';
    const key = `${entry.kind} ${octal(entry.mode)}`;
    counts.get(part).set(key, (counts.get(part).get(key) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, items]) => items.size > 0)
    .map(([part, items]) => {
      const sorted = [...items].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      return `${part}: ${sorted.map(([key, count]) => (count === 1 ? `1 ${key}` : `${count} ${key.replace(' ', 's ')}`)).join(', ')}`;
    })
    .join('; ');
}

function octal(mode) {
  return mode.toString(8).padStart(4, '0');
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  privateBuild(path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..', '.next')));
}
