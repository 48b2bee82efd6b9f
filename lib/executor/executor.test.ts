/**
 * The executor in this process (as the Studio's server runs it) on real journals, with the demo agent
 * and its real outside service, judged by the service's own counters.
 */
import { stepCountIs } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { countedPostgres, StatementLog } from '@/tests/support/statement-log';
import { abandonRun, cancelRun, Executor, type ExecutorEvent, queueEntry, resumeRun, startRun } from './index';
import { RunQueue } from './run-queue';

const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };
const QUESTION = (n: number) => ({ prompt: `Customer c_7 has question ${n} about order o_21` });

describeEachStorage('in-process executor', (holder) => {
  let service: OutsideService;
  let registry: ReturnType<typeof createAgentRegistry>;
  let executor: Executor;
  const events: ExecutorEvent[] = [];
  beforeAll(async () => {
    service = await startOutsideService();
    registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
    executor = new Executor({ storage: holder.storage, registry, concurrency: 3, leaseMs: 5_000, pollMs: 100, onEvent: (e) => events.push(e) }).start();
  });
  afterAll(async () => {
    await executor.stop({ graceMs: 5_000 });
    await service.close();
  });

  it('refuses a heartbeat no shorter than its lease (the lease would lapse between heartbeats: another executor would take the run over mid-tool)', () => {
    expect(() => new Executor({ storage: holder.storage, registry, leaseMs: 500, heartbeatMs: 2_000 })).toThrow(
      "The executor's heartbeatMs (2000) must be shorter than its leaseMs (500)",
    );
    expect(() => new Executor({ storage: holder.storage, registry, leaseMs: 500, heartbeatMs: 500 })).toThrow(RangeError);
    // The default, a third of the lease, is taken.
    expect(() => new Executor({ storage: holder.storage, registry, leaseMs: 500 })).not.toThrow();
  });

  const settled = async (runId: string, outcome: string) => {
    for (let i = 0; i < 300; i++) {
      const entry = await queueEntry(runId, { storage: holder.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return entry;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} did not settle as ${outcome}: ${JSON.stringify(await queueEntry(runId, { storage: holder.storage }))}`);
  };

  it('a run of an agent with memory, started with a subject and a conversation: its run-start records the memory it is given, the executor gives it that, and its turn is remembered', async () => {
    const subject = `customer:exec-${crypto.randomUUID()}`;
    const conversationId = `conv-${crypto.randomUUID()}`;
    await holder.storage.memory.add({
      resource: subject,
      key: `${subject}-earlier`,
      items: [
        { kind: 'message', thread: conversationId, role: 'user', text: 'Customer c_7: my parcel is late.' },
        { kind: 'message', thread: conversationId, role: 'assistant', text: 'It ships tomorrow.' },
      ],
    });
    const prompt = 'Customer c_7: the parcel of order o_21 is still late.';
    const { runId } = await executor.startRun({ agent: 'support', input: { prompt, subject, conversationId } });
    const started = await holder.storage.runs.getRun(runId);
    expect(started?.input.memory).toMatchObject({ resource: subject, thread: conversationId });
    expect(JSON.stringify(started?.input.memory?.messages)).toContain('my parcel is late');
    // Its first invocation is given that record (before the fix it diverged: the run-start had no memory).
    await settled(runId, 'completed');
    const history = await holder.storage.memory.history({ resource: subject, thread: conversationId, limit: 10 });
    expect(history.map((m) => m.text).slice(0, 3)).toEqual(['Customer c_7: my parcel is late.', 'It ships tomorrow.', prompt]);
    expect(history).toHaveLength(4);
    // The same start again is the same run; another thread for it is refused.
    expect((await startRun({ storage: holder.storage, registry, runId, agent: 'support', input: { prompt, subject, conversationId } })).created).toBe(false);
    await expect(
      startRun({ storage: holder.storage, registry, runId, agent: 'support', input: { prompt, subject, conversationId: 'another' } }),
    ).rejects.toMatchObject({ name: 'RunDivergedError' });
  });

  it('runs a started run in the background to its approval, and after the approval and a resume to the end: one ticket, one refund, one email', async () => {
    const before = service.stats();
    const { runId, leased } = await executor.startRun({ agent: 'support', input: REFUND });
    expect(leased).toBe(true);
    await settled(runId, 'waiting-approval');
    const run = await holder.storage.runs.getRun(runId);
    expect(run).toMatchObject({ status: 'waiting-approval', pending: [{ toolName: 'issueRefund' }] });
    await holder.storage.runs.approve({ runId, toolCallId: run?.pending[0]?.toolCallId as string, by: 'ops@example.com' });
    await executor.resumeRun(runId, { by: 'ops@example.com', reason: 'refund approved' });
    await settled(runId, 'completed');
    expect(await holder.storage.runs.getRun(runId)).toMatchObject({ status: 'completed' });
    // Who asked is journaled before the invocation it woke: the request, then that invocation's run-resume.
    const types = (await holder.storage.runs.events(runId)).map((e) => e.type);
    expect(types.slice(types.indexOf('tool-approval-response'), types.indexOf('tool-approval-response') + 3)).toEqual([
      'tool-approval-response',
      'run-resume-request',
      'run-resume',
    ]);
    expect((await holder.storage.runs.events(runId)).find((e) => e.type === 'run-resume-request')).toMatchObject({
      by: 'ops@example.com',
      reason: 'refund approved',
    });
    const after = service.stats();
    expect(after.tickets.performed - before.tickets.performed).toBe(1);
    expect(after.refunds.performed - before.refunds.performed).toBe(1);
    expect(after.emails.performed - before.emails.performed).toBe(1);
    expect(events.filter((e) => e.type === 'claimed' && e.runId === runId)).toHaveLength(2);
  });

  it('claims runs enqueued elsewhere (startRun) and runs each once, three at a time', async () => {
    const before = service.stats();
    const started = [];
    for (let n = 0; n < 12; n++) started.push(await startRun({ storage: holder.storage, registry, agent: 'support', input: QUESTION(n) }));
    executor.kick();
    for (const { runId } of started) await settled(runId, 'completed');
    const after = service.stats();
    expect(after.tickets.performed - before.tickets.performed).toBe(12);
    expect(after.emails.performed - before.emails.performed).toBe(12);
    for (const { runId } of started) {
      const types = (await holder.storage.runs.events(runId)).map((e) => e.type);
      expect(types.filter((t) => t === 'run-complete')).toHaveLength(1);
      expect(types.filter((t) => t === 'run-resume')).toHaveLength(1);
    }
    console.log(`[executor ${holder.kind}] 12 enqueued runs completed by one in-process executor (concurrency 3)`);
  });

  it('cancelRun on a run waiting for approval: canceled in the journal, never invoked again, nothing refunded', async () => {
    const before = service.stats();
    const { runId } = await executor.startRun({ agent: 'support', input: REFUND });
    await settled(runId, 'waiting-approval');
    const canceled = await cancelRun(runId, { storage: holder.storage, by: 'ops@example.com', reason: 'customer withdrew' });
    expect(canceled).toMatchObject({ run: { status: 'canceled' }, queue: { runnable: false, outcome: 'canceled' } });
    const refused = await resumeRun(runId, { storage: holder.storage, by: 'ops@example.com' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'RunNotResumableError', reason: 'canceled' });
    const again = await cancelRun(runId, { storage: holder.storage, by: 'ops@example.com' }).catch((e: unknown) => e);
    expect(again).toMatchObject({ name: 'DecisionConflictError' });
    expect(service.stats().refunds.requests).toBe(before.refunds.requests);
    expect(service.stats().emails.requests).toBe(before.emails.requests);
  });

  it('claims only runs of the agents its registry knows: another deployment’s run stays queued for its own executors', async () => {
    const other = { ...supportAgent({ serviceUrl: service.url }), name: 'billing' } as ReturnType<typeof supportAgent>;
    const { runId } = await startRun({ storage: holder.storage, registry: createAgentRegistry([other]), agent: 'billing', input: QUESTION(50) });
    executor.kick();
    await new Promise((resolve) => setTimeout(resolve, 500)); // several polls
    expect(await queueEntry(runId, { storage: holder.storage })).toMatchObject({ runnable: true, claims: 0, leaseOwner: null });
    await abandonRun(runId, { storage: holder.storage, by: 'test', reason: 'not this deployment' });
  });

  // Embedded only: one process per data folder is what makes the earlier lease certainly dead (on Postgres it is not).
  if (holder.kind === 'pglite')
    it('on the embedded journal it is the only executor: a run leased by an earlier process is taken at once', async () => {
      const { runId } = await startRun({ storage: holder.storage, registry, agent: 'support', input: QUESTION(99) });
      const queue = new RunQueue(() => holder.storage.database());
      // Another executor owned it until its process died (one process per data folder: it cannot still run).
      await executor.stop({ graceMs: 5_000 });
      const [claim] = await queue.claim({ owner: 'earlier-process', limit: 1, leaseMs: 600_000, runId });
      expect(claim?.runId).toBe(runId);
      executor = new Executor({ storage: holder.storage, registry, concurrency: 3, leaseMs: 5_000, pollMs: 100 }).start();
      const entry = await settled(runId, 'completed');
      expect(entry.claims).toBe(2);
    });

  it('wraps each invocation in its aroundInvocation: called once per invocation with the run and its agent, invoke inside it', async () => {
    await executor.stop({ graceMs: 5_000 });
    const seen: { runId: string; agent: string; statusAfter: string | undefined }[] = [];
    executor = new Executor({
      storage: holder.storage,
      registry,
      concurrency: 3,
      leaseMs: 5_000,
      pollMs: 100,
      aroundInvocation: async (run, invoke) => {
        const result = await invoke();
        seen.push({ ...run, statusAfter: (await holder.storage.runs.getRun(run.runId))?.status });
        return result;
      },
    }).start();
    const { runId } = await executor.startRun({ agent: 'support', input: QUESTION(123) });
    await settled(runId, 'completed');
    expect(seen).toEqual([{ runId, agent: 'support', statusAfter: 'completed' }]);
  });
});

describe.skipIf(!DATABASE_URL)(`the executor's statements [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  it('startRun of a new run: the create, the enqueue, the read back; its invocation: nothing read for timers or a parent, no NOTIFY to nobody', async () => {
    const log = new StatementLog();
    // A database of its own: listeners of the shared one (other suites') would make every append announced (watch-locks.ts).
    const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_exec_count');
    const storage = countedPostgres(database.url, log, { max: 2 });
    const agent = refundAgent();
    const registry = createAgentRegistry([defineAgent({ name: 'counted', model: agent.scripted.model, tools: agent.tools, stopWhen: stepCountIs(3) })]);
    let finished: ((runId: string) => void) | undefined;
    const executor = new Executor({ storage, registry, concurrency: 1, pollMs: 20, onEvent: (e) => e.type === 'finished' && finished?.(e.runId) });
    const statementsAfter = (mark: string) => {
      const start = log.entries.findLastIndex((e) => e.kind === 'mark' && e.label === mark);
      return log.entries.slice(start + 1).flatMap((e) => (e.kind === 'statement' ? [`${e.role}: ${e.text.replace(/\s+/g, ' ').trim().slice(0, 70)}`] : []));
    };
    try {
      await startRun({ storage, registry, agent: 'counted', runId: uniqueRunId('warm'), input: { prompt: 'Refund o_17' } });
      log.mark('start');
      const { runId, created } = await startRun({ storage, registry, agent: 'counted', runId: uniqueRunId('counted'), input: { prompt: 'Refund o_17' } });
      const started = statementsAfter('start');
      console.log(`startRun of a new run: ${started.length} statements: ${started.join(' | ')}`);
      expect(created).toBe(true);
      // Before issue 31's stop 52, seven: a read, the hold taken, its load, the create, the hold given back, the enqueue, the read back.
      expect(started).toHaveLength(3);
      expect(started[0]).toMatch(/^gnl: with r as \( insert into gnl\.runs/);

      const warmSettled = new Promise<void>((resolve) => {
        finished = () => resolve();
      });
      executor.start();
      await warmSettled; // the warm-up run (the first claim checks the hold session once)
      const settled = new Promise<void>((resolve) => {
        finished = (id) => id === runId && resolve();
      });
      log.mark('executor');
      await settled;
      const invoked = statementsAfter('executor');
      expect((await storage.runs.getRun(runId))?.status).toBe('completed');
      expect(agent.ledger.total).toBe(2); // each run refunded once
      const writes = invoked.filter((text) => /^gnl: with r as \( update gnl\.runs/.test(text)).length;
      const other = invoked.filter((text) => !/^gnl: with r as \( update gnl\.runs/.test(text));
      console.log(`an executor's invocation of it: ${invoked.length} statements = ${writes} writes + ${other.join(' | ')}`);
      expect(writes).toBeGreaterThan(0);
      expect(other.filter((text) => /pg_notify/.test(text))).toEqual([]);
      // The invocation's one read of the run; a completed run without a parent reads nothing for its timers or its parent.
      expect(other.filter((text) => /from gnl\.runs where run_id/.test(text))).toHaveLength(1);
      // One read of its events: the version's choice and runDurable's first load share it (knownEvents).
      expect(other.filter((text) => /^gnl: \(select seq, type, payload/.test(text))).toHaveLength(1);
      expect(other.filter((text) => /^gnl: select .* from gnl\.run_queue where run_id/.test(text))).toEqual([]);
    } finally {
      await executor.stop({ graceMs: 1_000 });
      await storage.close();
      await database.drop();
    }
  });
});
