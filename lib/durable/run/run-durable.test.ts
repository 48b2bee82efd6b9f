import { stepCountIs, tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, runDurable } from '../index';

/** A three-step refund agent: look up the order, refund it, reply. */
function refundAgent() {
  const executed = { lookup: 0, refund: 0 };
  const keys: string[] = [];
  const scripted = scriptedModel((step) =>
    step === 0
      ? { toolCalls: [{ toolCallId: 'call-lookup', toolName: 'lookupOrder', input: { orderId: 'o_17' } }] }
      : step === 1
        ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] }
        : { text: 'Refunded 40 for o_17.' },
  );
  const lookupOrder = tool({
    inputSchema: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => {
      executed.lookup += 1;
      return { orderId, total: 40, placedAt: new Date('2026-11-01T10:00:00Z') };
    },
  });
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async ({ orderId, amount }, { idempotencyKey }) => {
        executed.refund += 1;
        keys.push(idempotencyKey as string);
        return { refundId: `r_${orderId}`, amount };
      },
    }),
    { sideEffect: true },
  );
  return { scripted, executed, keys, tools: { lookupOrder, refund } };
}

describeEachJournal('runDurable', (target) => {
  const { journal } = target.open();

  it('knownEvents read before the run moved: it is read again, and a side effect recorded since does not run twice', async () => {
    const agent = refundAgent();
    const runId = uniqueRunId();
    let failAt = 1;
    const model = scriptedModel((step) => {
      if (step >= failAt) throw Object.assign(new Error(`provider down at step ${step}`), { name: 'ProviderDown' });
      return step === 0
        ? { toolCalls: [{ toolCallId: 'call-lookup', toolName: 'lookupOrder', input: { orderId: 'o_17' } }] }
        : step === 1
          ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] }
          : { text: 'Refunded 40 for o_17.' };
    }).model;
    const call = (more: object = {}) =>
      runDurable({ runId, journal, model, tools: agent.tools, stopWhen: stepCountIs(10), prompt: 'Refund o_17', maxRetries: 0, ...more });
    await expect(call()).rejects.toThrow(/provider down at step 1/); // the lookup recorded, no refund yet
    const stale = await journal.events(runId);
    failAt = 2;
    await expect(call()).rejects.toThrow(/provider down at step 2/); // the refund executed and recorded since
    expect(agent.executed.refund).toBe(1);
    failAt = 99;
    // Both ways a caller's read is used: as the answer's read, and (with a prepareStep) as the hold's first load.
    const result = await call({ knownEvents: stale, prepareStep: () => undefined });
    expect(result.status).toBe('completed');
    expect(agent.executed).toEqual({ lookup: 1, refund: 1 });
    const again = await call({ knownEvents: stale });
    expect(again.status).toBe('completed');
    expect(agent.executed.refund).toBe(1);
    // Not a run's events as journal.events gives them (a page, out of order): refused before anything is read.
    for (const bad of [stale.slice(1), [...stale].reverse(), [{}]])
      await expect(call({ knownEvents: bad })).rejects.toThrow(/knownEvents for run .* must be all of its events/);
  });

  it('completes a run and journals every model step and tool call', async () => {
    const agent = refundAgent();
    const runId = uniqueRunId();
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, stopWhen: stepCountIs(10), prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    if (result.status !== 'completed') return;
    expect(result.text).toBe('Refunded 40 for o_17.');
    expect(agent.scripted.calls()).toBe(3);
    expect(agent.executed).toEqual({ lookup: 1, refund: 1 });
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types).toEqual([
      'run-start',
      'model-step',
      'tool-call-end', // lookup is read-only: no start record, its end carries the input
      'model-step',
      'tool-call-start',
      'tool-call-end',
      'model-step',
      'run-complete',
    ]);
    const run = await journal.getRun(runId);
    expect(run).toMatchObject({ status: 'completed', stepCount: 3, lastSeq: 8 });
  });

  it('replays a completed run without calling the model or any tool', async () => {
    const agent = refundAgent();
    const runId = uniqueRunId();
    const first = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    const again = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(agent.scripted.calls()).toBe(3);
    expect(agent.executed).toEqual({ lookup: 1, refund: 1 });
    expect(again.status).toBe('completed');
    if (again.status !== 'completed' || first.status !== 'completed') return;
    expect(again.text).toBe(first.text);
    expect(again.replayedSteps).toBe(3);
    // Dates come back as Dates, in tool outputs and model responses.
    const lookup = again.steps[0]?.toolResults[0]?.output as { placedAt: Date };
    expect(lookup.placedAt).toBeInstanceOf(Date);
    expect(again.steps[0]?.response.timestamp).toBeInstanceOf(Date);
    expect((await journal.events(runId)).length).toBe(8);
  });

  it('fires step and finish callbacks for replayed steps too, with a replayed flag; a completed run too, each step replayed', async () => {
    const agent = refundAgent();
    const runId = uniqueRunId();
    const seen: [number, boolean][] = [];
    const finished: boolean[] = [];
    const onStepFinish = (step: { stepNumber: number; replayed?: boolean }) => void seen.push([step.stepNumber, step.replayed as boolean]);
    const onFinish = (event: { replayed?: boolean }) => void finished.push(event.replayed as boolean);
    // The model fails at step 2: the run is failed, and its resume replays steps 0 and 1.
    let failAt: number | undefined = 2;
    const model = scriptedModel((step) => {
      if (step === failAt) throw new Error('provider down');
      return step === 0
        ? { toolCalls: [{ toolCallId: 'call-lookup', toolName: 'lookupOrder', input: { orderId: 'o_17' } }] }
        : step === 1
          ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] }
          : { text: 'Refunded 40 for o_17.' };
    });
    const call = () => runDurable({ runId, journal, model: model.model, tools: agent.tools, prompt: 'Refund o_17', onStepFinish, onFinish, maxRetries: 0 });
    await expect(call()).rejects.toThrow('provider down');
    failAt = undefined;
    expect((await call()).status).toBe('completed');
    expect(seen).toEqual([
      [0, false],
      [1, false],
      [0, true],
      [1, true],
      [2, false],
    ]);
    expect(finished).toEqual([false]);
    // Completed: a call answers from the record (the model not called), and its steps and finish are reported, replayed.
    const calls = model.calls();
    expect((await call()).status).toBe('completed');
    expect(seen.slice(5)).toEqual([
      [0, true],
      [1, true],
      [2, true],
    ]);
    expect(finished).toEqual([false, true]);
    expect(model.calls()).toBe(calls);
  });

  it('journals a model returned by prepareStep like the top-level one', async () => {
    const agent = refundAgent();
    const other = refundAgent();
    const runId = uniqueRunId();
    const prepareStep = ({ stepNumber }: { stepNumber: number }) => (stepNumber === 2 ? { model: other.scripted.model } : undefined);
    const first = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', prepareStep });
    expect(first.status).toBe('completed');
    expect([agent.scripted.calls(), other.scripted.calls()]).toEqual([2, 1]);
    const steps = (await journal.events(runId)).filter((e) => e.type === 'model-step');
    expect(steps.map((e) => e.type === 'model-step' && e.step)).toEqual([0, 1, 2]);
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', prepareStep });
    expect([agent.scripted.calls(), other.scripted.calls()]).toEqual([2, 1]);
  });

  it('rejects an invalid runId before touching the journal', async () => {
    const agent = refundAgent();
    await expect(runDurable({ runId: '', journal, model: agent.scripted.model, tools: agent.tools, prompt: 'x' })).rejects.toMatchObject({
      name: 'InvalidRunIdError',
    });
    await expect(runDurable({ runId: 'x'.repeat(513), journal, model: agent.scripted.model, tools: agent.tools, prompt: 'x' })).rejects.toThrow(/limit is 512/);
    expect(agent.scripted.calls()).toBe(0);
  });
});
