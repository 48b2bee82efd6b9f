/**
 * Crash points for real: the demo runs in child processes (node --import tsx tests/support/demo-child.ts),
 * one invocation each, on a journal they share; a child with a crash point armed SIGKILLs itself. Every
 * verdict comes from the outside service's own counters.
 */
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Journal } from '@/lib/durable';
import { PGliteStorage, PostgresStorage } from '@/lib/durable/storage';
import type { DemoChildOutcome } from '@/tests/support/demo-child';
import { DATABASE_URL, describeEachJournal, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { type OutsideService, startOutsideService } from './index';
import { childArgs, ROOT } from '@/tests/support/child-bundles';

const PROMPT = 'Customer c_42 wants a refund of 40 for order o_17';

interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  outcome?: DemoChildOutcome;
  stderr: string;
}

describeEachJournal('demo crash points (child processes, SIGKILL)', (target) => {
  let service: OutsideService;
  let dataDir: string;
  beforeEach(async () => {
    service = await startOutsideService();
    dataDir = tempDataDir();
  });
  afterEach(() => service.close());

  /** Opens the journal for one step of the test and closes it, so that on PGlite the next child may hold the folder. */
  async function withJournal<T>(fn: (journal: Journal) => Promise<T>): Promise<T> {
    const storage = target.name === 'pglite' ? new PGliteStorage({ dataDir }) : new PostgresStorage({ connectionString: DATABASE_URL as string });
    try {
      return await fn(storage.runs);
    } finally {
      await storage.close();
    }
  }

  function child(runId: string, demoEnv: Record<string, string>): Promise<ChildEnd> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of [
      'DATABASE_URL',
      'GNL_DATA_DIR',
      'NODE_OPTIONS',
      'GNL_DEMO_CRASH_AT',
      'GNL_DEMO_CHECKS',
      'GNL_MODEL',
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
    ]) {
      delete env[name];
    }
    Object.assign(env, target.name === 'pglite' ? { GNL_DATA_DIR: dataDir } : { DATABASE_URL }, { GNL_DEMO_SERVICE_URL: service.url }, demoEnv);
    const proc = spawn(process.execPath, [...childArgs('tests/support/demo-child.ts'), runId, PROMPT], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        proc.kill('SIGKILL');
        reject(new Error(`demo child did not end within 60 s.\nstderr:\n${stderr}`));
      }, 60_000);
      proc.on('error', reject);
      proc.on('close', (code, signal) => {
        clearTimeout(timer);
        const line = stdout.trim().split('\n').filter(Boolean).at(-1);
        resolve({ code, signal, outcome: line ? (JSON.parse(line) as DemoChildOutcome) : undefined, stderr });
      });
    });
  }

  /** Starts the run, which stops at the refund's approval, and approves it. */
  async function startAndApprove(runId: string, demoEnv: Record<string, string>): Promise<void> {
    const first = await child(runId, demoEnv);
    expect(first.outcome, first.stderr).toMatchObject({ outcome: 'waiting-approval', pending: [{ toolName: 'issueRefund' }] });
    const [pending] = (first.outcome as Extract<DemoChildOutcome, { outcome: 'waiting-approval' }>).pending;
    await withJournal((journal) => journal.approve({ runId, toolCallId: pending?.toolCallId as string, by: 'test-operator' }));
  }

  it('killed after the refund was answered; a fresh process resumes, check finds the refund, the run completes: one refund, one email', async () => {
    const runId = uniqueRunId('demo-crash');
    const crash = { GNL_DEMO_CRASH_AT: 'after-refund-answered' };
    await startAndApprove(runId, crash);

    const killed = await child(runId, crash);
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(killed.stderr).toContain('crash point after-refund-answered');
    expect(service.stats().refunds).toMatchObject({ requests: 1, performed: 1 });
    expect(service.stats().emails.requests).toBe(0);

    // The crash point stays armed: it does not fire again, because the refund is not performed again.
    const resumed = await child(runId, crash);
    expect(resumed.outcome, resumed.stderr).toMatchObject({ outcome: 'completed', text: expect.stringContaining('Refunded 40 EUR for order o_17') });
    const stats = service.stats();
    expect(stats.tickets).toMatchObject({ requests: 1, performed: 1 });
    expect(stats.refunds).toMatchObject({ requests: 1, performed: 1, deduplicated: 0 });
    expect(Object.values(stats.refunds.byKey)).toEqual([{ requests: 1, performed: 1 }]);
    expect(stats.emails).toMatchObject({ requests: 1, performed: 1 });
    expect(stats.keyLookups).toBe(1);
    const events = await withJournal((journal) => journal.events(runId));
    expect(events.filter((e) => e.type === 'tool-call-end' && e.toolName === 'issueRefund').map((e) => (e as { source?: string }).source)).toEqual(['check']);
  });

  it('without checks, the resume after the kill is blocked (never refunds twice); an operator settles it and the run completes', async () => {
    const runId = uniqueRunId('demo-crash');
    const env = { GNL_DEMO_CRASH_AT: 'after-refund-answered', GNL_DEMO_CHECKS: '0' };
    await startAndApprove(runId, env);
    const killed = await child(runId, env);
    expect(killed.signal, killed.stderr).toBe('SIGKILL');

    const blocked = await child(runId, env);
    expect(blocked.outcome, blocked.stderr).toMatchObject({ outcome: 'blocked', toolName: 'issueRefund' });
    expect(service.stats().refunds).toMatchObject({ requests: 1, performed: 1 });
    expect(service.stats().emails.requests).toBe(0);

    const { toolCallId } = blocked.outcome as Extract<DemoChildOutcome, { outcome: 'blocked' }>;
    const [refund] = service.records('refunds');
    await withJournal((journal) => journal.resolveSideEffect({ runId, toolCallId, outcome: 'done', output: { ok: true, refund }, by: 'test-operator' }));
    const done = await child(runId, env);
    expect(done.outcome, done.stderr).toMatchObject({ outcome: 'completed', text: expect.stringContaining(`refund ${refund?.refundId}`) });
    expect(service.stats().refunds).toMatchObject({ requests: 1, performed: 1 });
    expect(service.stats().emails).toMatchObject({ requests: 1, performed: 1 });
  });

  it('killed after the ticket was created: the retry-safe resume sends it again under the same key and the service deduplicates it', async () => {
    const runId = uniqueRunId('demo-crash');
    const crash = { GNL_DEMO_CRASH_AT: 'after-ticket-created' };
    const killed = await child(runId, crash);
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const resumed = await child(runId, crash);
    expect(resumed.outcome, resumed.stderr).toMatchObject({ outcome: 'waiting-approval' });
    const { tickets } = service.stats();
    expect(tickets).toMatchObject({ requests: 2, performed: 1, deduplicated: 1 });
    expect(Object.values(tickets.byKey)).toEqual([{ requests: 2, performed: 1 }]);
  });
});
