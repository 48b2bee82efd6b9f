import { expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { stepResult } from '@/tests/support/scripted-model';
import { DecisionConflictError, runDurable } from '../index';

describeEachJournal('cancel', (target) => {
  const { journal } = target.open();

  it('a run waiting for a person is canceled at once; calling it again executes nothing', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    await journal.cancel({ runId, by: 'ops@acme', reason: 'customer withdrew' });
    expect(await journal.getRun(runId)).toMatchObject({ status: 'canceled', pending: [] });
    const again = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(again).toEqual({ status: 'canceled', runId, by: 'ops@acme', reason: 'customer withdrew' });
    expect(agent.ledger.total).toBe(0);
    expect(agent.scripted.calls()).toBe(1);
    await expect(journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' })).rejects.toBeInstanceOf(DecisionConflictError);
  });

  it('a run canceled while it executes stops at the next step boundary and never executes another tool', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true });
    // The cancel arrives from elsewhere while the model is answering step 0 (which asks for the refund).
    const base = agent.scripted.model;
    const model = Object.assign(Object.create(Object.getPrototypeOf(base)), base, {
      doGenerate: async () => {
        await journal.cancel({ runId, by: 'ops@acme' });
        return stepResult({ toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] }, 0);
      },
    });
    const result = await runDurable({ runId, journal, model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result).toMatchObject({ status: 'canceled', by: 'ops@acme' });
    expect(agent.ledger.total).toBe(0);
    const events = await journal.events(runId);
    // The step rode with the refund's start (RunSession.defer); that append said the run was canceled, so
    // the refund never ran, and the journal says so: an error of its start, not an unknown outcome.
    expect(events.map((e) => e.type)).toEqual(['run-start', 'run-cancel', 'model-step', 'tool-call-start', 'tool-call-error']);
    expect(events.at(-1)).toMatchObject({ type: 'tool-call-error', toolCallId: 'call-refund', retryable: false, error: { name: 'RunCanceledError' } });
    expect((await journal.getRun(runId))?.status).toBe('canceled');
  });

  it('a cancel that lands while a tool runs lets that call finish, then no other tool or model call follows', async () => {
    const runId = uniqueRunId();
    const script = (step: number) =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] }
        : step === 1
          ? { toolCalls: [{ toolCallId: 'call-refund-2', toolName: 'refund', input: { orderId: 'o_18', amount: 5 } }] }
          : { text: 'done' };
    const agent = refundAgent({ sideEffect: true }, script);
    const refund = agent.tools.refund;
    const tools = {
      refund: {
        ...refund,
        execute: async (input: never, options: never) => {
          const out = await refund.execute?.(input, options);
          await journal.cancel({ runId, by: 'ops@acme', reason: 'stop' });
          return out;
        },
      },
    } as unknown as typeof agent.tools;
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools, prompt: 'Refund o_17' });
    expect(result).toMatchObject({ status: 'canceled', by: 'ops@acme', reason: 'stop' });
    expect(agent.ledger.total).toBe(1);
    expect(agent.scripted.calls()).toBe(1);
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['run-cancel', 'tool-call-end']);
    expect((await journal.getRun(runId))?.status).toBe('canceled');
  });

  it('refuses to cancel an unknown, completed or already canceled run, naming who canceled first', async () => {
    await expect(journal.cancel({ runId: uniqueRunId('none'), by: 'a' })).rejects.toMatchObject({ reason: 'unknown-run' });
    const done = uniqueRunId();
    const agent = refundAgent({ sideEffect: true });
    await runDurable({ runId: done, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'x' });
    await expect(journal.cancel({ runId: done, by: 'a' })).rejects.toMatchObject({ reason: 'run-finished' });

    const waiting = uniqueRunId();
    const approvalAgent = refundAgent({ sideEffect: true, needsApproval: true });
    await runDurable({ runId: waiting, journal, model: approvalAgent.scripted.model, tools: approvalAgent.tools, prompt: 'x' });
    await journal.cancel({ runId: waiting, by: 'alice@acme' });
    const second = await journal.cancel({ runId: waiting, by: 'bob@acme' }).catch((e: unknown) => e);
    expect(second).toMatchObject({ name: 'DecisionConflictError', reason: 'already-decided', decidedBy: 'alice@acme' });
    expect((second as Error).message).toContain('already canceled by alice@acme');
    await expect(journal.cancel({ runId: waiting, by: ' ' })).rejects.toThrow(/by/);
  });
});
