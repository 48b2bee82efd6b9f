import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDataDir } from '@/tests/support/journals';
import { DataDirLockedError, PGliteStorage } from './index';
import { lockFolder } from './folder-lock';
import { childArgs } from '@/tests/support/child-bundles';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

async function holdInChild(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...childArgs('tests/support/hold-data-dir.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  while (!out.includes('ready')) {
    await Promise.race([
      once(child.stdout as NodeJS.ReadableStream, 'data'),
      once(child, 'exit').then(() => Promise.reject(new Error(`child exited: ${out}`))),
    ]);
  }
  return child;
}

describe('the embedded journal serves one process', () => {
  it('a second live process gets a clear error at once, naming the holder', async () => {
    const dataDir = tempDataDir();
    const child = await holdInChild(dataDir);
    const storage = new PGliteStorage({ dataDir });
    const error = await storage.runs.listRuns().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as DataDirLockedError).holder.pid).toBe(child.pid);
    expect((error as Error).message).toContain(`process ${child.pid}`);
    expect((error as Error).name).toBe('DataDirLockedError');
  });

  it('a folder whose holder was SIGKILLed is taken over at once, with its data', async () => {
    const dataDir = tempDataDir();
    const child = await holdInChild(dataDir);
    child.kill('SIGKILL');
    await once(child, 'exit');
    const storage = new PGliteStorage({ dataDir });
    try {
      const run = await storage.runs.getRun(`held-by:${child.pid}`);
      expect(run?.status).toBe('running');
    } finally {
      await storage.close();
    }
  });

  it('judges a holder by its pid and process start time, not by the age of the lock file', () => {
    const dataDir = tempDataDir();
    const lockPath = `${path.resolve(dataDir)}.lock`;
    lockFolder(dataDir).release();
    // A fresh lock file written by a pid that is alive but is not the process that wrote it (pid reuse).
    writeFileSync(lockPath, JSON.stringify({ pid: process.ppid, host: hostname(), processStart: '1', since: new Date().toISOString() }));
    const lock = lockFolder(dataDir);
    lock.release();
    // A lock held by this very process is refused (one PGlite per folder), old or new.
    const mine = lockFolder(dataDir);
    expect(() => lockFolder(dataDir)).toThrow(DataDirLockedError);
    mine.release();
  });

  it('closing the storage gives the folder back, and reopening finds the data', async () => {
    const dataDir = tempDataDir();
    const first = new PGliteStorage({ dataDir });
    const hold = await first.runs.hold('persisted');
    await hold.create({ prompt: 'x', modelId: 'm', provider: 'p', toolNames: [] });
    await hold.release();
    await first.close();
    const second = new PGliteStorage({ dataDir });
    try {
      expect((await second.runs.getRun('persisted'))?.lastSeq).toBe(1);
    } finally {
      await second.close();
    }
  });
});
