/**
 * A sub-agent used as a tool, run by a real executor on both journals: the lead agent's model hands the
 * refund to the demo support agent (subAgentTool); the support agent runs as a child run with a parent
 * link, its refund waits for an approval of its own, and once approved and sent (counted by the outside
 * service) its answer comes back to the lead's model as the call's result, recorded by "run <child>".
 * A cancel of a lead that waits for its sub-agent reaches the child, also one it adopted from the job (a
 * restart's old run's); never one another run of the job still waits for.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { stepCountIs } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { RunState, subAgentTool } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { untilStatus } from '@/tests/support/run-waits';
import { scriptedModel } from '@/tests/support/scripted-model';
import { abandonRun, cancelRun, Executor, forkRun, restartRun, resumeRun, startRun } from './index';
import { RunQueue } from './run-queue';

/** The lead's model: one delegate call, then the sub-agent's answer as its own. */
function leadModel() {
  return scriptedModel((step, prompt: LanguageModelV4Prompt) => {
    if (step === 0)
      return { toolCalls: [{ toolCallId: 'call-1-delegate', toolName: 'delegate', input: { task: 'Customer c_42 wants a refund for order o_17' } }] };
    const result = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).find((part) => part.type === 'tool-result');
    return { text: `Done: ${JSON.stringify(result && 'output' in result ? result.output : null)}` };
  });
}

describeEachStorage('sub-agents as tools', (holder) => {
  let service: OutsideService;
  let executor: Executor;
  let registry: ReturnType<typeof createAgentRegistry>;
  beforeAll(() => holder.storage.database().then(() => undefined), 300_000);
  beforeAll(async () => {
    service = await startOutsideService();
    const lead = defineAgent({
      name: 'lead',
      model: leadModel().model,
      tools: { delegate: subAgentTool({ agent: 'refunds', description: 'Hand a refund to the refunds agent' }) },
      stopWhen: stepCountIs(4),
    });
    registry = createAgentRegistry([lead, supportAgent({ name: 'refunds', serviceUrl: service.url, checks: true })]);
    executor = new Executor({ storage: holder.storage, registry, leaseMs: 5_000, pollMs: 25 }).start();
  });
  afterAll(async () => {
    await executor?.stop({ graceMs: 5_000 });
    await service?.close();
  });

  const journal = () => holder.storage.runs;
  const status = (runId: string, wanted: string) => untilStatus(journal(), runId, wanted);

  it('the sub-agent runs as a child with its own approval; its answer is the call’s result and the refund is sent once', async () => {
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42' } });
    const childId = `${runId}/call-1-delegate`;
    await status(runId, 'waiting-tool-result');
    await status(childId, 'waiting-approval');
    const child = await journal().getRun(childId);
    expect(child?.input).toMatchObject({
      agent: 'refunds',
      prompt: 'Customer c_42 wants a refund for order o_17',
      parent: { runId, waitId: 'call-1-delegate' },
    });
    const approval = child?.pending.find((item) => item.kind === 'approval');
    expect(approval?.toolName).toBe('issueRefund');
    await journal().approve({ runId: childId, toolCallId: approval?.toolCallId ?? '', by: 'alice@acme' });
    await resumeRun(childId, { storage: holder.storage, by: 'alice@acme' });
    await status(childId, 'completed');
    await status(runId, 'completed');
    expect(service.stats().refunds.performed).toBe(1);
    const lead = new RunState(await journal().events(runId));
    const answer = lead.decisions.get('call-1-delegate');
    expect(answer).toMatchObject({ outcome: 'provided', by: `run ${childId}` });
    expect(lead.completedText).toContain(`"runId":"${childId}"`);
    expect(lead.completedText).toContain('"status":"completed"');
    // A fork of the child is a run of its own: no parent link, so it answers no call of the lead's.
    const fork = await forkRun({ storage: holder.storage, registry, runId: childId, atStep: 1, by: 'ops@acme', reason: 'again' });
    expect(fork.run.input.parent).toBeUndefined();
    expect(fork.run.input.forkOf?.runId).toBe(childId);
    await cancelRun(fork.runId, { storage: holder.storage, by: 'ops@acme', reason: 'only looking' });
  });

  // A restart (or a fork) of the lead is the same job: its model's repeat of the delegate call (the same
  // sub-agent, the same task) is the work the job's child did or is doing, never a second child whose
  // refund would run again under keys of its own (the door's rule for a tool's repeat, related-effects.ts).
  it('a restart of a completed lead answers its repeated delegate call from the child that refunded: one refund', async () => {
    const before = service.stats().refunds.performed;
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, restarted after' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    const approval = (await journal().getRun(childId))?.pending.find((item) => item.kind === 'approval');
    await journal().approve({ runId: childId, toolCallId: approval?.toolCallId ?? '', by: 'alice@acme' });
    await resumeRun(childId, { storage: holder.storage, by: 'alice@acme' });
    await status(runId, 'completed');
    expect(service.stats().refunds.performed).toBe(before + 1);

    const restarted = await restartRun(runId, { storage: holder.storage, registry, by: 'ops@acme' });
    await status(restarted.runId, 'completed');
    expect(await journal().getRun(`${restarted.runId}/call-1-delegate`)).toBeUndefined();
    const answer = new RunState(await journal().events(restarted.runId)).decisions.get('call-1-delegate');
    expect(answer).toMatchObject({ outcome: 'provided', by: `run ${childId}` });
    expect(service.stats().refunds.performed).toBe(before + 1);
  });

  it('a restart of a lead whose sub-agent still waits for its approval waits for that child; once approved, one refund answers the restart', async () => {
    const before = service.stats().refunds.performed;
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, restarted while waiting' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    const restarted = await restartRun(runId, { storage: holder.storage, registry, by: 'ops@acme' });
    await status(restarted.runId, 'waiting-tool-result');
    const approval = (await journal().getRun(childId))?.pending.find((item) => item.kind === 'approval');
    await journal().approve({ runId: childId, toolCallId: approval?.toolCallId ?? '', by: 'alice@acme' });
    await resumeRun(childId, { storage: holder.storage, by: 'alice@acme' });
    await status(childId, 'completed');
    await status(restarted.runId, 'completed');
    expect(await journal().getRun(`${restarted.runId}/call-1-delegate`)).toBeUndefined();
    expect(new RunState(await journal().events(restarted.runId)).decisions.get('call-1-delegate')).toMatchObject({ outcome: 'provided', by: `run ${childId}` });
    expect((await journal().getRun(runId))?.status).toBe('canceled');
    expect(service.stats().refunds.performed).toBe(before + 1);
  });

  it('a lead whose wake fails as its child settles (the journal away for a moment) is still answered and resumed: the child is tried again', async () => {
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, woken late' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    // The queue's wake of the lead fails once, after the child's answer is recorded on it.
    const wake = RunQueue.prototype.wake;
    let failed = 0;
    RunQueue.prototype.wake = async function (this: RunQueue, id: string) {
      if (id === runId && failed === 0) {
        failed += 1;
        throw new Error('Connection terminated unexpectedly');
      }
      return wake.call(this, id);
    };
    try {
      const approval = (await journal().getRun(childId))?.pending.find((item) => item.kind === 'approval');
      await journal().approve({ runId: childId, toolCallId: approval?.toolCallId ?? '', by: 'alice@acme' });
      await resumeRun(childId, { storage: holder.storage, by: 'alice@acme' });
      await status(runId, 'completed');
    } finally {
      RunQueue.prototype.wake = wake;
    }
    expect(failed).toBe(1);
    expect(new RunState(await journal().events(runId)).decisions.get('call-1-delegate')).toMatchObject({ outcome: 'provided', by: `run ${childId}` });
  });

  it('a child abandoned answers its lead as canceled; a child restarted answers the lead’s call itself, with one refund', async () => {
    const before = service.stats().refunds.performed;
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, its child abandoned' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    await abandonRun(childId, { storage: holder.storage, by: 'ops@acme', reason: 'the refund agent changed' });
    await status(runId, 'completed');
    expect(new RunState(await journal().events(runId)).decisions.get('call-1-delegate')).toMatchObject({ outcome: 'provided', by: `run ${childId}` });

    const second = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, its child restarted' } });
    const secondChild = `${second.runId}/call-1-delegate`;
    await status(secondChild, 'waiting-approval');
    const restarted = await restartRun(secondChild, { storage: holder.storage, registry, by: 'ops@acme' });
    await status(restarted.runId, 'waiting-approval');
    expect((await journal().getRun(second.runId))?.status).toBe('waiting-tool-result');
    const approval = (await journal().getRun(restarted.runId))?.pending.find((item) => item.kind === 'approval');
    await journal().approve({ runId: restarted.runId, toolCallId: approval?.toolCallId ?? '', by: 'alice@acme' });
    await resumeRun(restarted.runId, { storage: holder.storage, by: 'alice@acme' });
    await status(second.runId, 'completed');
    expect(new RunState(await journal().events(second.runId)).decisions.get('call-1-delegate')).toMatchObject({
      outcome: 'provided',
      by: `run ${restarted.runId}`,
    });
    expect(service.stats().refunds.performed).toBe(before + 1);
  });

  it('a cancel of the lead while its sub-agent waits reaches the child', async () => {
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42 again' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    await cancelRun(runId, { storage: holder.storage, by: 'ops@acme', reason: 'duplicate' });
    expect(new RunState(await journal().events(childId)).canceled).toEqual({ by: 'ops@acme', reason: `parent run ${runId} was canceled: duplicate` });
  });
  const canceled = async (runId: string) => new RunState(await journal().events(runId)).canceled;

  it('a cancel of a restarted lead reaches the child it adopted (nobody else waits for it)', async () => {
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, restarted then canceled' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    const restarted = await restartRun(runId, { storage: holder.storage, registry, by: 'ops@acme' });
    await status(restarted.runId, 'waiting-tool-result');
    expect(await canceled(childId)).toBeUndefined();
    await cancelRun(restarted.runId, { storage: holder.storage, by: 'ops@acme', reason: 'customer withdrew' });
    expect(await canceled(childId)).toEqual({ by: 'ops@acme', reason: `parent run ${restarted.runId} was canceled: customer withdrew` });
    expect(await journal().getRun(`${restarted.runId}/call-1-delegate`)).toBeUndefined();
  });

  it('a fork waits for its parent’s child: the parent’s cancel keeps it for the fork, the fork’s cancel reaches it', async () => {
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, forked while waiting' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    const fork = await forkRun({ storage: holder.storage, registry, runId, atStep: 1, by: 'ops@acme', reason: 'from the start' });
    await status(fork.runId, 'waiting-tool-result');
    await cancelRun(runId, { storage: holder.storage, by: 'ops@acme', reason: 'the fork goes on' });
    expect((await journal().getRun(childId))?.status).toBe('waiting-approval');
    await cancelRun(fork.runId, { storage: holder.storage, by: 'ops@acme', reason: 'done looking' });
    expect(await canceled(childId)).toEqual({ by: 'ops@acme', reason: `parent run ${fork.runId} was canceled: done looking` });
  });

  it('a restart as a new attempt stops the old run’s child (it adopts none); an abandoned lead’s child stops with it', async () => {
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'lead', input: { prompt: 'Handle c_42, a new attempt' } });
    const childId = `${runId}/call-1-delegate`;
    await status(childId, 'waiting-approval');
    const restarted = await restartRun(runId, { storage: holder.storage, registry, by: 'ops@acme', newAttempt: true });
    expect(await canceled(childId)).toEqual({ by: 'ops@acme', reason: `parent run ${runId} was restarted as ${restarted.runId}, a new attempt` });
    const own = `${restarted.runId}/call-1-delegate`;
    await status(own, 'waiting-approval');
    await abandonRun(restarted.runId, { storage: holder.storage, by: 'ops@acme', reason: 'the customer withdrew' });
    expect(await canceled(own)).toEqual({ by: 'ops@acme', reason: `parent run ${restarted.runId} was abandoned: the customer withdrew` });
  });
});
