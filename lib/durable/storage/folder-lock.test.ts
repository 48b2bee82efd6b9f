import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
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

/** util-linux unshare(1) can make a PID namespace here (root, or user namespaces allowed). */
const canUnshare = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL', 'true']).status === 0;

/**
 * tests/support/hold-data-dir.ts holding `dataDir`; `inOwnPidNamespace`: started as pid 1 of a PID
 * namespace of its own with its own /proc (another container of the pod), killed with its unshare parent.
 */
async function holdInChild(dataDir: string, { inOwnPidNamespace = false } = {}): Promise<ChildProcess> {
  const node = [process.execPath, ...childArgs('tests/support/hold-data-dir.ts'), dataDir];
  const [command, ...args] = inOwnPidNamespace ? ['unshare', '--pid', '--fork', '--mount-proc', '--kill-child=SIGKILL', ...node] : node;
  const child = spawn(command as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  while (!out.includes('\n')) {
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
    expect((error as DataDirLockedError).holder?.pid).toBe(child.pid);
    expect((error as Error).message).toContain(`process ${child.pid}`);
    expect((error as Error).name).toBe('DataDirLockedError');
    // The recorded pid is a hint, never the judge: a holder whose pid means nothing here (another PID
    // namespace numbers its processes apart; this pid is dead here) still keeps the folder.
    writeFileSync(`${path.resolve(dataDir)}.lock`, JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), processStart: '1', since: 'then' }));
    const again = await new PGliteStorage({ dataDir }).runs.listRuns().catch((e: unknown) => e);
    expect(again).toBeInstanceOf(DataDirLockedError);
    expect((again as Error).message).toContain(`process ${2 ** 22 + 1}`);
  });

  it.runIf(canUnshare)(
    'a holder in another PID namespace (a second container on the same volume) keeps a second process out, and its SIGKILL lets the folder go',
    async () => {
      const dataDir = tempDataDir();
      const child = await holdInChild(dataDir, { inOwnPidNamespace: true });
      const error = await new PGliteStorage({ dataDir }).runs.listRuns().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DataDirLockedError);
      expect((error as DataDirLockedError).holder?.pid).toBe(1); // pid 1 there, init here
      expect((error as Error).message).toContain('in another PID namespace');
      // SIGKILL the holder itself (its pid out here); unshare exits once it has reaped it.
      const holderPid = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim());
      const exited = once(child, 'exit');
      process.kill(holderPid, 'SIGKILL');
      await exited;
      const storage = new PGliteStorage({ dataDir });
      try {
        expect((await storage.runs.getRun('held-by:1'))?.status).toBe('running');
      } finally {
        await storage.close();
      }
    },
  );

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

  it('a holder file left by a dead process does not keep the folder; this very process cannot open it twice', () => {
    const dataDir = tempDataDir();
    // What a SIGKILLed holder leaves (or an older GNL): a hint naming a live process that holds nothing.
    writeFileSync(`${path.resolve(dataDir)}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), processStart: '1', since: new Date().toISOString() }));
    const lock = lockFolder(dataDir);
    lock.release();
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
