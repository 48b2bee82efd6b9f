import { tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { RunDivergedError, runDurable } from '../index';

describeEachJournal('run identity and replay', (target) => {
  const { journal } = target.open();

  it('a runId that exists with a different start input is refused, naming what differs, and nothing is mixed', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, system: 'You refund.', prompt: 'Refund o_17' });
    const before = (await journal.events(runId)).length;

    const other = refundAgent({ sideEffect: true });
    const changedTool = tool({ inputSchema: z.object({ orderId: z.string(), amount: z.number(), note: z.string() }), execute: async () => ({}) });
    const attempts: [string, object][] = [
      ['prompt', { prompt: 'Refund o_18' }],
      ['system', { system: 'You refund generously.' }],
      ['instructions', { instructions: 'Be brief.' }],
      ['toolNames', { tools: { ...other.tools, sendEmail: other.tools.refund } }],
      ['tool schema: refund', { tools: { refund: changedTool } }],
    ];
    for (const [field, change] of attempts) {
      const error = await runDurable({
        runId,
        journal,
        model: other.scripted.model,
        tools: other.tools,
        system: 'You refund.',
        prompt: 'Refund o_17',
        ...change,
      }).catch((e: unknown) => e);
      expect(RunDivergedError.isInstance(error)).toBe(true);
      expect((error as RunDivergedError).name).toBe('RunDivergedError');
      expect((error as RunDivergedError).differences.map((d) => d.field)).toEqual([field]);
      expect((error as Error).message).toContain(field);
    }
    const otherModel = scriptedModel(() => ({ text: 'x' }));
    Object.defineProperty(otherModel.model, 'modelId', { value: 'another-model' });
    await expect(
      runDurable({ runId, journal, model: otherModel.model, tools: other.tools, system: 'You refund.', prompt: 'Refund o_17' }),
    ).rejects.toMatchObject({
      differences: [expect.objectContaining({ field: 'modelId', recorded: 'scripted-v1', given: 'another-model' })],
    });
    expect(other.scripted.calls()).toBe(0);
    expect(other.ledger.total).toBe(0);
    expect((await journal.events(runId)).length).toBe(before);
  });

  it('records the default step limit in the start input', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect((await journal.getRun(runId))?.input).toMatchObject({ defaultStepLimit: 20, toolNames: ['refund'] });
  });

  it('a replayed model call whose input differs is journaled as replay-mismatch and replay goes on; with strictReplay it is fatal', async () => {
    let invocation = 0;
    // A prepareStep that is not deterministic: the system prompt carries something that changes between calls.
    const prepareStep = () => ({ system: `Today is day ${invocation}.` });
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    invocation = 1;
    expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', prepareStep })).status).toBe(
      'waiting-approval',
    );
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice' });

    invocation = 2;
    const strict = await runDurable({
      runId,
      journal,
      model: agent.scripted.model,
      tools: agent.tools,
      prompt: 'Refund o_17',
      prepareStep,
      strictReplay: true,
    }).catch((e: unknown) => e);
    expect(strict).toMatchObject({ name: 'RunDivergedError', differences: [expect.objectContaining({ field: 'model call 0 input' })] });
    expect(agent.ledger.total).toBe(0);

    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', prepareStep });
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    const mismatches = (await journal.events(runId)).filter((e) => e.type === 'replay-mismatch');
    expect(mismatches).toEqual([expect.objectContaining({ kind: 'model-call', step: 0 })]);
  });

  it('arguments the SDK derives differently on replay are no divergence, even strict: the recorded ones run and reach the model', async () => {
    let nonce = 0;
    const seen: unknown[] = [];
    // A tool whose parsed input is not deterministic (a transform that stamps each parse).
    const stamp = tool({
      inputSchema: z.object({ orderId: z.string() }).transform((v) => ({ ...v, nonce })),
      execute: async (input) => {
        seen.push(input);
        return input;
      },
    });
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'stamp', input: { orderId: 'o_1' } }] } : { text: 'done' };
    const runId = uniqueRunId();
    nonce = 1;
    await runDurable({ runId, journal, model: scriptedModel(script).model, tools: { stamp }, prompt: 'x' });
    nonce = 2;
    const replayModel = scriptedModel(script);
    const replay = await runDurable({ runId, journal, model: replayModel.model, tools: { stamp }, prompt: 'x', strictReplay: true });
    expect(replay.status).toBe('completed');
    expect(replayModel.calls()).toBe(0);
    expect(seen).toEqual([{ orderId: 'o_1', nonce: 1 }]);
    // The next model call's prompt carries the recorded arguments, so the model call is no mismatch either.
    expect((await journal.events(runId)).filter((e) => e.type === 'replay-mismatch')).toEqual([]);
  });
});
