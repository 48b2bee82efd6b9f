/**
 * The Studio server's executor on the embedded journal, in real processes: the process that executes a
 * run dies (a demo crash point SIGKILLs it right after the ticket was created); the next server process
 * on the same data folder is the only executor there, so it takes the run up at once (not after the
 * lease) and finishes it. Judged by the outside service's counters.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { PGliteStorage } from '@/lib/durable/storage';
import { tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { getExecutor, queueEntry } from './index';
import { childArgs, ROOT } from '@/tests/support/child-bundles';

function serverProcess(env: Record<string, string>, args: string[]) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.DATABASE_URL;
  delete childEnv.NODE_OPTIONS;
  const child = spawn(process.execPath, [...childArgs('tests/support/executor-child.ts'), ...args], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise<{ signal: NodeJS.Signals | null; code: number | null; out?: Record<string, unknown>; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stderr, ...(stdout.trim() ? { out: JSON.parse(stdout.trim()) } : {}) })),
  );
}

describe('in-process executor on the embedded journal, across a crash of its process', () => {
  let service: OutsideService;
  beforeAll(async () => {
    service = await startOutsideService();
  });
  afterAll(() => service.close());

  it('the next process takes the crashed run up at once and finishes it: one ticket, one email', async () => {
    const dataDir = tempDataDir();
    const env = { GNL_DATA_DIR: dataDir, GNL_DEMO_SERVICE_URL: service.url };
    const runId = uniqueRunId('studio');
    const first = await serverProcess(env, [runId, 'Customer c_7 has a question about order o_21', 'after-ticket-created']);
    expect(first.signal, first.stderr).toBe('SIGKILL');
    expect(service.stats().tickets).toMatchObject({ performed: 1 });

    const second = await serverProcess(env, [runId]);
    expect(second.out, second.stderr).toMatchObject({ outcome: 'completed', status: 'completed', claims: 2 });
    const storage = new PGliteStorage({ dataDir });
    try {
      const entry = await queueEntry(runId, { storage });
      const events = await storage.runs.events(runId);
      // Taken at once: the second claim came before the first process's 60 s lease would have expired.
      const firstClaim = events.find((e) => e.type === 'run-resume');
      expect(entry?.claimedAt?.getTime()).toBeLessThan((firstClaim?.at.getTime() as number) + 60_000);
      expect(events.filter((e) => e.type === 'run-complete')).toHaveLength(1);
    } finally {
      await storage.close();
    }
    const stats = service.stats();
    expect(stats.tickets).toMatchObject({ performed: 1, deduplicated: 1 }); // retried under the same key after the crash
    expect(stats.emails).toMatchObject({ requests: 1, performed: 1 });
  }, 120_000);

  it('asked for before the process made it, it refuses to guess which agents to run', () => {
    expect(() => getExecutor()).toThrow('This process has no executor yet: make it first with getExecutor({ registry');
  });
});
