import { APICallError, tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { leaveRefundInFlight, REFUND_INPUT, refundAgent } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, idempotencyKey, runDurable, ToolCallFailedError, ToolNotPerformedError, tokenBudgetIs } from '../index';

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

  it("idempotency 'args': arguments that differ only in NFC and NFD are one refund under key scheme 3 (the default); a scheme-1 run keeps its keys", async () => {
    const [nfc, nfd] = [
      { orderId: 'o_caf\u00e9', amount: 40 },
      { orderId: 'o_cafe\u0301', amount: 40 },
    ];
    const script = (step: number): ScriptedStep =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'call-1', toolName: 'refund', input: nfc }] }
        : step === 1
          ? { toolCalls: [{ toolCallId: 'call-2', toolName: 'refund', input: nfd }] }
          : { text: 'done' };
    const agent = refundAgent({ sideEffect: true, idempotency: 'args' }, script);
    const runId = uniqueRunId('args-nfc');
    expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_café' })).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    const ends = (await journal.events(runId)).filter((e) => e.type === 'tool-call-end');
    expect(ends.map((e) => e.type === 'tool-call-end' && [e.toolCallId, e.source])).toEqual([
      ['call-1', 'executed'],
      ['call-2', 'deduplicated'],
    ]);
    expect(agent.keys).toEqual([idempotencyKey({ kind: 'args', runId, toolName: 'refund', input: nfd }, 3)]);
    // A run recorded under scheme 1 hashes as it always did: its recorded keys are never renamed.
    const old = refundAgent({ sideEffect: true, idempotency: 'args' }, script);
    const oldRunId = uniqueRunId('args-nfc-1');
    await runDurable({ runId: oldRunId, journal, model: old.scripted.model, tools: old.tools, prompt: 'Refund o_café', keyScheme: 1 });
    expect(old.keys).toEqual([
      idempotencyKey({ kind: 'args', runId: oldRunId, toolName: 'refund', input: nfc }, 1),
      idempotencyKey({ kind: 'args', runId: oldRunId, toolName: 'refund', input: nfd }, 1),
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

  it('a read-only tool that throws is tried again with backoff, each attempt journaled; its last error goes to the model, as generateText does', async () => {
    let executions = 0;
    const search = gnlTool(
      tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async (): Promise<string> => {
          executions += 1;
          throw new Error('search backend 503');
        },
      }),
      { maxRetries: 2, retryDelayMs: 1 },
    );
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }] } : { text: 'the search is down' };
    const runId = uniqueRunId();
    const first = scriptedModel(script);
    const result = await runDurable({ runId, journal, model: first.model, tools: { search }, prompt: 'x' });
    expect(result.status).toBe('completed');
    expect(executions).toBe(3);
    expect(first.calls()).toBe(2);
    expect(JSON.stringify(first.prompts.at(-1))).toContain('search backend 503'); // the model saw the tool error
    const errors = (await journal.events(runId)).filter((e) => e.type === 'tool-call-error');
    expect(errors.map((e) => [e.attempt, e.retryable])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);

    // The final error is replayed as recorded: the tool is not called again.
    const second = scriptedModel(script);
    expect((await runDurable({ runId, journal, model: second.model, tools: { search }, prompt: 'x' })).status).toBe('completed');
    expect(executions).toBe(3);
    expect(second.calls()).toBe(0);
  });

  it('a read-only tool that fails then succeeds within its retries: the model sees only the result', async () => {
    let executions = 0;
    const search = gnlTool(
      tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async ({ q }): Promise<string> => {
          executions += 1;
          if (executions === 1) throw new Error('search backend 503');
          return `results for ${q}`;
        },
      }),
      { retryDelayMs: 1 },
    );
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'search', input: { q: 'x' } }] } : { text: 'found it' };
    const runId = uniqueRunId();
    const model = scriptedModel(script);
    expect((await runDurable({ runId, journal, model: model.model, tools: { search }, prompt: 'x' })).status).toBe('completed');
    expect(executions).toBe(2);
    expect(JSON.stringify(model.prompts.at(-1))).toContain('results for x');
    const outcomes = (await journal.events(runId)).filter((e) => e.type === 'tool-call-error' || e.type === 'tool-call-end');
    expect(outcomes.map((e) => [e.type, 'attempt' in e && e.attempt])).toEqual([
      ['tool-call-error', 1],
      ['tool-call-end', 2],
    ]);
  });

  it('a side-effecting tool that throws after it may have acted is blocked at once: no retry, no guess, a person decides', async () => {
    let attempts = 0;
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string() }),
        execute: async (): Promise<{ ok: boolean }> => {
          attempts += 1;
          throw new Error('socket hang up after the request was sent');
        },
      }),
      { sideEffect: true, retryDelayMs: 1 },
    );
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'refund', input: { orderId: 'o_1' } }] } : { text: 'ok' };
    const runId = uniqueRunId();
    const model = scriptedModel(script);
    await expect(runDurable({ runId, journal, model: model.model, tools: { refund }, prompt: 'x' })).rejects.toMatchObject({
      name: 'SideEffectRetryBlockedError',
      toolCallId: 'c1',
    });
    expect(model.calls()).toBe(1); // the model never saw a guess
    const resumed = await runDurable({ runId, journal, model: scriptedModel(script).model, tools: { refund }, prompt: 'x' }).catch((e: unknown) => e);
    expect(resumed).toMatchObject({ name: 'SideEffectRetryBlockedError', toolCallId: 'c1' });
    expect(attempts).toBe(1);
    expect((await journal.getRun(runId))?.status).toBe('blocked');
  });

  it('a side effect that throws ToolNotPerformedError did nothing: its error is final and the model sees it', async () => {
    let attempts = 0;
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string() }),
        execute: async (): Promise<{ ok: boolean }> => {
          attempts += 1;
          throw new ToolNotPerformedError('the PSP refused: amount over the order total');
        },
      }),
      { sideEffect: true, retryDelayMs: 1 },
    );
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'refund', input: { orderId: 'o_1' } }] } : { text: 'I could not refund.' };
    const runId = uniqueRunId();
    const model = scriptedModel(script);
    const result = await runDurable({ runId, journal, model: model.model, tools: { refund }, prompt: 'x' });
    expect(result.status).toBe('completed');
    expect(attempts).toBe(1);
    expect(JSON.stringify(model.prompts.at(-1))).toContain('the PSP refused');
    expect((await journal.events(runId)).find((e) => e.type === 'tool-call-error')).toMatchObject({
      retryable: false,
      error: { name: 'ToolNotPerformedError' },
    });
    expect((await runDurable({ runId, journal, model: scriptedModel(script).model, tools: { refund }, prompt: 'x' })).status).toBe('completed');
    expect(attempts).toBe(1);
  });

  it('a retrySafe side effect that keeps throwing is retried under the same key, then the run fails (resumable)', async () => {
    const keys: string[] = [];
    const ticket = gnlTool(
      tool({
        inputSchema: z.object({ subject: z.string() }),
        execute: async (_input, { idempotencyKey: key }): Promise<{ ok: boolean }> => {
          keys.push(key as string);
          throw new Error('ticket service 502');
        },
      }),
      { sideEffect: true, retrySafe: true, maxRetries: 1, retryDelayMs: 1 },
    );
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName: 'ticket', input: { subject: 's' } }] } : { text: 'ok' };
    const runId = uniqueRunId();
    const error = await runDurable({ runId, journal, model: scriptedModel(script).model, tools: { ticket }, prompt: 'x' }).catch((e: unknown) => e);
    expect(ToolCallFailedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ toolCallId: 'c1', toolName: 'ticket', attempt: 2 });
    expect(keys).toEqual([keys[0], keys[0]]);
    expect((await journal.getRun(runId))?.status).toBe('failed');
  });

  it('a crash between two parallel calls blocks only the one whose outcome is unknown; the finished sibling keeps its result', async () => {
    const runId = uniqueRunId();
    const calls = [
      { toolCallId: 'call-a', input: { orderId: 'o_1', amount: 1 } },
      { toolCallId: 'call-b', input: { orderId: 'o_2', amount: 2 } },
    ];
    await leaveRefundInFlight(journal, runId, calls);
    // call-a finished before the crash: its result is recorded.
    const hold = await journal.hold(runId);
    await hold.append([
      {
        type: 'tool-call-end',
        toolCallId: 'call-a',
        toolName: 'refund',
        idempotencyKey: idempotencyKey({ kind: 'call', runId, toolCallId: 'call-a', toolName: 'refund' }),
        attempt: 1,
        output: { refundId: 'r_o_1', amount: 1 },
        durationMs: 3,
        source: 'executed',
      },
    ]);
    await hold.release();
    const agent = refundAgent({ sideEffect: true });
    const error = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SideEffectRetryBlockedError', toolCallId: 'call-b' });
    expect((await journal.getRun(runId))?.pending.map((p) => p.toolCallId)).toEqual(['call-b']);
    await journal.resolveSideEffect({ runId, toolCallId: 'call-b', outcome: 'done', output: { refundId: 'r_o_2', amount: 2 }, by: 'ops' });
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(0);
    const prompt = JSON.stringify(agent.scripted.prompts.at(-1));
    expect(prompt).toContain('r_o_1');
    expect(prompt).toContain('r_o_2');
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

  it("stops at a token budget summed over the run's steps", async () => {
    const loop = scriptedModel((step) => ({ toolCalls: [{ toolCallId: `c${step}`, toolName: 'ping', input: {} }] }));
    const ping = tool({ inputSchema: z.object({}), execute: async () => 'pong' });
    const runId = uniqueRunId();
    // Each scripted step uses 10 input + 5 output tokens.
    const first = await runDurable({ runId, journal, model: loop.model, tools: { ping }, prompt: 'x', stopWhen: tokenBudgetIs({ totalTokens: 45 }) });
    expect(first.status).toBe('completed');
    if (first.status === 'completed') expect(first.steps).toHaveLength(3);
    expect(loop.calls()).toBe(3);
    expect(() => tokenBudgetIs({ totalTokens: -1 })).toThrow(/positive/);
  });
});
