/**
 * The run's own TMPDIR (scripts/run-temp.mjs): what the suite's tests and children make in tmpdir() goes
 * when the run ends, and a run killed before its end is cleaned up by the next one.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRunTemp, processStart, RUN_TEMP_PREFIX, removeAbandonedRunFolders, runTempHere } from '../scripts/run-temp.mjs';

const bases: string[] = [];
afterEach(() => {
  for (const base of bases.splice(0)) rmSync(base, { recursive: true, force: true });
});
function base(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gnl-run-temp-test-'));
  bases.push(dir);
  return dir;
}
function ownedFolder(at: string, name: string, owner: unknown): string {
  const folder = path.join(at, `${RUN_TEMP_PREFIX}${name}`);
  mkdirSync(folder);
  writeFileSync(path.join(folder, 'owner.json'), JSON.stringify(owner));
  writeFileSync(path.join(folder, 'journal.bin'), 'x');
  return folder;
}

describe('the run temp folder', () => {
  it('this run is inside one: tmpdir() here and in a child is beneath a run folder that the run removes', () => {
    const runFolder = process.env.TMPDIR ?? '';
    expect(path.basename(runFolder).startsWith(RUN_TEMP_PREFIX)).toBe(true);
    expect(tmpdir()).toBe(runFolder);
    const child = spawnSync(process.execPath, ['-e', "process.stdout.write(require('node:os').tmpdir())"], { encoding: 'utf8' });
    expect(child.stdout).toBe(runFolder);
    const owner = JSON.parse(readFileSync(path.join(runFolder, 'owner.json'), 'utf8'));
    expect(owner.start).toBe(processStart(owner.pid)); // its owner, vitest's main process, runs
  });

  it('openRunTemp points TMPDIR at a new folder like /tmp (sticky, everyone may write) and close removes it with what is in it', () => {
    const at = base();
    const before = process.env.TMPDIR;
    const temp = openRunTemp(at);
    try {
      expect(process.env.TMPDIR).toBe(temp.dir);
      expect(path.dirname(temp.dir)).toBe(at);
      expect(statSync(temp.dir).mode & 0o7777).toBe(0o1777);
      mkdirSync(path.join(tmpdir(), 'gnl-test-x', 'data'), { recursive: true });
      writeFileSync(path.join(tmpdir(), 'gnl-test-x', 'data', 'PG_VERSION'), '17');
    } finally {
      temp.close();
    }
    expect(process.env.TMPDIR).toBe(before);
    expect(existsSync(temp.dir)).toBe(false);
  });

  it('runTempHere: inside a run folder it is that one, left to its owner; elsewhere a new one of its own', () => {
    const at = base();
    const saved = process.env.TMPDIR;
    try {
      process.env.TMPDIR = at;
      const own = runTempHere();
      expect(path.dirname(own.dir)).toBe(at);
      const inherited = runTempHere();
      expect(inherited.dir).toBe(own.dir);
      inherited.close();
      expect(existsSync(own.dir)).toBe(true);
      own.close();
      expect(existsSync(own.dir)).toBe(false);
    } finally {
      process.env.TMPDIR = saved;
    }
  });

  it('a run that ended without removing its folder: the next removes it; a running owner’s, a reused pid’s, another host’s and a folder being made are told apart', async () => {
    const at = base();
    const child = spawn(process.execPath, ['-e', '']);
    const childPid = child.pid as number;
    const childStart = processStart(childPid);
    await once(child, 'exit');
    const dead = ownedFolder(at, 'dead', { pid: childPid, start: childStart });
    const running = ownedFolder(at, 'running', { pid: process.pid, start: processStart(process.pid) });
    const reused = ownedFolder(at, 'reused', { pid: process.pid, start: 'an earlier process with this pid' });
    const elsewhere = ownedFolder(at, 'elsewhere', { host: `not-${hostname()}`, pid: childPid, start: childStart });
    const garbled = ownedFolder(at, 'garbled', {});
    writeFileSync(path.join(garbled, 'owner.json'), '{not json');
    const beingMade = path.join(at, `${RUN_TEMP_PREFIX}new`);
    mkdirSync(beingMade);
    const notOurs = path.join(at, 'gnl-test-something-else');
    mkdirSync(notOurs);

    expect(removeAbandonedRunFolders(at).sort()).toEqual([dead, garbled, reused].sort());
    expect([dead, garbled, reused].map(existsSync)).toEqual([false, false, false]);
    expect([running, beingMade, notOurs, elsewhere].map(existsSync)).toEqual([true, true, true, true]); // another host's run is its own

    // A folder with no owner file for longer than a run takes to write one is abandoned too.
    const old = (Date.now() - 11 * 60_000) / 1000;
    utimesSync(beingMade, old, old);
    expect(removeAbandonedRunFolders(at)).toEqual([beingMade]);
    expect(existsSync(running)).toBe(true);

    // openRunTemp cleans up before making its own, and says what it removed.
    rmSync(path.join(running, 'owner.json'));
    writeFileSync(path.join(running, 'owner.json'), JSON.stringify({ pid: childPid, start: childStart }));
    const temp = openRunTemp(at);
    temp.close();
    expect(temp.abandoned).toEqual([running]);
  });
});
