/**
 * startRun and the operator functions on real journals: the run is recorded as runAgent would start it
 * and enqueued without executing; starts are idempotent by runId; resume, abandon and restart.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tool } from 'ai';
import { z } from 'zod';
import { supportAgent } from '@/agents/support';
import { AgentInputError, createAgentRegistry, defineAgent, runAgent, UnknownAgentError } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { gnlTool, RunDivergedError } from '@/lib/durable';
import { journalKeyFrom } from '@/lib/durable/storage';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { uniqueRunId } from '@/tests/support/journals';
import { refundAgent, refundScript } from '@/tests/support/refund-agent';
import { scriptedModel } from '@/tests/support/scripted-model';
import { abandonRun, Executor, type ExecutorEvent, previewRestart, queueEntry, RunNotResumableError, restartRun, resumeRun, startRun } from './index';
import { RunQueue } from './run-queue';

const PROMPT = { prompt: 'Customer c_42 asks about order o_17' };

describeEachStorage('startRun and run control', (holder) => {
  let service: OutsideService;
  let registry: ReturnType<typeof createAgentRegistry>;
  beforeAll(async () => {
    service = await startOutsideService();
    registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
  });
  afterAll(() => service.close());
  const ctx = () => ({ storage: holder.storage, registry });

  it("records the run's start input exactly as runAgent does, enqueues it runnable, and executes nothing", async () => {
    const started = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    expect(started).toMatchObject({ agent: 'support', created: true, run: { status: 'running' } });
    expect(started.runId).toMatch(/^support:[0-9a-f-]{36}$/);
    const direct = uniqueRunId('direct');
    await runAgent({ agent: registry.getAgent('support'), runId: direct, input: PROMPT, journal: holder.storage.runs });
    expect(started.run.input).toEqual((await holder.storage.runs.getRun(direct))?.input);
    expect(started.run.input).toMatchObject({ agent: 'support', agentVersion: registry.getAgent('support').version, prompt: PROMPT.prompt });
    expect((await holder.storage.runs.events(started.runId)).map((e) => e.type)).toEqual(['run-start']);
    expect(await queueEntry(started.runId, ctx())).toMatchObject({ agent: 'support', runnable: true, wakeups: 1, claims: 0, leaseOwner: null });
    const before = service.stats().customerLookups;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(service.stats().customerLookups).toBe(before); // only the direct runAgent call reached the service
  });

  it('the same runId with the same input returns the existing run; with another input or agent it is refused naming the field, writing nothing', async () => {
    const runId = uniqueRunId('start');
    const first = await startRun({ ...ctx(), agent: 'support', runId, input: PROMPT });
    const again = await startRun({ ...ctx(), agent: 'support', runId, input: PROMPT });
    expect(again).toMatchObject({ runId, created: false, run: { lastSeq: first.run.lastSeq } });

    const other = await startRun({ ...ctx(), agent: 'support', runId, input: { prompt: 'Customer c_7 asks' } }).catch((e: unknown) => e);
    expect(RunDivergedError.isInstance(other)).toBe(true);
    expect((other as RunDivergedError).differences.map((d) => d.field)).toEqual(['prompt']);
    const renamed = createAgentRegistry([supportAgent({ serviceUrl: service.url, checks: true }), renamedSupport()]);
    const otherAgent = await startRun({ storage: holder.storage, registry: renamed, agent: 'support-v2', runId, input: PROMPT }).catch((e: unknown) => e);
    expect((otherAgent as RunDivergedError).differences.map((d) => d.field)).toEqual(['agent']);
    expect((await holder.storage.runs.events(runId)).length).toBe(1);
  });

  it('a runId in another spelling is the same job: NFD starts, resumes and queues the NFC run; an invisible character is refused, naming it', async () => {
    const runId = uniqueRunId('caf\u00e9');
    const first = await startRun({ ...ctx(), agent: 'support', runId: runId.normalize('NFD'), input: PROMPT });
    expect(first).toMatchObject({ runId, created: true, run: { runId } });
    expect(first.run.input.keyScheme).toBe(3); // keyed like a run runAgent starts
    const again = await startRun({ ...ctx(), agent: 'support', runId, input: PROMPT });
    expect(again).toMatchObject({ runId, created: false });
    expect(await queueEntry(runId.normalize('NFD'), ctx())).toMatchObject({ runId, wakeups: 1 });
    const refused = await startRun({ ...ctx(), agent: 'support', runId: `${runId}\u202e`, input: PROMPT }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'InvalidRunIdError', message: expect.stringContaining('U+202E (a bidi control)') });
    expect((await holder.storage.runs.events(runId)).map((e) => e.type)).toEqual(['run-start']);
  });

  it('refuses bad requests before touching the journal: no registry, empty prompt, bad runId, unknown agent', async () => {
    const unregistered = uniqueRunId('no-registry');
    await expect(startRun({ storage: holder.storage, agent: 'support', runId: unregistered, input: PROMPT } as never)).rejects.toThrow(
      'The executor needs the agent registry it runs',
    );
    expect(await holder.storage.runs.getRun(unregistered)).toBeUndefined();
    await expect(startRun({ ...ctx(), agent: 'support', input: { prompt: ' ' } })).rejects.toThrow(AgentInputError);
    await expect(startRun({ ...ctx(), agent: 'support', runId: 'a\nb', input: PROMPT })).rejects.toThrow('runId');
    const unknown = await startRun({ ...ctx(), agent: 'billing', input: PROMPT }).catch((e: unknown) => e);
    expect(UnknownAgentError.isInstance(unknown)).toBe(true);
  });

  it('resumeRun makes a run runnable again; unknown, abandoned runs are refused with the reason', async () => {
    const unknown = await resumeRun(uniqueRunId('none'), { ...ctx(), by: 'alice@example.com' }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ name: 'RunNotResumableError', reason: 'unknown-run' });
    const { runId } = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    const resumed = await resumeRun(runId, { ...ctx(), by: 'alice@example.com' });
    expect(resumed.queue).toMatchObject({ runnable: true, wakeups: 2 });

    const abandoned = await abandonRun(runId, { ...ctx(), by: 'ops@example.com', reason: 'agent changed' });
    expect(abandoned.queue).toMatchObject({ runnable: false, abandonedBy: 'ops@example.com', abandonReason: 'agent changed', outcome: 'abandoned' });
    const refused = await resumeRun(runId, { ...ctx(), by: 'alice@example.com' }).catch((e: unknown) => e);
    expect(RunNotResumableError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain('was abandoned (by ops@example.com: agent changed)');
    // Recorded in the journal too: the run is canceled there, with the reason.
    expect(abandoned.run.status).toBe('canceled');
    expect((await holder.storage.runs.events(runId)).at(-1)).toMatchObject({ type: 'run-cancel', by: 'ops@example.com', reason: 'abandoned: agent changed' });
  });

  it('resumeRun with by journals who asked and why before waking the run; a refused resume writes nothing and wakes nothing', async () => {
    const journal = holder.storage.runs;
    const { runId } = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    const resumed = await resumeRun(runId, { ...ctx(), by: 'alice@example.com', reason: 'customer called back' });
    expect(resumed.queue).toMatchObject({ runnable: true, wakeups: 2 });
    expect(
      (await journal.events(runId)).map(({ type, ...e }) => ({ type, by: 'by' in e ? e.by : undefined, reason: 'reason' in e ? e.reason : undefined })),
    ).toEqual([
      { type: 'run-start', by: undefined, reason: undefined },
      { type: 'run-resume-request', by: 'alice@example.com', reason: 'customer called back' },
    ]);
    expect((await journal.getRun(runId))?.status).toBe('running');

    // Refused by the journal (no one named): nothing written, the queue not woken.
    await expect(resumeRun(runId, { ...ctx(), by: '  ' })).rejects.toMatchObject({ name: 'JournalDataError' });
    expect(await queueEntry(runId, ctx())).toMatchObject({ wakeups: 2 });
    // Not resumable: refused before the journal is asked.
    await abandonRun(runId, { ...ctx(), by: 'ops@example.com', reason: 'agent changed' });
    const count = (await journal.events(runId)).length;
    await expect(resumeRun(runId, { ...ctx(), by: 'alice@example.com' })).rejects.toMatchObject({ name: 'RunNotResumableError', reason: 'abandoned' });
    const canceled = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    await journal.cancel({ runId: canceled.runId, by: 'ops@example.com' });
    await expect(resumeRun(canceled.runId, { ...ctx(), by: 'alice@example.com' })).rejects.toMatchObject({ reason: 'canceled' });
    const direct = uniqueRunId('direct');
    const hold = await journal.hold(direct);
    await hold.create({ prompt: 'x', modelId: 'm', provider: 'p', toolNames: [] });
    await hold.release();
    await expect(resumeRun(direct, { ...ctx(), by: 'alice@example.com' })).rejects.toMatchObject({ reason: 'no-agent' });
    expect((await journal.events(runId)).length).toBe(count);
    expect((await journal.events(canceled.runId)).map((e) => e.type)).toEqual(['run-start', 'run-cancel']);
    expect((await journal.events(direct)).map((e) => e.type)).toEqual(['run-start']);
  });

  it('restartRun starts the same input as a new run of the agent as it is now and abandons the old one, both linked', async () => {
    const { runId } = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    const restarted = await restartRun(runId, { ...ctx(), by: 'ops@example.com' });
    expect(restarted).toMatchObject({ created: true, restartOf: runId, run: { input: { prompt: PROMPT.prompt, agent: 'support' } } });
    expect(restarted.runId).not.toBe(runId);
    expect(await queueEntry(runId, ctx())).toMatchObject({ runnable: false, abandonedBy: 'ops@example.com', restartedAs: restarted.runId });
    expect(await holder.storage.runs.getRun(runId)).toMatchObject({ status: 'canceled' });
    expect(await queueEntry(restarted.runId, ctx())).toMatchObject({ runnable: true, restartOf: runId });
    // The new run's run-start names the old run: the door answers its repeated side effects from that record.
    expect(restarted.run.input.restartOf).toEqual({ runId, by: 'ops@example.com' });
  });

  it('a run blocked on a side effect of unknown outcome is not restarted as the same job, writing nothing; decided first, or as a new attempt, it is', async () => {
    const charger = defineAgent({
      name: 'charger',
      model: scriptedModel(refundScript).model,
      tools: {
        refund: gnlTool(
          tool({
            inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
            execute: async (): Promise<{ refundId: string }> => {
              throw new Error('socket hang up');
            },
          }),
          { sideEffect: true },
        ),
      },
    });
    const context = { storage: holder.storage, registry: createAgentRegistry([charger]) };
    const runId = uniqueRunId('charger');
    await runAgent({ agent: charger, runId, input: { prompt: 'Refund o_17' }, journal: holder.storage.runs }).catch(() => undefined);
    expect((await holder.storage.runs.getRun(runId))?.status).toBe('blocked');
    const count = (await holder.storage.runs.events(runId)).length;
    const refused = await restartRun(runId, { ...context, by: 'ops@example.com' }).catch((error: unknown) => error);
    expect(RunNotResumableError.isInstance(refused) && refused.reason).toBe('blocked');
    expect((refused as Error).message).toContain('refund call-refund');
    expect((await holder.storage.runs.events(runId)).length).toBe(count);
    expect((await holder.storage.runs.getRun(runId))?.status).toBe('blocked');
    const fresh = await restartRun(runId, { ...context, by: 'ops@example.com', newAttempt: true });
    expect(fresh).toMatchObject({ created: true, restartOf: runId });
  });

  it('restartRun records the restart on the old run (one run-restarted naming the new run, before its cancel); the same restart again records nothing more', async () => {
    const { runId } = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    const newId = uniqueRunId('support:restart');
    const restarted = await restartRun(runId, { ...ctx(), by: 'ops@example.com', runId: newId });
    expect(restarted.runId).toBe(newId);
    const types = (await holder.storage.runs.events(runId)).map((e) => e.type);
    expect(types).toEqual(['run-start', 'run-restarted', 'run-cancel']);
    expect((await holder.storage.runs.events(runId)).find((e) => e.type === 'run-restarted')).toMatchObject({ restartedAs: newId, by: 'ops@example.com' });
    expect(await holder.storage.runs.recordRestart({ runId, restartedAs: newId, by: 'ops@example.com' })).toEqual({ recorded: false });
    await restartRun(runId, { ...ctx(), by: 'ops@example.com', runId: newId });
    expect((await holder.storage.runs.events(runId)).filter((e) => e.type === 'run-restarted')).toHaveLength(1);
    // A completed run is restarted too, and says so; a new attempt is recorded as one.
    const done = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    const hold = await holder.storage.runs.hold(done.runId);
    await hold.append([{ type: 'run-complete', text: 'done', finishReason: 'stop', steps: 1 }]);
    await hold.release();
    const again = await restartRun(done.runId, { ...ctx(), by: 'ops@example.com', newAttempt: true });
    expect((await holder.storage.runs.events(done.runId)).slice(-1)).toMatchObject([{ type: 'run-restarted', restartedAs: again.runId, newAttempt: true }]);
    await expect(holder.storage.runs.recordRestart({ runId: uniqueRunId('nobody'), restartedAs: newId, by: 'ops@example.com' })).rejects.toMatchObject({
      reason: 'unknown-run',
    });
  });

  it('restartRun names the restart on the old run before the new run exists: a process that dies between the two never leaves a new run its old run does not know of', async () => {
    const { runId } = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    const journal = holder.storage.runs;
    const createRun = journal.createRun?.bind(journal);
    expect(createRun).toBeDefined();
    const seenAtCreate: string[][] = [];
    journal.createRun = async (...args: Parameters<NonNullable<typeof createRun>>) => {
      // What the old run's record says at the moment the new run's start is written.
      seenAtCreate.push((await journal.events(runId)).filter((e) => e.type === 'run-restarted').map((e) => (e as { restartedAs: string }).restartedAs));
      return (createRun as NonNullable<typeof createRun>)(...args);
    };
    try {
      const restarted = await restartRun(runId, { ...ctx(), by: 'ops@example.com' });
      expect(seenAtCreate).toEqual([[restarted.runId]]);
      expect((await journal.events(runId)).map((e) => e.type)).toEqual(['run-start', 'run-restarted', 'run-cancel']);
    } finally {
      journal.createRun = createRun;
    }
    // A restart named as the run it restarts is refused: it would be that run, abandoned and linked to itself.
    const self = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    await expect(restartRun(self.runId, { ...ctx(), by: 'ops@example.com', runId: self.runId })).rejects.toThrow('A restart is a new run');
    expect((await journal.events(self.runId)).map((e) => e.type)).toEqual(['run-start']);
    // A restart under an id another run holds links nothing to that run: the start refuses it, the old run names no restart.
    const other = await startRun({ ...ctx(), agent: 'support', input: { prompt: 'Something else entirely' } });
    const second = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    await expect(restartRun(second.runId, { ...ctx(), by: 'ops@example.com', runId: other.runId })).rejects.toThrow();
    expect((await journal.events(second.runId)).filter((e) => e.type === 'run-restarted')).toEqual([]);
  });

  it('previewRestart says what a restart does with each recorded side effect; a new attempt is asked for explicitly and recorded with who asked', async () => {
    const { runId } = await startRun({ ...ctx(), agent: 'support', input: PROMPT });
    const hold = await holder.storage.runs.hold(runId);
    const started = { type: 'tool-call-start', toolName: 'issueRefund', attempt: 1, sideEffect: true } as const;
    await hold.append([
      { ...started, toolCallId: 'c1', input: { orderId: 'o_1', amount: 5 }, idempotencyKey: 'k-done' },
      {
        type: 'tool-call-end',
        toolCallId: 'c1',
        toolName: 'issueRefund',
        idempotencyKey: 'k-done',
        attempt: 1,
        output: { ok: true },
        durationMs: 1,
        source: 'executed',
      },
      { ...started, toolCallId: 'c2', input: { orderId: 'o_2', amount: 5 }, idempotencyKey: 'k-unknown' },
    ]);
    await hold.release();
    const preview = await previewRestart(runId, ctx());
    expect(preview.sideEffects.map((e) => [e.idempotencyKey, e.onRepeat])).toEqual([
      ['k-done', 'answered'],
      ['k-unknown', 'stops'],
    ]);
    expect((await previewRestart(runId, { ...ctx(), newAttempt: true })).sideEffects.map((e) => e.onRepeat)).toEqual(['runs-again', 'runs-again']);
    const restarted = await restartRun(runId, { ...ctx(), by: 'ops@example.com', newAttempt: true });
    expect(restarted.run.input.restartOf).toEqual({ runId, by: 'ops@example.com', newAttempt: true });
  });
});

function renamedSupport() {
  const base = supportAgent();
  return { ...base, name: 'support-v2' } as typeof base;
}

describeEachStorage(
  'an erased run and the executor',
  (holder) => {
    it('a retry that comes due after the run was erased is settled as erased: nothing runs, the refund does not execute, it is not claimed again', async () => {
      const agentName = `erased-${uniqueRunId('a').slice(2, 10)}`;
      let providerDown = true;
      const refund = refundAgent();
      const model = scriptedModel((step) => {
        if (providerDown) throw Object.assign(new Error('provider down'), { name: 'ProviderDown' });
        return refundScript(step);
      }).model;
      const registry = createAgentRegistry([defineAgent({ name: agentName, model, tools: refund.tools, maxRetries: 0 })]);
      const finished: ExecutorEvent[] = [];
      const waiters: (() => void)[] = [];
      const executor = new Executor({
        storage: holder.storage,
        registry,
        leaseMs: 5_000,
        pollMs: 20,
        onEvent: (event) => {
          if (event.type !== 'finished') return;
          finished.push(event);
          for (const wake of waiters.splice(0)) wake();
        },
      }).start();
      const nextFinish = async (count: number) => {
        while (finished.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
        return finished[count - 1];
      };
      try {
        const { runId } = await startRun({ storage: holder.storage, registry, agent: agentName, input: { prompt: 'Refund o_17' } });
        expect(await nextFinish(1)).toMatchObject({ runId, outcome: 'failed' });
        expect(await holder.storage.erasure.erase({ runIds: [runId], by: 'dpo@acme', reason: 'request #885' })).toMatchObject([{ outcome: 'erased' }]);

        // A retry scheduled before the erasure comes due: the executor claims the run, meets the erasure, settles it.
        providerDown = false;
        await new RunQueue(() => holder.storage.database()).wake(runId);
        expect(await nextFinish(2)).toMatchObject({ runId, kind: 'settled', outcome: 'erased' });
        expect(refund.ledger.total).toBe(0);
        expect(await queueEntry(runId, { storage: holder.storage })).toMatchObject({ runnable: false, outcome: 'erased' });
        expect((await holder.storage.runs.getRun(runId))?.status).toBe('failed');
      } finally {
        await executor.stop({ graceMs: 5_000 });
      }
    }, 60_000);
  },
  { secrets: { key: journalKeyFrom(randomBytes(32).toString('base64')), runKeys: true, onClearText: () => {} } },
);
