/**
 * The durable agent (the SDK's ToolLoopAgent settings, each call naming its run) and structured output
 * on runDurable and streamDurable, on both journals: generate and stream share one record, an approval
 * waits and resumes with the refund executed once (the ledger's count), and `output` (Output.object) is
 * parsed from the final step, the same on replay without calling the model.
 */
import { Output } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent, refundScript } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel, streamingModel } from '@/tests/support/scripted-model';
import { DurableAgent, runDurable, streamDurable } from '../index';

const verdict = z.object({ refunded: z.boolean(), amount: z.number() });
const structured = (step: number): ScriptedStep => (step === 0 ? refundScript(0) : { text: JSON.stringify({ refunded: true, amount: 40 }) });

describeEachJournal('DurableAgent and structured output', (target) => {
  const { journal } = target.open();

  it('generate and stream share the record: an approval waits, the approved refund runs once, a stream replays it', async () => {
    const { ledger, tools } = refundAgent({ sideEffect: true, needsApproval: true });
    const support = new DurableAgent({ id: 'support', model: scriptedModel(refundScript).model, instructions: 'You refund orders.', tools, journal });
    const runId = uniqueRunId('agent');
    expect(await support.generate({ runId, prompt: 'Refund o_17' })).toMatchObject({ status: 'waiting-approval', pending: [{ toolCallId: 'call-refund' }] });
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    expect(await support.generate({ runId, prompt: 'Refund o_17' })).toMatchObject({ status: 'completed', text: 'Refunded 40 for o_17.' });
    expect(ledger.total).toBe(1);
    // The instructions are the run's: recorded in its start input and compared on every call.
    expect((await journal.getRun(runId))?.input.instructions).toBe('You refund orders.');

    const replayModel = streamingModel(refundScript);
    const streamed = new DurableAgent({ model: replayModel.model, instructions: 'You refund orders.', tools, journal }).stream({
      runId,
      prompt: 'Refund o_17',
    });
    expect(await streamed.text).toBe('Refunded 40 for o_17.');
    expect(await streamed.durable).toMatchObject({ status: 'completed', replayedSteps: 2 });
    expect(replayModel.calls()).toBe(0);
    expect(ledger.total).toBe(1);
  });

  it('a call without a journal, given none by the agent either, is refused before anything runs', () => {
    const agent = new DurableAgent({ id: 'nowhere', model: scriptedModel(refundScript).model });
    expect(() => agent.generate({ runId: 'r', prompt: 'hi' })).toThrow('DurableAgent nowhere: no journal');
  });

  it('structured output is on the result, parsed from the final step, and the same on replay without the model', async () => {
    const { ledger, tools } = refundAgent({ sideEffect: true });
    const runId = uniqueRunId('output');
    const first = scriptedModel(structured);
    const done = await runDurable({ runId, journal, model: first.model, tools, prompt: 'Refund o_17', output: Output.object({ schema: verdict }) });
    expect(done.status === 'completed' && done.output).toEqual({ refunded: true, amount: 40 });
    const replay = scriptedModel(structured);
    const again = await runDurable({ runId, journal, model: replay.model, tools, prompt: 'Refund o_17', output: Output.object({ schema: verdict }) });
    expect(again.status === 'completed' && again.output).toEqual({ refunded: true, amount: 40 });
    expect(replay.calls()).toBe(0);
    expect(ledger.total).toBe(1);

    const streamedRun = uniqueRunId('output-stream');
    const streamed = streamDurable({
      runId: streamedRun,
      journal,
      model: streamingModel(structured).model,
      tools,
      prompt: 'Refund o_17',
      output: Output.object({ schema: verdict }),
    });
    const settled = await streamed.durable;
    expect(settled.status === 'completed' && settled.output).toEqual({ refunded: true, amount: 40 });
    expect(await streamed.output).toEqual({ refunded: true, amount: 40 });
  });
});
