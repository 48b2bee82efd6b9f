/**
 * Durable timers in the executor on real journals: an approval deadline that fires with nobody resuming
 * the run, and a scheduled resume (scheduleResume). The demo support agent and its real outside service;
 * "once" is judged by the journal (one expiry decision, one invocation per due time) and the service's counters.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { type RecordedEvent, RunState, runTimers } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { cancelRun, Executor, queueEntry, scheduleResume } from './index';

const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };
const DEADLINE_MS = 1_500;

describeEachStorage('executor timers', (holder) => {
  let service: OutsideService;
  let executor: Executor;
  // Opened (and migrated) first: on a loaded machine PGlite can take a minute to start, not charged to the first test.
  beforeAll(() => holder.storage.database().then(() => undefined), 300_000);
  beforeAll(async () => {
    service = await startOutsideService();
    // 'support' asks with a short deadline; 'support-patient' with one no test waits for (a person decides first).
    const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url, approvalExpiresInMs: DEADLINE_MS }), patientAgent()]);
    executor = new Executor({ storage: holder.storage, registry, leaseMs: 5_000, pollMs: 25 }).start();
  });
  afterAll(async () => {
    await executor.stop({ graceMs: 5_000 });
    await service.close();
  });

  const journal = () => holder.storage.runs;
  const patientAgent = () =>
    ({ ...supportAgent({ serviceUrl: service.url, approvalExpiresInMs: 600_000 }), name: 'support-patient' }) as ReturnType<typeof supportAgent>;
  const until = async <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 1_200; i++) {
      const found = await probe();
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const status = (runId: string, wanted: string) =>
    until(`${runId} ${wanted}`, async () => {
      const entry = await queueEntry(runId, { storage: holder.storage });
      const run = await journal().getRun(runId);
      return run?.status === wanted && entry?.leaseOwner === null ? { run, entry } : undefined;
    });
  const of = (events: RecordedEvent[], type: string) => events.filter((e) => e.type === type);

  it('a timer whose read fails as the run settles is not lost: the run is given back, settles again, and its deadline still fires', async () => {
    // Another executor, for an agent only it runs, on the same journal, whose first read of the run for its
    // timers (nextWake, after the invocation settled waiting for the approval) fails, as a dropped session would.
    let armed = false;
    const runs = new Proxy(holder.storage.runs, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'getRun' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          if (armed && new Error().stack?.includes('nextWake')) {
            armed = false;
            throw new Error('Connection terminated unexpectedly');
          }
          return value.apply(target, args);
        };
      },
    });
    const flaky = Object.create(holder.storage, { runs: { value: runs } }) as typeof holder.storage;
    const agent = { ...supportAgent({ serviceUrl: service.url, approvalExpiresInMs: DEADLINE_MS }), name: 'support-flaky-timers' } as ReturnType<
      typeof supportAgent
    >;
    const errors: string[] = [];
    const other = new Executor({
      storage: flaky,
      registry: createAgentRegistry([agent]),
      leaseMs: 1_000,
      pollMs: 25,
      onEvent: (event) => {
        if (event.type === 'error') errors.push(event.where);
      },
    }).start();
    try {
      armed = true;
      const { runId } = await other.startRun({ agent: 'support-flaky-timers', input: REFUND });
      const done = await until('the deadline to fire', async () => {
        const run = await journal().getRun(runId);
        return run?.status === 'completed' ? run : undefined;
      });
      expect(done.status).toBe('completed');
      expect(armed).toBe(false);
      expect(errors).toContain(`timers ${runId}`);
      const events = await journal().events(runId);
      expect(of(events, 'tool-approval-response')).toMatchObject([{ approved: false, expired: true }]);
    } finally {
      await other.stop({ graceMs: 5_000 });
    }
  });

  it('an approval deadline fires with nobody resuming: the call expires once, the agent apologises, no refund', async () => {
    const before = service.stats();
    const { runId } = await executor.startRun({ agent: 'support', input: REFUND });
    const waiting = await status(runId, 'waiting-approval');
    const [timer] = runTimers(new RunState(await journal().events(runId)));
    expect(timer).toMatchObject({ kind: 'approval-deadline', toolName: 'issueRefund' });
    // The timer is the queue's: the run stays runnable, not claimed before its deadline.
    expect(waiting.entry.runnable).toBe(true);
    expect(waiting.entry.notBefore).toBeInstanceOf(Date);

    await status(runId, 'completed');
    const events = await journal().events(runId);
    const responses = of(events, 'tool-approval-response');
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ approved: false, by: 'gnl', reason: 'expired', expired: true });
    // Two invocations: the first, to the question; the deadline's, to the end.
    expect(of(events, 'run-resume')).toHaveLength(2);
    const after = service.stats();
    expect(after.refunds.requests - before.refunds.requests).toBe(0);
    expect(after.emails.performed - before.emails.performed).toBe(1);
    expect(service.records('emails').at(-1)?.body).toMatch(/sorry/);
  });

  it('approved before its deadline: the refund runs once at the resume, and the deadline expires nothing', async () => {
    const before = service.stats();
    const { runId } = await executor.startRun({ agent: 'support-patient', input: REFUND });
    const { run } = await status(runId, 'waiting-approval');
    await journal().approve({ runId, toolCallId: run.pending[0]?.toolCallId as string, by: 'ops@example.com' });
    await executor.resumeRun(runId, { by: 'ops@example.com', reason: 'approved' });
    const done = await status(runId, 'completed');
    expect(done.entry).toMatchObject({ runnable: false, notBefore: null });
    const events = await journal().events(runId);
    expect(of(events, 'tool-approval-response')).toEqual([expect.objectContaining({ approved: true, by: 'ops@example.com' })]);
    expect(service.stats().refunds.performed - before.refunds.performed).toBe(1);
  });

  it('scheduleResume: journaled with who, why and when; the run is invoked once, at its time, and the approved refund runs once', async () => {
    const before = service.stats();
    const { runId } = await executor.startRun({ agent: 'support-patient', input: REFUND });
    const { run } = await status(runId, 'waiting-approval');
    // Approved, not resumed: the refund is to go out at a set time.
    await journal().approve({ runId, toolCallId: run.pending[0]?.toolCallId as string, by: 'ops@example.com' });
    const at = new Date(Date.now() + 800);
    const scheduled = await scheduleResume(runId, { storage: holder.storage, at, by: 'ops@example.com', reason: 'after the cut-off' });
    expect(scheduled.queue).toMatchObject({ runnable: true });
    expect(scheduled.queue?.notBefore).toBeInstanceOf(Date);
    const requests = of(await journal().events(runId), 'run-resume-request');
    expect(requests).toEqual([expect.objectContaining({ by: 'ops@example.com', reason: 'after the cut-off', resumeAt: at.toISOString() })]);
    expect(runTimers(new RunState(await journal().events(runId)))).toEqual([
      { kind: 'resume', dueAt: at.toISOString(), by: 'ops@example.com', reason: 'after the cut-off' },
    ]);

    await status(runId, 'completed');
    const events = await journal().events(runId);
    const requestSeq = requests[0]?.seq as number;
    expect(of(events, 'run-resume').filter((e) => e.seq > requestSeq)).toHaveLength(1);
    // The invocation began no earlier than the time asked for (the journal's clock and this one: the same machine).
    expect((of(events, 'run-resume').at(-1) as RecordedEvent).at.getTime()).toBeGreaterThanOrEqual(at.getTime() - 50);
    expect(runTimers(new RunState(events))).toEqual([]);
    expect(service.stats().refunds.performed - before.refunds.performed).toBe(1);
    expect((await queueEntry(runId, { storage: holder.storage }))?.runnable).toBe(false);
  });

  it('a resume scheduled while the run executes holds: the invocation that ends then leaves the run to its time', async () => {
    await executor.stop({ graceMs: 5_000 });
    const at = { value: new Date(0) };
    let armed = true;
    executor = new Executor({
      storage: holder.storage,
      registry: createAgentRegistry([supportAgent({ serviceUrl: service.url, approvalExpiresInMs: DEADLINE_MS }), patientAgent()]),
      leaseMs: 5_000,
      pollMs: 25,
      // Inside the first invocation's lease, after it suspended: a person approves and schedules the resume.
      aroundInvocation: async (run, invoke) => {
        const result = await invoke();
        if (armed) {
          armed = false;
          const pending = (await journal().getRun(run.runId))?.pending[0];
          await journal().approve({ runId: run.runId, toolCallId: pending?.toolCallId as string, by: 'ops@example.com' });
          at.value = new Date(Date.now() + 1_000);
          await scheduleResume(run.runId, { storage: holder.storage, at: at.value, by: 'ops@example.com', reason: 'tonight' });
        }
        return result;
      },
    }).start();
    const { runId } = await executor.startRun({ agent: 'support-patient', input: REFUND });
    await status(runId, 'completed');
    const events = await journal().events(runId);
    const [request] = of(events, 'run-resume-request');
    const resumes = of(events, 'run-resume').filter((e) => e.seq > (request?.seq as number));
    expect(resumes).toHaveLength(1);
    expect((resumes[0] as RecordedEvent).at.getTime()).toBeGreaterThanOrEqual(at.value.getTime() - 50);
  });

  it('scheduleResume months ahead (more than 2^31 ms) sets the queue’s not-before time to it; the run is not invoked before', async () => {
    const { runId } = await executor.startRun({ agent: 'support-patient', input: REFUND });
    const { run } = await status(runId, 'waiting-approval');
    await journal().approve({ runId, toolCallId: run.pending[0]?.toolCallId as string, by: 'ops@example.com' });
    const at = new Date(Date.now() + 90 * 86_400_000);
    const scheduled = await scheduleResume(runId, { storage: holder.storage, at, by: 'ops@example.com', reason: 'next quarter' });
    expect(scheduled.queue).toMatchObject({ runnable: true });
    // Not before the time asked for, 90 days ahead (the int version overflowed here and left the run runnable at once).
    expect(scheduled.queue?.notBefore?.getTime() ?? 0).toBeGreaterThan(Date.now() + 89 * 86_400_000);
    expect(runTimers(new RunState(await journal().events(runId)))).toEqual([
      { kind: 'resume', dueAt: at.toISOString(), by: 'ops@example.com', reason: 'next quarter' },
    ]);
    await cancelRun(runId, { storage: holder.storage, by: 'test', reason: 'done with it' });
  });

  it('scheduleResume refuses a finished run and a time that is no instant, writing nothing', async () => {
    const { runId } = await executor.startRun({ agent: 'support', input: { prompt: 'Customer c_7 has a question about order o_21' } });
    await status(runId, 'completed');
    const lastSeq = (await journal().getRun(runId))?.lastSeq;
    await expect(scheduleResume(runId, { storage: holder.storage, at: new Date(), by: 'ops' })).rejects.toMatchObject({
      name: 'RunNotResumableError',
      reason: 'completed',
    });
    const waiting = await executor.startRun({ agent: 'support-patient', input: REFUND });
    await status(waiting.runId, 'waiting-approval');
    const seq = (await journal().getRun(waiting.runId))?.lastSeq;
    await expect(scheduleResume(waiting.runId, { storage: holder.storage, at: 'tomorrow at nine', by: 'ops' })).rejects.toMatchObject({
      name: 'JournalDataError',
      message: expect.stringMatching(/resumeAt: an ISO 8601 date-time with a zone/),
    });
    await expect(scheduleResume(waiting.runId, { storage: holder.storage, at: '2026-12-02T09:00:00', by: 'ops' })).rejects.toMatchObject({
      name: 'JournalDataError',
    });
    // Bounded: a year and a day ahead at most (9999-12-31 is refused, naming the bound).
    await expect(scheduleResume(waiting.runId, { storage: holder.storage, at: '9999-12-31T00:00:00Z', by: 'ops' })).rejects.toMatchObject({
      name: 'JournalDataError',
      message: expect.stringMatching(/resumeAt: at most 366 days ahead/),
    });
    expect((await journal().getRun(runId))?.lastSeq).toBe(lastSeq);
    expect((await journal().getRun(waiting.runId))?.lastSeq).toBe(seq);
    await cancelRun(waiting.runId, { storage: holder.storage, by: 'test', reason: 'done with it' });
    expect((await queueEntry(waiting.runId, { storage: holder.storage }))?.runnable).toBe(false);
  });
});
