/**
 * A test run's own temporary folder. Every folder a test, a child process or a server of the run makes
 * with `os.tmpdir()` goes beneath it (TMPDIR, which the run's processes inherit), and the whole folder goes
 * when the run ends. Without it each whole-suite run left about 5.5 GB in /tmp (136 embedded journals of
 * 40 MB each, private clusters, builds: measured after `npx vitest run`), and CI, which runs on the machine
 * the session leaves, filled the disk: a file whose journal folder could not be copied failed to load,
 * reported as "0 test" (stop 54's red CI; reproduced on a 150 MB tmpfs: ENOSPC, then EIO in
 * copyPGliteTemplate, the same files "0 test").
 *
 * A run killed before its end (Ctrl-C, a CI timeout) cannot remove its folder: the next run removes every
 * run folder whose owner process is gone (its pid and start time, so a reused pid is not taken for it).
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';

export const RUN_TEMP_PREFIX = 'gnl-test-run-';
const OWNER_FILE = 'owner.json';
/** A run folder with no owner file yet is being made by another run: left alone this long, then removed. */
const UNOWNED_GRACE_MS = 10 * 60_000;

/** This process's start time in clock ticks since boot (/proc/PID/stat's 22nd field), or undefined where there is no /proc. */
export function processStart(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote `owner` still runs: same pid, same start time. Another host's (a container sharing the folder) is taken to run. */
function ownerAlive(owner) {
  if (typeof owner.host === 'string' && owner.host !== hostname()) return true;
  if (!Number.isInteger(owner.pid) || owner.pid <= 0) return false;
  const start = processStart(owner.pid);
  if (start !== undefined) return start === owner.start;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Removes the run folders in `base` whose run has ended without removing them; returns their paths. */
export function removeAbandonedRunFolders(base = tmpdir(), now = Date.now()) {
  const removed = [];
  for (const name of readdirSync(base)) {
    if (!name.startsWith(RUN_TEMP_PREFIX)) continue;
    const folder = path.join(base, name);
    const ownerFile = path.join(folder, OWNER_FILE);
    let abandoned;
    if (existsSync(ownerFile)) {
      let owner;
      try {
        owner = JSON.parse(readFileSync(ownerFile, 'utf8'));
      } catch {
        owner = {}; // unreadable, or removed by its owner since: either way no run owns it now
      }
      abandoned = !ownerAlive(owner);
    } else {
      // Gone meanwhile (its owner removed it): nothing to do.
      const stats = statSync(folder, { throwIfNoEntry: false });
      abandoned = stats !== undefined && now - stats.mtimeMs > UNOWNED_GRACE_MS;
    }
    if (!abandoned) continue;
    rmSync(folder, { recursive: true, force: true });
    removed.push(folder);
  }
  return removed;
}

/**
 * The run folder this process is already inside (TMPDIR, set by `npm test` for vitest), else a new one
 * (openRunTemp): one level of them, so paths stay short. Closing the one inherited leaves it to its owner.
 */
export function runTempHere() {
  const here = tmpdir();
  if (path.basename(here).startsWith(RUN_TEMP_PREFIX) && existsSync(path.join(here, OWNER_FILE))) return { dir: here, abandoned: [], close() {} };
  return openRunTemp(here);
}

/**
 * Makes this run's folder beneath `base` (after removing abandoned ones) and points TMPDIR at it.
 * `close()` puts TMPDIR back and removes the folder with everything in it.
 */
export function openRunTemp(base = tmpdir()) {
  const abandoned = removeAbandonedRunFolders(base);
  const dir = mkdtempSync(path.join(base, RUN_TEMP_PREFIX));
  // Like /tmp: the fault suites' clusters run as the postgres user beneath it (failover-formation.ts).
  chmodSync(dir, 0o1777);
  writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify({ host: hostname(), pid: process.pid, start: processStart(process.pid) }));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return {
    dir,
    abandoned,
    close() {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      // Retried: a child that outlived its test may still be writing beneath it for a moment.
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}
