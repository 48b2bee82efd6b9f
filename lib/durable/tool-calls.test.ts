import { APICallError, tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { REFUND_INPUT, refundAgent } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { idempotencyKey, runDurable } from './index';

describeEachJournal('tool calls', (target) => {
  const { journal } = target.open();

  it("idempotency 'args': a re-planned call with equal arguments gets the first call's result", async () => {
    const script = (step: number): ScriptedStep =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'call-1', toolName: 'refund', input: REFUND_INPUT }] }
        : step === 1
          ? { toolCalls: [{ toolCallId: 'call-2', toolName: 'refund', input: { amount: 40, orderId: 'o_17' } }] }
          : { text: 'done' };
    const agent = refundAgent({ sideEffect: true, idempotency: 'args' }, script);
    const runId = uniqueRunId();
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    const key = idempotencyKey({ kind: 'args', runId, toolName: 'refund', input: REFUND_INPUT });
    expect(agent.keys).toEqual([key]);
    const ends = (await journal.events(runId)).filter((e) => e.type === 'tool-call-end');
    expect(ends.map((e) => e.type === 'tool-call-end' && [e.toolCallId, e.source, e.idempotencyKey])).toEqual([
      ['call-1', 'executed', key],
      ['call-2', 'deduplicated', key],
    ]);
  });

  it("idempotency 'args': equal calls in parallel in one step execute once", async () => {
    const script = (step: number): ScriptedStep =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'call-1', toolName: 'refund', input: REFUND_INPUT },
              { toolCallId: 'call-2', toolName: 'refund', input: REFUND_INPUT },
            ],
          }
        : { text: 'done' };
    const agent = refundAgent({ sideEffect: true, idempotency: 'args' }, script);
    const result = await runDurable({ runId: uniqueRunId(), journal, model: agent.scripted.model, tools: agent.tools, prompt: 'x' });
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
  });

  it('parallel calls in one step each get their own records and keys, with contiguous sequence numbers', async () => {
    const script = (step: number): ScriptedStep =>
      step === 0
        ? {
            toolCalls: [1, 2, 3].map((n) => ({ toolCallId: `call-${n}`, toolName: 'refund', input: { orderId: `o_${n}`, amount: n } })),
          }
        : { text: 'done' };
    const agent = refundAgent({ sideEffect: true }, script);
    const runId = uniqueRunId();
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'x' });
    expect(agent.ledger.total).toBe(3);
    expect(new Set(agent.keys).size).toBe(3);
    const events = await journal.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'tool-call-start')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'tool-call-end')).toHaveLength(3);
  });

  it('a recorded tool error replays as the same error, without executing again', async () => {
    let executions = 0;
    const flaky = tool({
      inputSchema: z.object({ q: z.string() }),
      execute: async (): Promise<string> => {
        executions += 1;
        throw new Error('search backend 503');
      },
    });
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }] } : { text: 'gave up' };
    const runId = uniqueRunId();
    const first = scriptedModel(script);
    await runDurable({ runId, journal, model: first.model, tools: { search: flaky }, prompt: 'x' });
    expect(JSON.stringify(first.prompts.at(-1))).toContain('search backend 503');
    const error = (await journal.events(runId)).find((e) => e.type === 'tool-call-error');
    expect(error).toMatchObject({ error: { name: 'Error', message: 'search backend 503' }, attempt: 1 });
    const again = await runDurable({ runId, journal, model: scriptedModel(script).model, tools: { search: flaky }, prompt: 'x' });
    expect(again.status).toBe('completed');
    expect(executions).toBe(1);
  });

  it('an output that cannot be journaled is recorded as a tool error with its cause; the side effect is not retried', async () => {
    let executions = 0;
    const cyclic = tool({
      inputSchema: z.object({}),
      execute: async () => {
        executions += 1;
        const out: Record<string, unknown> = { ok: true };
        out.self = out;
        return out;
      },
    });
    const script = (step: number): ScriptedStep => (step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'make', input: {} }] } : { text: 'ok' });
    const runId = uniqueRunId();
    const result = await runDurable({ runId, journal, model: scriptedModel(script).model, tools: { make: cyclic }, prompt: 'x' });
    expect(result.status).toBe('completed');
    const error = (await journal.events(runId)).find((e) => e.type === 'tool-call-error');
    expect(error).toMatchObject({ error: { name: 'JournalDataError', message: expect.stringContaining('cycle') } });
    await runDurable({ runId, journal, model: scriptedModel(script).model, tools: { make: cyclic }, prompt: 'x' });
    expect(executions).toBe(1);
  });

  it('a model call that fails leaves the run failed and resumable: resume retries that step only', async () => {
    let failing = true;
    let calls = 0;
    const agent = refundAgent({ sideEffect: true });
    const base = agent.scripted.model;
    const model = Object.assign(Object.create(Object.getPrototypeOf(base)), base, {
      doGenerate: async (options: Parameters<typeof base.doGenerate>[0]) => {
        calls += 1;
        const step = options.prompt.filter((m) => m.role === 'assistant').length;
        if (step === 1 && failing) throw new APICallError({ message: 'overloaded', url: 'x', requestBodyValues: {}, statusCode: 400, isRetryable: false });
        return base.doGenerate(options);
      },
    });
    const runId = uniqueRunId();
    await expect(runDurable({ runId, journal, model, tools: agent.tools, prompt: 'x', maxRetries: 0 })).rejects.toThrow(/overloaded/);
    const run = await journal.getRun(runId);
    expect(run?.status).toBe('failed');
    expect((await journal.events(runId)).at(-1)).toMatchObject({ type: 'run-fail', error: { message: expect.stringContaining('overloaded') } });
    failing = false;
    calls = 0;
    const result = await runDurable({ runId, journal, model, tools: agent.tools, prompt: 'x', maxRetries: 0 });
    expect(result.status).toBe('completed');
    expect(calls).toBe(1); // step 0 replayed, only step 1 called
    expect(agent.ledger.total).toBe(1);
  });

  it('defaults to a step limit of 20 (generateText alone stops after one step)', async () => {
    const loop = scriptedModel((step) => ({ toolCalls: [{ toolCallId: `c${step}`, toolName: 'ping', input: {} }] }));
    const ping = tool({ inputSchema: z.object({}), execute: async () => 'pong' });
    const result = await runDurable({ runId: uniqueRunId(), journal, model: loop.model, tools: { ping }, prompt: 'x' });
    expect(result.status).toBe('completed');
    if (result.status === 'completed') expect(result.steps).toHaveLength(20);
    expect(loop.calls()).toBe(20);
  });
});
