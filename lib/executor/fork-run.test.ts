/**
 * forkRun on real journals, with the demo support agent, its real outside service (judged by the
 * service's own counters) and its scripted model, counted: the shared part is replayed from the fork's
 * copy (no model call, no tool call), a repeated refund is answered from the parent's record under the
 * parent's key (nothing is sent), an instruction makes the fork continue differently, and the parent is unchanged.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stepCountIs } from 'ai';
import { SUPPORT_SYSTEM, supportAgent } from '@/agents/support';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { ScriptedSupportModel } from '@/lib/demo/scripted-support-model';
import { supportTools } from '@/lib/demo/support-tools';
import { ForkRefusedError, type RecordedEvent } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { Executor, forkRun, previewFork, queueEntry, startRun } from './index';

const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };
const QUESTION = { prompt: 'Customer c_42 has a question about order o_17' };
const OPS = 'ops@example.com';

/** The demo's scripted model, its real calls counted and their prompts kept. */
function countedModel(): { model: LanguageModelV4; calls: () => number; prompts: LanguageModelV4CallOptions['prompt'][] } {
  const inner = new ScriptedSupportModel();
  let calls = 0;
  const prompts: LanguageModelV4CallOptions['prompt'][] = [];
  const model: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: {},
    doGenerate: async (options) => {
      calls += 1;
      prompts.push(options.prompt);
      return inner.doGenerate(options);
    },
    doStream: async (options) => {
      calls += 1;
      prompts.push(options.prompt);
      return inner.doStream(options);
    },
  };
  return { model, calls: () => calls, prompts };
}

describeEachStorage('forkRun', (holder) => {
  let service: OutsideService;
  let counted: ReturnType<typeof countedModel>;
  let registry: ReturnType<typeof createAgentRegistry>;
  let executor: Executor;
  /** Runs only the streamed agent, with streamDurable (as the Studio's executor does). */
  let streamer: Executor;
  beforeAll(async () => {
    service = await startOutsideService();
    counted = countedModel();
    const support = supportAgent({ serviceUrl: service.url, model: counted.model });
    const streamed = defineAgent({
      name: 'support-streamed',
      model: counted.model,
      tools: supportTools({ serviceUrl: service.url, checks: true }),
      system: SUPPORT_SYSTEM,
      stopWhen: stepCountIs(12),
    });
    registry = createAgentRegistry([support, streamed]);
    const options = { storage: holder.storage, concurrency: 2, leaseMs: 5_000, pollMs: 100 };
    executor = new Executor({ ...options, registry: createAgentRegistry([support]) }).start();
    streamer = new Executor({ ...options, registry: createAgentRegistry([streamed]), streamRuns: true }).start();
    // Opened (and migrated) here: on a loaded machine PGlite can take a minute to start, not the first test's to pay.
    await holder.storage.database();
  }, 300_000);
  afterAll(async () => {
    await Promise.all([executor.stop({ graceMs: 5_000 }), streamer.stop({ graceMs: 5_000 })]);
    await service.close();
  });

  const journal = () => holder.storage.runs;

  const settled = async (runId: string, outcome: string) => {
    for (let i = 0; i < 600; i++) {
      const entry = await queueEntry(runId, { storage: holder.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return entry;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} did not settle as ${outcome}: ${JSON.stringify(await queueEntry(runId, { storage: holder.storage }))}`);
  };

  /** Approves the one refund the run waits for and runs it to the end. */
  const approveAndFinish = async (runId: string) => {
    await settled(runId, 'waiting-approval');
    const run = await journal().getRun(runId);
    expect(run?.pending).toMatchObject([{ kind: 'approval', toolName: 'issueRefund' }]);
    await journal().approve({ runId, toolCallId: run?.pending[0]?.toolCallId as string, by: OPS });
    await executor.resumeRun(runId, { by: OPS, reason: 'refund approved' });
    streamer.kick();
    await settled(runId, 'completed');
  };

  const keysOf = (events: RecordedEvent[], toolName: string) =>
    events.flatMap((e) => (e.type === 'tool-call-start' && e.toolName === toolName ? [e.idempotencyKey] : []));

  const completedParent = async (input: { prompt: string }, agent = 'support') => {
    const { runId } = await startRun({ storage: holder.storage, registry, agent, input });
    executor.kick();
    streamer.kick();
    return runId;
  };

  it('a fork at the refund step that refunds again is answered from the parent’s record under its key: the service sees one refund; the shared steps call neither the model nor a tool', async () => {
    const parentId = await completedParent(REFUND);
    await approveAndFinish(parentId);
    const parentEvents = await journal().events(parentId);
    const [refundKey] = keysOf(parentEvents, 'issueRefund');
    const [emailKey] = keysOf(parentEvents, 'sendEmail');
    expect(refundKey).toBeDefined();
    const before = service.stats();
    const callsBefore = counted.calls();

    // Step 3 is the refund step (lookup, ticket, refund, email, reply), as the Studio numbers it.
    const preview = await previewFork({ storage: holder.storage, registry, runId: parentId, atStep: 3 });
    expect(preview).toMatchObject({ runId: parentId, atStep: 3, sharedSteps: 2, rootRunId: parentId });
    expect(preview.repeatable.map((r) => [r.toolName, r.idempotencyKey, r.step, r.outcome])).toEqual([
      ['issueRefund', refundKey, 3, 'done'],
      ['sendEmail', emailKey, 4, 'done'],
    ]);
    // The calls whose result such a fork may edit: step 2's ticket, with the output the parent recorded.
    const ticketEnd = parentEvents.find((e) => e.type === 'tool-call-end' && e.toolName === 'createTicket');
    expect(preview.editableResults).toEqual([
      { toolCallId: (ticketEnd as { toolCallId: string }).toolCallId, toolName: 'createTicket', output: (ticketEnd as { output: unknown }).output },
    ]);
    expect(preview.sideEffectTools.map((t) => [t.toolName, t.keyScope])).toEqual([
      ['createTicket', 'root-args'],
      ['issueRefund', 'repeat-or-new'],
      ['sendEmail', 'repeat-or-new'],
    ]);

    const forked = await forkRun({ storage: holder.storage, registry, runId: parentId, atStep: 3, by: OPS, reason: 'check the refund path again' });
    expect(forked).toMatchObject({ forkOf: parentId, created: true, agent: 'support' });
    executor.kick();
    await approveAndFinish(forked.runId);

    const after = service.stats();
    // The outside service's own counters: the repeat was answered from the parent's record (the door's
    // related-effects.ts) and never sent; the key the service knows is the first refund's, used once.
    expect(after.refunds.requests - before.refunds.requests).toBe(0);
    expect(after.refunds.performed - before.refunds.performed).toBe(0);
    expect(after.refunds.byKey[refundKey as string]).toEqual({ requests: 1, performed: 1 });
    expect(after.emails.requests - before.emails.requests).toBe(0);
    expect(after.emails.performed - before.emails.performed).toBe(0);
    // The shared part (lookup, ticket) was replayed from the copy: neither tool reached the service.
    expect(after.customerLookups).toBe(before.customerLookups);
    expect(after.tickets.requests).toBe(before.tickets.requests);
    // Steps 3, 4 and 5 were asked; steps 1 and 2 were not, in either of the fork's two invocations.
    expect(counted.calls() - callsBefore).toBe(3);

    const forkEvents = await journal().events(forked.runId);
    expect(keysOf(forkEvents, 'issueRefund')).toEqual([]);
    expect(forkEvents.filter((e) => e.type === 'tool-call-end' && e.toolName === 'issueRefund')).toMatchObject([
      { idempotencyKey: refundKey, source: 'deduplicated', inheritedFrom: parentId },
    ]);
    expect(forkEvents[0]).toMatchObject({
      type: 'run-start',
      input: { forkOf: { runId: parentId, atStep: 3, by: OPS, reason: 'check the refund path again', rootRunId: parentId } },
    });
    expect(forkEvents.filter((e) => e.type === 'replay-mismatch')).toEqual([]);
    expect((await journal().getRun(forked.runId))?.status).toBe('completed');
  }, 180_000);

  it('leaves the parent as it was, but for one run-forked naming the fork, who and why', async () => {
    const parentId = await completedParent(QUESTION);
    await settled(parentId, 'completed');
    const before = await journal().events(parentId);
    const forked = await forkRun({ storage: holder.storage, registry, runId: parentId, atStep: 2, by: OPS, reason: 'audit trail' });
    executor.kick();
    await settled(forked.runId, 'completed');
    const after = await journal().events(parentId);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toMatchObject([{ type: 'run-forked', childRunId: forked.runId, atStep: 2, by: OPS, reason: 'audit trail' }]);
    expect((await journal().getRun(parentId))?.status).toBe('completed');
  });

  it.each(['support', 'support-streamed'])(
    'a fork with an instruction continues differently: it refunds where the parent did not, under a new key, and its replays ask what was asked (%s)',
    async (agent) => {
      const parentId = await completedParent(QUESTION, agent);
      await settled(parentId, 'completed');
      const parent = await journal().getRun(parentId);
      const before = service.stats();
      // Step 3 is the email step of a question (lookup, ticket, email, reply).
      const forked = await forkRun({
        storage: holder.storage,
        registry,
        runId: parentId,
        atStep: 3,
        by: OPS,
        reason: 'the customer asked for money back on the phone',
        edit: { instruction: 'The customer now wants a refund of 25 for it.' },
      });
      streamer.kick();
      await approveAndFinish(forked.runId);
      const after = service.stats();
      expect(after.refunds.performed - before.refunds.performed).toBe(1);
      const forkEvents = await journal().events(forked.runId);
      const [refundKey] = keysOf(forkEvents, 'issueRefund');
      expect(keysOf(await journal().events(parentId), 'issueRefund')).toEqual([]);
      expect(after.refunds.byKey[refundKey as string]).toEqual({ requests: 1, performed: 1 });
      expect(forkEvents.find((e) => e.type === 'tool-call-start' && e.toolName === 'issueRefund')).toMatchObject({ input: { orderId: 'o_17', amount: 25 } });
      const text = (await journal().getRun(forked.runId))?.status === 'completed' ? forkEvents.findLast((e) => e.type === 'run-complete') : undefined;
      expect(text).toMatchObject({ type: 'run-complete' });
      expect((text as { text: string }).text).toContain('Refunded 25');
      expect(parent?.status).toBe('completed');
      // The resumed invocation replayed step 3 with the instruction in its prompt, as first asked.
      expect(forkEvents.filter((e) => e.type === 'replay-mismatch')).toEqual([]);
    },
  );

  it('a fork of a fork that repeats the root’s refund is answered under the root’s key, and its args-keyed ticket is the root’s ticket', async () => {
    const rootId = await completedParent(REFUND);
    await approveAndFinish(rootId);
    const rootEvents = await journal().events(rootId);
    const [refundKey] = keysOf(rootEvents, 'issueRefund');
    // A asks only the final reply again (step 5): its copy holds the root's refund under the root's key.
    const a = await forkRun({ storage: holder.storage, registry, runId: rootId, atStep: 5, by: OPS, reason: 'reword the reply' });
    executor.kick();
    await settled(a.runId, 'completed');
    expect(keysOf(await journal().events(a.runId), 'issueRefund')).toEqual([refundKey]);
    const before = service.stats();
    const b = await forkRun({ storage: holder.storage, registry, runId: a.runId, atStep: 2, by: OPS, reason: 'from the ticket on' });
    expect(b.preview.rootRunId).toBe(rootId);
    expect(b.preview.repeatable.find((r) => r.toolName === 'issueRefund')?.idempotencyKey).toBe(refundKey);
    executor.kick();
    await approveAndFinish(b.runId);
    const after = service.stats();
    // Answered from the root's record (B's parent A holds the root's refund in its copy): nothing sent again.
    expect(after.refunds.performed - before.refunds.performed).toBe(0);
    expect(after.refunds.byKey[refundKey as string]?.requests).toBe(1);
    expect(after.tickets.performed - before.tickets.performed).toBe(0);
    expect(after.tickets.requests - before.tickets.requests).toBe(0);
    const bEnds = (await journal().events(b.runId)).filter((e) => e.type === 'tool-call-end');
    const keyOf = (toolName: string) => bEnds.find((e) => e.toolName === toolName)?.idempotencyKey;
    expect(keyOf('issueRefund')).toBe(refundKey);
    expect(keyOf('createTicket')).toBe(keysOf(rootEvents, 'createTicket')[0]);
  }, 180_000);

  it('a fork with an edited tool result of the last kept step: the model reads the operator’s output, recorded as provided by them', async () => {
    const parentId = await completedParent(QUESTION);
    await settled(parentId, 'completed');
    const ticketCall = (await journal().events(parentId)).find((e) => e.type === 'tool-call-end' && e.toolName === 'createTicket') as
      | Extract<RecordedEvent, { type: 'tool-call-end' }>
      | undefined;
    if (!ticketCall) throw new Error('the parent recorded no ticket');
    const output = { ok: true, ticket: { ...(ticketCall.output as { ticket: object }).ticket, ticketId: 'tk_edited' } };
    const before = service.stats();
    // Step 3 (the email) asked again; the ticket call is step 2's, the last step kept.
    const forked = await forkRun({
      storage: holder.storage,
      registry,
      runId: parentId,
      atStep: 3,
      by: OPS,
      reason: 'the ticket was merged into tk_edited',
      edit: { toolResult: { toolCallId: ticketCall.toolCallId, output } },
    });
    executor.kick();
    await settled(forked.runId, 'completed');
    const forkEvents = await journal().events(forked.runId);
    expect(forkEvents.find((e) => e.type === 'tool-call-end' && e.toolName === 'createTicket')).toMatchObject({
      output,
      source: 'provided',
      by: OPS,
      reason: 'the ticket was merged into tk_edited',
    });
    expect(service.stats().emails.performed - before.emails.performed).toBe(1);
    expect(service.records('emails').at(-1)).toMatchObject({ ticketId: 'tk_edited' });
    expect(service.stats().tickets.requests).toBe(before.tickets.requests);

    const notKept = await forkRun({
      storage: holder.storage,
      registry,
      runId: parentId,
      atStep: 4,
      by: OPS,
      reason: 'x',
      edit: { toolResult: { toolCallId: ticketCall.toolCallId, output } },
    }).catch((e) => e);
    expect(ForkRefusedError.isInstance(notKept) && notKept.reason).toBe('invalid-edit');
  });

  it('refuses a step the parent never reached and an unknown run, writing nothing; the same newRunId again is the same fork', async () => {
    const parentId = await completedParent(QUESTION);
    await settled(parentId, 'completed');
    const count = (await journal().events(parentId)).length;
    const refused = await forkRun({ storage: holder.storage, registry, runId: parentId, atStep: 9, by: OPS, reason: 'x' }).catch((e) => e);
    expect(ForkRefusedError.isInstance(refused) && refused.reason).toBe('no-such-step');
    const unknown = await forkRun({ storage: holder.storage, registry, runId: 'support:nope', atStep: 1, by: OPS, reason: 'x' }).catch((e) => e);
    expect(ForkRefusedError.isInstance(unknown) && unknown.reason).toBe('unknown-run');
    const noReason = await forkRun({ storage: holder.storage, registry, runId: parentId, atStep: 1, by: OPS, reason: ' ' }).catch((e) => e);
    expect(noReason).toMatchObject({ name: 'JournalDataError' });
    expect((await journal().events(parentId)).length).toBe(count);

    const newRunId = `${parentId}:fork-a`;
    const first = await forkRun({ storage: holder.storage, registry, runId: parentId, atStep: 1, by: OPS, reason: 'again', newRunId });
    const second = await forkRun({ storage: holder.storage, registry, runId: parentId, atStep: 1, by: OPS, reason: 'again', newRunId });
    expect([first.created, second.created]).toEqual([true, false]);
    expect((await journal().events(parentId)).filter((e) => e.type === 'run-forked')).toHaveLength(1);
    const taken = await forkRun({ storage: holder.storage, registry, runId: parentId, atStep: 1, by: OPS, reason: 'x', newRunId: parentId }).catch((e) => e);
    expect(ForkRefusedError.isInstance(taken) && taken.reason).toBe('run-id-taken');
    // The same id with another change is another request: refused, not answered with the fork made without it.
    const changed = await forkRun({
      storage: holder.storage,
      registry,
      runId: parentId,
      atStep: 1,
      by: OPS,
      reason: 'again',
      newRunId,
      edit: { instruction: 'Answer in French.' },
    }).catch((e) => e);
    expect(ForkRefusedError.isInstance(changed) && changed.reason).toBe('run-id-taken');
    expect((await journal().events(parentId)).filter((e) => e.type === 'run-forked')).toHaveLength(1);
    executor.kick();
    await settled(newRunId, 'completed');
  });
});
