/**
 * Timers across real worker processes on one Postgres (a fresh database per test): an approval deadline
 * that is due while every worker is dead (SIGKILL) fires once in a worker started after it, and a
 * scheduled resume fires once with two workers polling. The demo support agent as the workload, its
 * outside service (in this process) as the judge; "once" by the journal.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry } from '@/lib/agents';
import { type RecordedEvent, RunState, runTimers } from '@/lib/durable';
import { DATABASE_URL } from '@/tests/support/journals';
import { workerWorld } from '@/tests/support/worker-world';
import { startWorker, type WorkerOptions } from '@/tests/support/worker-process';
import { queueEntry, scheduleResume, startRun } from './index';

const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };
const DEADLINE_MS = 4_000;

const suite = DATABASE_URL ? describe : describe.skip;

suite(`timers across worker processes${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  const world = workerWorld();

  const worker = async (options: Partial<WorkerOptions> = {}) => {
    const w = startWorker({ databaseUrl: world.databaseUrl, serviceUrl: world.service.url, pollMs: 50, leaseMs: 5_000, ...options });
    world.workers.push(w);
    await w.waitFor((line) => line.type === 'started');
    return w;
  };
  const until = async <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const settledAs = (runId: string, status: string) =>
    until(`${runId} ${status}`, async () => {
      const run = await world.storage.runs.getRun(runId);
      const entry = await queueEntry(runId, { storage: world.storage });
      return run?.status === status && entry?.leaseOwner === null ? { run, entry } : undefined;
    });
  const of = (events: RecordedEvent[], type: string) => events.filter((e) => e.type === type);
  const start = (registry: ReturnType<typeof createAgentRegistry>) =>
    startRun({ storage: world.storage, registry, agent: 'support', runId: `support:${randomUUID()}`, input: REFUND });

  it('a deadline due while every worker is SIGKILLed fires once in the workers started after it: expired once, no refund, an apology', async () => {
    const env = { GNL_DEMO_APPROVAL_EXPIRES_MS: String(DEADLINE_MS) };
    const first = await worker({ env });
    const registry = createAgentRegistry([supportAgent({ serviceUrl: world.service.url, approvalExpiresInMs: DEADLINE_MS })]);
    const before = world.service.stats();
    const { runId } = await start(registry);
    const waiting = await settledAs(runId, 'waiting-approval');
    const [deadline] = runTimers(new RunState(await world.storage.runs.events(runId)));
    expect(deadline).toMatchObject({ kind: 'approval-deadline', toolName: 'issueRefund' });
    expect(waiting.entry.runnable).toBe(true);

    first.signal('SIGKILL');
    await first.exited;
    // Nobody runs until the deadline has passed: no worker lives to fire it.
    await until('the deadline to pass', async () => (Date.now() > Date.parse(deadline?.dueAt as string) + 200 ? true : undefined));
    expect((await world.storage.runs.getRun(runId))?.status).toBe('waiting-approval');

    const later = [await worker({ env }), await worker({ env })];
    await settledAs(runId, 'completed');
    const events = await world.storage.runs.events(runId);
    const responses = of(events, 'tool-approval-response');
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ approved: false, by: 'gnl', reason: 'expired', expired: true });
    const suspend = of(events, 'run-suspend')[0] as RecordedEvent;
    expect(of(events, 'run-resume').filter((e) => e.seq > suspend.seq)).toHaveLength(1);
    const claims = later.flatMap((w) => w.events('claimed', runId));
    expect(claims).toHaveLength(1);
    const resumed = of(events, 'run-resume').at(-1) as RecordedEvent;
    console.log(
      `[timer-workers] deadline fired ${resumed.at.getTime() - Date.parse(deadline?.dueAt as string)} ms after it was due (workers started after it)`,
    );
    const after = world.service.stats();
    expect(after.refunds.requests - before.refunds.requests).toBe(0);
    expect(after.tickets.performed - before.tickets.performed).toBe(1);
    expect(after.emails.performed - before.emails.performed).toBe(1);
  });

  it('a scheduled resume fires once with two workers polling: one invocation after the request, the approved refund once', async () => {
    const pair = [await worker(), await worker()];
    const registry = createAgentRegistry([supportAgent({ serviceUrl: world.service.url })]);
    const before = world.service.stats();
    const { runId } = await start(registry);
    const { run } = await settledAs(runId, 'waiting-approval');
    await world.storage.runs.approve({ runId, toolCallId: run.pending[0]?.toolCallId as string, by: 'ops@example.com', reason: 'ok' });
    const at = new Date(Date.now() + 1_500);
    const claimsBefore = pair.flatMap((w) => w.events('claimed', runId)).length;
    await scheduleResume(runId, { storage: world.storage, at, by: 'ops@example.com', reason: 'send it after the cut-off' });

    await settledAs(runId, 'completed');
    const events = await world.storage.runs.events(runId);
    const [request] = of(events, 'run-resume-request');
    expect(request).toMatchObject({ by: 'ops@example.com', resumeAt: at.toISOString() });
    const resumes = of(events, 'run-resume').filter((e) => e.seq > (request?.seq as number));
    expect(resumes).toHaveLength(1);
    expect((resumes[0] as RecordedEvent).at.getTime()).toBeGreaterThanOrEqual(at.getTime() - 50);
    console.log(
      `[timer-workers] scheduled resume began ${(resumes[0] as RecordedEvent).at.getTime() - at.getTime()} ms after its time (two workers, poll 50 ms)`,
    );
    expect(pair.flatMap((w) => w.events('claimed', runId)).length - claimsBefore).toBe(1);
    expect(world.service.stats().refunds.performed - before.refunds.performed).toBe(1);
    expect((await queueEntry(runId, { storage: world.storage }))?.runnable).toBe(false);
  });
});
