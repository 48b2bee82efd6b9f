/**
 * Workflows run by a real executor on both journals: a step that sends an email through the one door
 * (counted by the outside service itself), child workflow runs fanned out and waited for without a worker,
 * an event sent from outside that wakes the run, a durable sleep woken by the queue's timer, and a cancel
 * that reaches the children. Waits are on the journal's state, never on a guessed duration.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { defineWorkflow, exportRun, exportText, parseRunExport, planImport, RunState, runWorkflow } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { until, untilStatus } from '@/tests/support/run-waits';
import { scriptedModel } from '@/tests/support/scripted-model';
import { wordEmbeddingModel } from '@/tests/support/word-embeddings';
import { cancelRun, Executor, forkRun, migrateRun, previewFork, previewMigration, sendEvent, startWorkflow } from './index';
import { dropExpiredRuns, retentionLog, retentionPolicy } from './retention';
import { RunQueue } from './run-queue';
import { workflowChildren } from './workflows';

describeEachStorage('workflows in the executor', (holder) => {
  let service: OutsideService;
  let executor: Executor;
  let registry: ReturnType<typeof createAgentRegistry>;
  beforeAll(() => holder.storage.database().then(() => undefined), 300_000);
  beforeAll(async () => {
    service = await startOutsideService();
    const post = (path: string, body: unknown, key: string) =>
      fetch(`${service.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      }).then(async (response) => {
        if (!response.ok) throw new Error(`${path} answered ${response.status}`);
        return (await response.json()) as unknown;
      });
    const email = (to: string, key: string) =>
      fetch(`${service.url}/emails`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ to, subject: 'Your ticket', body: 'We are on it.' }),
      }).then(async (response) => {
        if (!response.ok) throw new Error(`emails answered ${response.status}`);
        return (await response.json()) as unknown;
      });
    const notify = defineWorkflow({
      name: 'notify-one',
      input: z.object({ to: z.string() }),
      run: async (wf, { to }) => {
        await wf.step('send-email', { sideEffect: true, retrySafe: true, input: { to } }, ({ idempotencyKey }) => email(to, idempotencyKey));
        return to;
      },
    });
    const followUp = defineWorkflow({
      name: 'follow-up',
      input: z.object({ customers: z.array(z.string()) }),
      events: { 'customer-reply': z.object({ text: z.string() }) },
      run: async (wf, { customers }) => {
        const notified = await wf.all(
          'notify',
          customers.map((to) => ({ workflow: 'notify-one', input: { to } })),
          { concurrency: 2 },
        );
        const reply = await wf.waitForEvent<{ text: string }>('customer-reply', { timeoutMs: 600_000 });
        await wf.sleep('cool-off', 300);
        return { notified: notified.length, reply: reply.timedOut ? null : reply.payload.text };
      },
    });
    const waitsForever = defineWorkflow({
      name: 'waits-forever',
      input: z.object({}),
      run: async (wf) => wf.child('child', { workflow: 'follow-up', input: { customers: ['z@x'] } }).catch(() => 'x'),
    });
    // Two versions of one workflow: the same steps, another answer. Listed last, version 1 is the current one.
    const versioned = (version: string) =>
      defineWorkflow({
        name: 'versioned',
        version,
        input: z.object({}),
        // Version 2's event names a ticket: a run migrated to it is sent events its version 2 checks.
        events: { go: version === '1' ? z.object({}) : z.object({ ticket: z.string() }) },
        run: async (wf) => {
          const first = await wf.step('first', { input: null }, () => 'ran once');
          await wf.waitForEvent('go', { timeoutMs: 600_000 });
          return `${first} on version ${version}`;
        },
      });
    // A refund, a child, an email: forked at each step (the fork test). Two versions, b the current one.
    const refundFlow = (version: string) =>
      defineWorkflow({
        name: 'refund-flow',
        version,
        input: z.object({ orderId: z.string() }),
        run: async (wf, { orderId }) => {
          const amount = await wf.step('look-up', { input: { orderId } }, () => 40);
          const refund = await wf.step('refund', { sideEffect: true, retrySafe: true, input: { orderId, amount } }, ({ idempotencyKey }) =>
            post('/refunds', { customerId: 'c_42', orderId, amount }, idempotencyKey),
          );
          const notified = await wf.child('notify', { workflow: 'notify-one', input: { to: 'c42@x' } });
          await wf.step('email', { sideEffect: true, retrySafe: true, input: { to: 'c42@x' } }, ({ idempotencyKey }) => email('c42@x', idempotencyKey));
          return { amount, version, refund, notified };
        },
      });
    // Its runs are given their subject's memory, in the executor's store (no store declared).
    const remembers = defineWorkflow({
      name: 'remembers-customer',
      input: z.object({ note: z.string() }),
      memory: { embeddingModel: wordEmbeddingModel() },
      run: async (wf, { note }) => (await wf.memory.remember('note', [note])).remembered.length,
    });
    // Schemas that transform: the input and the event's payload are recorded as given, parsed at each use.
    const transforms = defineWorkflow({
      name: 'transforms',
      input: z.object({ amount: z.string().transform(Number) }),
      events: { approved: z.object({ cents: z.string().transform(Number) }) },
      run: async (wf, { amount }) => {
        const approved = await wf.waitForEvent<{ cents: number }>('approved', { timeoutMs: 600_000 });
        return approved.timedOut ? null : amount + approved.payload.cents;
      },
    });
    registry = createAgentRegistry([], {
      workflows: [notify, followUp, waitsForever, versioned('2'), versioned('1'), remembers, refundFlow('a'), refundFlow('b'), transforms],
    });
    executor = new Executor({ storage: holder.storage, registry, leaseMs: 5_000, pollMs: 25 }).start();
  });
  afterAll(async () => {
    await executor?.stop({ graceMs: 5_000 });
    await service?.close();
  });

  const journal = () => holder.storage.runs;
  const status = (runId: string, wanted: string) => untilStatus(journal(), runId, wanted);

  it('fans out child runs, waits for an event sent from outside and for a sleep, each email sent once by the service’s count', async () => {
    const before = service.stats().emails;
    const { runId } = await startWorkflow({ storage: holder.storage, registry, workflow: 'follow-up', input: { customers: ['a@x', 'b@x', 'c@x'] } });
    // The children ran and the parent now waits for the reply, holding no worker.
    await until('the wait for customer-reply', async () => {
      const state = new RunState(await journal().events(runId));
      return state.status === 'waiting' && [...state.workflowWaits.values()].some((w) => w.wait.kind === 'event') ? true : undefined;
    });
    // The worker lets go of it (its invocation ends just after the wait is written).
    await until('the worker to let go', async () => (executor.activeRuns.includes(runId) ? undefined : true));
    await expect(sendEvent({ storage: holder.storage, registry, runId, name: 'customer-reply', payload: { text: 7 }, by: 'desk' })).rejects.toMatchObject({
      reason: 'invalid-payload',
    });
    const sent = await sendEvent({
      storage: holder.storage,
      registry,
      runId,
      name: 'customer-reply',
      eventId: 'reply-1',
      payload: { text: 'thanks' },
      by: 'desk',
    });
    const again = await sendEvent({
      storage: holder.storage,
      registry,
      runId,
      name: 'customer-reply',
      eventId: 'reply-1',
      payload: { text: 'thanks' },
      by: 'desk',
    });
    expect([sent.recorded, again.recorded]).toEqual([true, false]);
    await status(runId, 'completed');
    const state = new RunState(await journal().events(runId));
    expect(state.completedOutput).toEqual({ notified: 3, reply: 'thanks' });
    const after = service.stats().emails;
    expect(after.performed - before.performed).toBe(3);
    for (const k of [0, 1, 2]) {
      const child = await journal().getRun(`${runId}/notify/${k}`);
      expect(child?.status).toBe('completed');
      expect(child?.input.parent).toEqual({ runId, waitId: 'wf-0' });
    }
    // Exported and imported elsewhere as another run: its waits, its event and its output read back the same.
    const parsed = parseRunExport(exportText(await exportRun({ journal: journal(), runId })));
    const copyId = `${runId}-copy`;
    await journal().importRun(planImport({ parsed, by: 'test', runId: copyId }));
    const copy = new RunState(await journal().events(copyId));
    expect(copy.status).toBe('completed');
    expect(copy.completedOutput).toEqual(state.completedOutput);
    expect([...copy.workflowWaits.values()].map((w) => [w.name, w.end?.outcome])).toEqual(
      [...state.workflowWaits.values()].map((w) => [w.name, w.end?.outcome]),
    );
    expect(copy.workflowEvents.map((e) => e.eventId)).toEqual(['reply-1']);
  });

  it('forks a workflow run at a step: the kept steps replay, a repeated side effect answers under the parent’s key, an edited result is new work, children after the fork are the fork’s own (the service’s counts)', async () => {
    const counts = () => ({ refunds: service.stats().refunds.performed, emails: service.stats().emails.performed });
    const before = counts();
    const { runId } = await startWorkflow({ storage: holder.storage, registry, workflow: 'refund-flow', input: { orderId: 'o_17' } });
    await status(runId, 'completed');
    const parentState = new RunState(await journal().events(runId));
    expect(parentState.completedOutput).toMatchObject({ amount: 40, version: 'b' });
    // One refund, two emails (the child's and the last step's).
    expect(counts()).toEqual({ refunds: before.refunds + 1, emails: before.emails + 2 });
    const keyOf = (state: RunState, id: string) => state.keyOfCall.get(id);
    const fork = (atStep: number, extra: Partial<Parameters<typeof forkRun>[0]> = {}) =>
      forkRun({ storage: holder.storage, registry, runId, atStep, by: 'ops@acme', reason: 'again', ...extra });

    // Refused, nothing written: an edit of a step that is not the last kept, an instruction, an unknown version, a step never reached.
    const lastSeq = (await journal().getRun(runId))?.lastSeq;
    await expect(fork(3, { edit: { toolResult: { toolCallId: 'wf-0', output: 1 } } })).rejects.toMatchObject({
      name: 'ForkRefusedError',
      reason: 'invalid-edit',
    });
    await expect(fork(2, { edit: { instruction: 'be kind' } })).rejects.toMatchObject({ reason: 'invalid-edit' });
    await expect(fork(2, { edit: { version: 'z' } })).rejects.toMatchObject({ reason: 'invalid-edit', message: expect.stringContaining('registered: a, b') });
    await expect(fork(9)).rejects.toMatchObject({ reason: 'no-such-step', message: expect.stringContaining('recorded 4 workflow steps') });
    expect((await journal().getRun(runId))?.lastSeq).toBe(lastSeq);

    // At step 3 (the child), on version a: the look-up and the refund replay; the child is the fork's own; the
    // last email is the same step with the same arguments: the parent's key, answered from its record.
    const atChild = await fork(3, { edit: { version: 'a' } });
    expect(atChild.preview).toMatchObject({ sharedSteps: 2, workflow: { name: 'refund-flow', version: 'a' } });
    expect(atChild.preview.repeatable.map((r) => [r.toolCallId, r.toolName, r.outcome])).toEqual([['wf-3', 'email', 'done']]);
    await status(atChild.runId, 'completed');
    const childFork = new RunState(await journal().events(atChild.runId));
    expect(childFork.completedOutput).toMatchObject({ amount: 40, version: 'a' });
    expect(keyOf(childFork, 'wf-1')).toBe(keyOf(parentState, 'wf-1'));
    expect(keyOf(childFork, 'wf-3')).toBe(keyOf(parentState, 'wf-3'));
    const ownChild = await journal().getRun(`${atChild.runId}/notify`);
    expect(ownChild?.status).toBe('completed');
    expect(ownChild?.input.parent).toEqual({ runId: atChild.runId, waitId: 'wf-2' });
    expect((await journal().getRun(`${runId}/notify`))?.input.parent).toEqual({ runId, waitId: 'wf-2' });
    // Only the fork's child emailed: no second refund, no second last email.
    expect(counts()).toEqual({ refunds: before.refunds + 1, emails: before.emails + 3 });

    // At step 2 with the look-up's result changed: the refund of another amount is new work under a new key.
    const edited = await fork(2, { edit: { toolResult: { toolCallId: 'wf-0', output: 25 } } });
    await status(edited.runId, 'completed');
    const editedState = new RunState(await journal().events(edited.runId));
    expect(editedState.completedOutput).toMatchObject({ amount: 25, version: 'b' });
    expect(keyOf(editedState, 'wf-1')).not.toBe(keyOf(parentState, 'wf-1'));
    expect(keyOf(editedState, 'wf-3')).toBe(keyOf(parentState, 'wf-3'));
    expect(counts()).toEqual({ refunds: before.refunds + 2, emails: before.emails + 4 });
    expect(service.records('refunds').at(-1)).toMatchObject({ orderId: 'o_17', amount: 25 });

    // Imported elsewhere as a copy under another id: a fork of the copy makes its 'args' keys from the exported run, as the copy's own calls do.
    const parsed = parseRunExport(exportText(await exportRun({ journal: journal(), runId })));
    const copyId = `${runId}-copy`;
    await journal().importRun(planImport({ parsed, by: 'test', runId: copyId }));
    expect((await previewFork({ storage: holder.storage, registry, runId: copyId, atStep: 2 })).rootRunId).toBe(runId);
  });

  it('a workflow whose schemas transform its input and an event’s payload runs on an executor: started, woken by the event, completed', async () => {
    const { runId } = await startWorkflow({ storage: holder.storage, registry, workflow: 'transforms', input: { amount: '12' }, by: 'ops@acme' });
    await status(runId, 'waiting');
    await expect(sendEvent({ storage: holder.storage, registry, runId, name: 'approved', payload: { cents: 30 }, by: 'desk' })).rejects.toMatchObject({
      reason: 'invalid-payload',
    });
    await sendEvent({ storage: holder.storage, registry, runId, name: 'approved', payload: { cents: '30' }, by: 'desk' });
    await status(runId, 'completed');
    expect(new RunState(await journal().events(runId)).completedOutput).toBe(42);
  });

  it('retention covers workflow runs: the fleet default drops an ended parent with its children, one log row each; a waiting run is kept', async () => {
    const { runId } = await startWorkflow({ storage: holder.storage, registry, workflow: 'follow-up', input: { customers: ['r@x', 's@x'] } });
    await status(runId, 'waiting');
    await sendEvent({ storage: holder.storage, registry, runId, name: 'customer-reply', payload: { text: 'ok' }, by: 'desk' });
    await status(runId, 'completed');
    const open = await startWorkflow({ storage: holder.storage, registry, workflow: 'follow-up', input: { customers: [] } });
    await status(open.runId, 'waiting');
    // The policy is the registry's, workflows included (their runs record the workflow's name).
    const policy = retentionPolicy({ registry, defaultDays: 1 });
    expect(policy.agents.map((a) => a.agent)).toEqual([
      'follow-up',
      'notify-one',
      'refund-flow',
      'remembers-customer',
      'transforms',
      'versioned',
      'waits-forever',
    ]);
    const result = await dropExpiredRuns({
      storage: holder.storage,
      policy,
      now: new Date(Date.now() + 2 * 86_400_000),
      droppedBy: 'test-retention',
      batchSize: 1000,
    });
    const dropped = result.dropped.map((r) => r.runId);
    expect(dropped).toEqual(expect.arrayContaining([runId, `${runId}/notify/0`]));
    expect(dropped).not.toContain(open.runId);
    expect(await journal().getRun(runId)).toBeUndefined();
    expect(await journal().getRun(`${runId}/notify/0`)).toBeUndefined();
    expect((await journal().getRun(open.runId))?.status).toBe('waiting');
    const log = await retentionLog({ storage: holder.storage, agent: 'follow-up' });
    expect(log.map((e) => e.runId)).toContain(runId);
  });

  it('a waiting workflow run migrated to another registered version keeps its steps and finishes on the new code; unknown or same versions are refused', async () => {
    const { runId } = await startWorkflow({ storage: holder.storage, registry, workflow: 'versioned', input: {} });
    await status(runId, 'waiting');
    expect((await journal().getRun(runId))?.input.workflow?.version).toBe('1');
    const preview = await previewMigration(runId, { storage: holder.storage, registry, to: '2' });
    expect(preview).toMatchObject({ agent: 'versioned', from: '1', to: '2', safe: true, refusals: [], changed: [{ field: 'workflow version' }] });
    expect(preview.kept.map((k) => k.toolName)).toEqual(['first']);
    await expect(migrateRun(runId, { storage: holder.storage, registry, to: '9', by: 'ops@acme', reason: 'x' })).rejects.toMatchObject({
      reason: 'unknown-version',
    });
    await expect(migrateRun(runId, { storage: holder.storage, registry, to: '1', by: 'ops@acme', reason: 'x' })).rejects.toMatchObject({
      reason: 'same-version',
    });
    const migrated = await migrateRun(runId, { storage: holder.storage, registry, to: '2', by: 'ops@acme', reason: 'the fix is in version 2' });
    expect(migrated.event).toMatchObject({ type: 'run-migrate', fromVersion: '1', toVersion: '2', by: 'ops@acme' });
    // The payload is checked by the version the run was migrated to, not the one it started on.
    await expect(sendEvent({ storage: holder.storage, registry, runId, name: 'go', payload: {}, by: 'desk' })).rejects.toMatchObject({
      reason: 'invalid-payload',
    });
    await sendEvent({ storage: holder.storage, registry, runId, name: 'go', payload: { ticket: 'T-1' }, by: 'desk' });
    await status(runId, 'completed');
    const state = new RunState(await journal().events(runId));
    expect(state.completedOutput).toBe('ran once on version 2');
    // The step recorded on version 1 was replayed, not run again.
    expect([...state.operations.values()].filter((op) => op.toolName === 'first')).toHaveLength(1);
  });

  it('a registered workflow with memory, started with a subject, remembers in the executor’s store for that subject', async () => {
    const subject = `customer:wf-${crypto.randomUUID()}`;
    const { runId } = await startWorkflow({
      storage: holder.storage,
      registry,
      workflow: 'remembers-customer',
      input: { note: 'called about the lamp' },
      subject,
    });
    await status(runId, 'completed');
    expect((await holder.storage.memory.items({ resource: subject, limit: 10 })).map((item) => [item.text, item.runId])).toEqual([
      ['called about the lamp', runId],
    ]);
  });

  it('a cancel of a waiting parent reaches its open child, recorded with who and why', async () => {
    const { runId } = await startWorkflow({ storage: holder.storage, registry, workflow: 'waits-forever', input: {} });
    const childId = `${runId}/child`;
    await status(childId, 'waiting');
    await status(runId, 'waiting');
    await cancelRun(runId, { storage: holder.storage, by: 'ops@acme', reason: 'customer left' });
    const child = new RunState(await journal().events(childId));
    expect(child.status).toBe('canceled');
    expect(child.canceled).toEqual({ by: 'ops@acme', reason: `parent run ${runId} was canceled: customer left` });
  });
});

// No executor runs here: the test plays the child's executor itself, so the moment between a child's
// run-fail and its executor's decision (a run-retry, or none) is held open deterministically.
describeEachStorage('a failed child and its executor’s decision', (holder) => {
  const flaky = defineAgent({ name: 'flaky', model: scriptedModel(() => ({ text: 'done' })).model, tools: {}, retry: { attempts: 2, initialDelayMs: 0 } });
  const parentFlow = defineWorkflow({
    name: 'waits-on-flaky',
    input: z.object({}),
    run: async (wf) => {
      try {
        return { answer: await wf.child<string>('c', { agent: 'flaky', input: { prompt: 'go' } }) };
      } catch (error) {
        return { failed: (error as Error).message };
      }
    },
  });
  const registry = createAgentRegistry([flaky], { workflows: [parentFlow] });

  it('is not the parent’s to take while its executor may still journal a retry: the parent waits until the child’s invocation is finished', async () => {
    const context = { storage: holder.storage, registry };
    const { runId } = await startWorkflow({ ...context, workflow: 'waits-on-flaky', input: {} });
    const invokeParent = () => runWorkflow({ workflow: parentFlow, runId, input: {}, journal: holder.storage.runs, children: workflowChildren(context) });
    expect((await invokeParent()).status).toBe('waiting');
    const childId = `${runId}/c`;
    // The child's executor claims it, and its invocation journals a transient failure; the retry is not decided yet.
    const queue = new RunQueue(() => holder.storage.database());
    const [claim] = await queue.claim({ owner: 'child-executor', limit: 1, leaseMs: 60_000, runId: childId });
    expect(claim?.runId).toBe(childId);
    const hold = await holder.storage.runs.hold(childId);
    await hold.append([{ type: 'run-fail', error: { name: 'AI_APICallError', message: 'Too Many Requests' } }]);
    await hold.release();
    // Woken meanwhile (another child settled, an event): the parent does not take the failure.
    expect(await invokeParent()).toMatchObject({ status: 'waiting' });
    expect(new RunState(await holder.storage.runs.events(runId)).status).toBe('waiting');
    // The executor decides: no retry (its invocation finished, the run is not runnable). Now the failure is final.
    expect(await queue.finish({ runId: childId, owner: 'child-executor', wakeups: claim?.wakeups ?? 0, runnable: 'done', outcome: 'failed' })).toBe(true);
    expect(await invokeParent()).toMatchObject({ status: 'completed', output: { failed: expect.stringContaining('Too Many Requests') } });
  });
});
