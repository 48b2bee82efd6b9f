import type { LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { DefaultGeneratedFile, Output, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent, refundScript } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel, stepResult, streamingModel } from '@/tests/support/scripted-model';
import { gnlTool, runDurable, streamDurable, ToolNotPerformedError } from '../index';
import type { DurableResult, RunDurableOptions } from './run-durable';
import { replayDurable } from './run-durable';

/** Every public field of a completed result, its SDK result and each step, as plain data to compare. */
const RESULT_FIELDS = [
  'content',
  'text',
  'reasoning',
  'reasoningText',
  'files',
  'sources',
  'toolCalls',
  'staticToolCalls',
  'dynamicToolCalls',
  'toolResults',
  'staticToolResults',
  'dynamicToolResults',
  'finishReason',
  'rawFinishReason',
  'usage',
  'totalUsage',
  'warnings',
  'request',
  'response',
  'responseMessages',
  'providerMetadata',
] as const;
// callId is new in every call and performance is timed anew by every replay: both differ between two replays.
const STEP_FIELDS = [
  'stepNumber',
  'model',
  'runtimeContext',
  'toolsContext',
  'content',
  'text',
  'reasoning',
  'reasoningText',
  'files',
  'sources',
  'toolCalls',
  'staticToolCalls',
  'dynamicToolCalls',
  'toolResults',
  'staticToolResults',
  'dynamicToolResults',
  'finishReason',
  'rawFinishReason',
  'usage',
  'warnings',
  'request',
  'response',
  'providerMetadata',
] as const;

function outputOf(read: () => unknown): unknown {
  try {
    return { value: read() };
  } catch (error) {
    return { threw: (error as Error).name };
  }
}

/** Each run of adjacent tool results (or tool messages' parts) sorted by call id; everything else kept in place. */
function resultsInCallOrder(parts: unknown[]): unknown[] {
  const isResult = (part: unknown) =>
    (part as { type?: unknown } | null)?.type === 'tool-result' && typeof (part as { toolCallId?: unknown }).toolCallId === 'string';
  const out: unknown[] = [];
  for (let i = 0; i < parts.length; ) {
    if (!isResult(parts[i])) {
      out.push(parts[i++]);
      continue;
    }
    let j = i;
    while (j < parts.length && isResult(parts[j])) j++;
    out.push(...(parts.slice(i, j) as { toolCallId: string }[]).sort((a, b) => a.toolCallId.localeCompare(b.toolCallId)));
    i = j;
  }
  return out;
}

function stepView(step: Record<string, unknown>) {
  expect(typeof step.callId).toBe('string');
  return Object.fromEntries(STEP_FIELDS.map((field) => [field, step[field]]));
}

/** A finish event (onFinish / onEnd): its field names and each field, its steps as stepView has them. */
function finishView(event: Record<string, unknown>) {
  const { callId, steps, finalStep, ...rest } = event as Record<string, unknown> & { steps: Record<string, unknown>[]; finalStep: Record<string, unknown> };
  expect(typeof callId).toBe('string');
  return { finish: { fields: Object.keys(event).sort(), ...rest, steps: steps.map(stepView), finalStep: stepView(finalStep) } };
}

/** Step and finish callbacks that note what they heard, in order. */
function listener() {
  const heard: unknown[] = [];
  const callbacks = {
    onStepFinish: (step: Record<string, unknown>) => void heard.push({ step: stepView(step), replayed: step.replayed }),
    onFinish: (event: Record<string, unknown>) => void heard.push(finishView(event)),
  };
  return { heard, callbacks };
}

function publicView(durable: DurableResult<any>) {
  if (durable.status !== 'completed') throw new Error(`expected completed, got ${durable.status}`);
  const result = durable.result as unknown as Record<string, unknown> & { steps: Record<string, unknown>[]; finalStep: Record<string, unknown> };
  return plain({
    status: durable.status,
    runId: durable.runId,
    text: durable.text,
    content: durable.content,
    steps: durable.steps.map((step) => stepView(step as never)),
    toolCalls: durable.toolCalls,
    toolResults: durable.toolResults,
    finishReason: durable.finishReason,
    usage: durable.usage,
    totalUsage: durable.totalUsage,
    response: durable.response,
    replayedSteps: durable.replayedSteps,
    output: outputOf(() => durable.output),
    result: {
      ...Object.fromEntries(RESULT_FIELDS.map((field) => [field, result[field]])),
      steps: result.steps.map(stepView),
      finalStep: stepView(result.finalStep),
      output: outputOf(() => result.output),
    },
  });
}

/** Dates as ISO strings, errors as name and message, files as base64, undefined properties dropped, approval ids by order of appearance. */
function plain(value: unknown): unknown {
  const approvalIds = new Map<string, string>();
  const walk = (v: unknown, key?: string): unknown => {
    if (key === 'approvalId' && typeof v === 'string') {
      if (!approvalIds.has(v)) approvalIds.set(v, `approval-${approvalIds.size}`);
      return approvalIds.get(v);
    }
    if (v instanceof Date) return v.toISOString();
    if (v instanceof Error) return { error: v.name, message: v.message };
    if (v instanceof DefaultGeneratedFile) return { file: v.base64, mediaType: v.mediaType };
    if (Array.isArray(v)) return v.map((item) => walk(item));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v)
          .filter(([, item]) => item !== undefined)
          .map(([k, item]) => [k, walk(item, k)]),
      );
    }
    return v;
  };
  return walk(value);
}

describeEachJournal('a completed run answers from its record', (target) => {
  const { journal } = target.open();

  /** Runs `options` to completion (`decide` between invocations), then compares the record's answer with the replay's. */
  async function compare(options: Omit<RunDurableOptions<any>, 'runId' | 'journal'>, decide?: (runId: string) => Promise<void>, calls?: () => number) {
    const runId = uniqueRunId();
    const run = { ...options, runId, journal } as RunDurableOptions<any>;
    let first = await runDurable(run);
    if (first.status !== 'completed' && decide) {
      await decide(runId);
      first = await runDurable(run);
    }
    expect(first.status).toBe('completed');
    const events = (await journal.events(runId)).length;
    const modelCalls = calls?.();
    const replay = listener();
    const replayed = await replayDurable({ ...run, ...replay.callbacks });
    const answer = listener();
    const answered = await runDurable({ ...run, ...answer.callbacks });
    expect((await journal.events(runId)).length).toBe(events);
    if (calls) expect(calls()).toBe(modelCalls);
    expect(publicView(answered)).toEqual(publicView(replayed));
    // Its step and finish callbacks hear what the replay's hear: each step, then the finish, replayed: true.
    expect(answer.heard).toHaveLength(replayed.status === 'completed' ? replayed.steps.length + 1 : -1);
    expect(answer.heard.slice(0, -1).every((event) => (event as { replayed: unknown }).replayed === true)).toBe(true);
    expect(answer.heard.at(-1)).toMatchObject({ finish: { replayed: true } });
    expect(plain(answer.heard)).toEqual(plain(replay.heard));
    // What the run returned as it completed is the same too (its steps were partly live then).
    expect({ ...(publicView(answered) as object), replayedSteps: 0 }).toEqual({ ...(publicView(first) as object), replayedSteps: 0 });
    return { runId, answered, replayed };
  }

  it('text only', async () => {
    const scripted = scriptedModel(() => ({ text: 'Hello.' }));
    const { answered } = await compare({ model: scripted.model, prompt: 'Hi' }, undefined, scripted.calls);
    expect(answered).toMatchObject({ status: 'completed', text: 'Hello.', replayedSteps: 1 });
  });

  it('several tool steps, a side-effecting gnlTool among them, outputs holding Dates', async () => {
    const executed = { lookup: 0, refund: 0 };
    const script = (step: number): ScriptedStep =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'call-lookup', toolName: 'lookupOrder', input: { orderId: 'o_17' } }] }
        : step === 1
          ? {
              toolCalls: [
                { toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } },
                { toolCallId: 'call-note', toolName: 'note', input: { text: 'refunded' } },
              ],
            }
          : { text: 'Refunded 40 for o_17.' };
    const scripted = scriptedModel(script);
    const tools = {
      lookupOrder: tool({
        inputSchema: z.object({ orderId: z.string() }),
        execute: async ({ orderId }) => {
          executed.lookup += 1;
          return { orderId, total: 40, placedAt: new Date('2026-11-01T10:00:00Z') };
        },
      }),
      refund: gnlTool(
        tool({
          inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
          execute: async ({ orderId, amount }) => {
            executed.refund += 1;
            return { refundId: `r_${orderId}`, amount };
          },
        }),
        { sideEffect: true },
      ),
      note: tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => text.toUpperCase() }),
    };
    const { answered } = await compare({ model: scripted.model, tools, stopWhen: stepCountIs(10), prompt: 'Refund o_17' }, undefined, scripted.calls);
    expect(executed).toEqual({ lookup: 1, refund: 1 });
    expect(answered).toMatchObject({ text: 'Refunded 40 for o_17.', replayedSteps: 3 });
    if (answered.status === 'completed') expect(answered.toolResults.map((r) => r.toolCallId)).toEqual(['call-lookup', 'call-refund', 'call-note']);
  });

  it('a tool approval approved', async () => {
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await compare(
      { model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' },
      async (runId) => {
        await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme', reason: 'verified' });
      },
      agent.scripted.calls,
    );
    expect(agent.ledger.total).toBe(1);
  });

  it('a tool approval rejected', async () => {
    const agent = refundAgent({ sideEffect: true, needsApproval: true }, (step) => (step === 0 ? refundScript(0) : { text: 'Not refunded.' }));
    const { answered } = await compare(
      { model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' },
      async (runId) => {
        await journal.reject({ runId, toolCallId: 'call-refund', by: 'bob@acme', reason: 'refund window closed' });
      },
      agent.scripted.calls,
    );
    expect(agent.ledger.total).toBe(0);
    if (answered.status === 'completed') expect(answered.text).toBe('Not refunded.');
  });

  it('a tool error the model is sent (ToolNotPerformedError: final)', async () => {
    const scripted = scriptedModel((step) =>
      step === 0 ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 400 } }] } : { text: 'Could not refund.' },
    );
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        execute: async (): Promise<{ ok: boolean }> => {
          throw new ToolNotPerformedError('the PSP refused: amount over the order total');
        },
      }),
      { sideEffect: true },
    );
    const { answered } = await compare({ model: scripted.model, tools: { refund }, prompt: 'Refund o_17' }, undefined, scripted.calls);
    if (answered.status !== 'completed') return;
    expect(answered.content.find((part) => part.type === 'tool-error')).toMatchObject({ error: { name: 'ToolNotPerformedError' } });
  });

  it('structured output (Output.object), and a run without one throws NoOutputGeneratedError on both paths', async () => {
    const scripted = scriptedModel(() => ({ text: JSON.stringify({ refunded: true, amount: 40 }) }));
    const output = Output.object({ schema: z.object({ refunded: z.boolean(), amount: z.number() }) });
    const { answered, runId } = await compare({ model: scripted.model, prompt: 'Refund o_17', output }, undefined, scripted.calls);
    if (answered.status === 'completed') expect(answered.output).toEqual({ refunded: true, amount: 40 });
    // A later call asking for no structured output gets the text, as the SDK parses it for that call, on both paths.
    const plainCall = { runId, journal, model: scripted.model, prompt: 'Refund o_17' };
    const plainAnswer = await runDurable(plainCall);
    expect(publicView(plainAnswer)).toEqual(publicView(await replayDurable(plainCall)));
    if (plainAnswer.status === 'completed') expect(plainAnswer.output).toBe('{"refunded":true,"amount":40}');

    const stopped = scriptedModel(() => ({ toolCalls: [{ toolCallId: 'call-n', toolName: 'note', input: { text: 'x' } }] }));
    const note = tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => text });
    const { answered: noOutput } = await compare(
      { model: stopped.model, tools: { note }, stopWhen: stepCountIs(1), prompt: 'x', output },
      undefined,
      stopped.calls,
    );
    if (noOutput.status === 'completed') expect(() => noOutput.output).toThrow(expect.objectContaining({ name: 'AI_NoOutputGeneratedError' }));
  });

  it('reasoning, provider metadata, a source, a file, warnings and a raw finish reason', async () => {
    let calls = 0;
    const model = new MockLanguageModelV4({
      provider: 'scripted',
      modelId: 'scripted-v1',
      doGenerate: async (options): Promise<LanguageModelV4GenerateResult> => {
        calls += 1;
        const step = options.prompt.filter((m) => m.role === 'assistant').length;
        const base = stepResult(step === 0 ? { toolCalls: [{ toolCallId: 'call-n', toolName: 'note', input: { text: 'x' } }] } : { text: 'Done.' }, step);
        const extra: LanguageModelV4Content[] = [
          { type: 'reasoning', text: `thinking ${step}`, providerMetadata: { scripted: { signature: `sig-${step}` } } },
          { type: 'source', sourceType: 'url', id: `src-${step}`, url: 'https://example.com/a', title: 'A' },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: new Uint8Array([137, 80, 78, 71, step]) } },
        ];
        return {
          ...base,
          content: [...extra, ...base.content],
          finishReason: { ...base.finishReason, raw: step === 0 ? 'tool_use' : 'end_turn' },
          providerMetadata: { scripted: { cost: 0.01 * (step + 1) } },
          warnings: [{ type: 'other', message: `warned ${step}` }],
        };
      },
    });
    const note = tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => text });
    const { answered } = await compare({ model, tools: { note }, prompt: 'x' }, undefined, () => calls);
    if (answered.status !== 'completed') return;
    expect(answered.result.reasoningText).toBe('thinking 1');
    expect(answered.result.providerMetadata).toEqual({ scripted: { cost: 0.02 } });
    expect(answered.result.files[0]?.uint8Array).toEqual(new Uint8Array([137, 80, 78, 71, 0]));
  });

  it('answers in one read without taking the run (another holder does not refuse it); a different job under the runId is still RunDivergedError', async () => {
    const scripted = scriptedModel(() => ({ text: 'Hello.' }));
    const run = { runId: uniqueRunId(), journal, model: scripted.model, prompt: 'Hi' };
    expect((await runDurable(run)).status).toBe('completed');
    const hold = await journal.hold(run.runId);
    try {
      expect(await runDurable(run)).toMatchObject({ status: 'completed', text: 'Hello.' });
    } finally {
      await hold.release();
    }
    await expect(runDurable({ ...run, prompt: 'Something else' })).rejects.toMatchObject({ name: 'RunDivergedError' });
    expect(scripted.calls()).toBe(1);
  });

  it('calls the step and finish callbacks, replayed: true, and no lifecycle one: nothing starts (the replay path calls them all)', async () => {
    const scripted = scriptedModel((step) =>
      step === 0 ? { toolCalls: [{ toolCallId: 'call-n', toolName: 'note', input: { text: 'x' } }] } : { text: 'Done.' },
    );
    const note = tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => text });
    const seen: string[] = [];
    const callbacks = {
      onStepFinish: (e: { replayed: boolean }) => void seen.push(`step:${e.replayed}`),
      onFinish: (e: { replayed: boolean }) => void seen.push(`finish:${e.replayed}`),
      onStepStart: () => void seen.push('step-start'),
    };
    const run = { runId: uniqueRunId(), journal, model: scripted.model, tools: { note }, prompt: 'x', ...callbacks };
    await runDurable(run);
    expect(seen).toEqual(['step-start', 'step:false', 'step-start', 'step:false', 'finish:false']);
    seen.length = 0;
    expect((await runDurable(run)).status).toBe('completed');
    expect(seen).toEqual(['step:true', 'step:true', 'finish:true']);
    expect(scripted.calls()).toBe(2);
    seen.length = 0;
    await replayDurable(run);
    expect(seen).toEqual(['step-start', 'step:true', 'step-start', 'step:true', 'finish:true']);
  });

  it('a run completed without a recorded answer (before answers were recorded) replays, answering the same, its step callbacks replayed: true', async () => {
    const scripted = scriptedModel(() => ({ text: 'Hello.' }));
    const done = { runId: uniqueRunId(), journal, model: scripted.model, prompt: 'Hi' };
    await runDurable(done);
    // The same run as an earlier version journaled it: its events, its run-complete without an answer.
    const runId = uniqueRunId();
    const [start, ...rest] = await journal.events(done.runId);
    const hold = await journal.hold(runId);
    try {
      await hold.create((start as Extract<typeof start, { type: 'run-start' }>).input);
      await hold.append(rest.map(({ seq: _seq, at: _at, ...event }) => (event.type === 'run-complete' ? { ...event, answer: undefined } : event)) as never);
    } finally {
      await hold.release();
    }
    const run = { ...done, runId };
    const seen: string[] = [];
    const again = await runDurable({ ...run, onStepFinish: (e) => void seen.push(`step:${e.replayed}`), onStart: () => void seen.push('start') });
    expect(again).toMatchObject({ status: 'completed', text: 'Hello.', replayedSteps: 1 });
    expect(seen).toEqual(['step:true']); // replayed: the step is reported, nothing started
    expect(scripted.calls()).toBe(1);
    expect(publicView(again)).toEqual(publicView(await replayDurable(run)));
  });

  it('an answer the journal cannot hold is left out: the run completes all the same and later calls replay it', async () => {
    const scripted = scriptedModel((step) =>
      step === 0 ? { toolCalls: [{ toolCallId: 'call-n', toolName: 'note', input: { text: 'x' } }] } : { text: 'Noted nothing.' },
    );
    // A read-only tool's last throw goes to the model as it was thrown: here a value json-codec refuses (a function).
    const note = tool({
      inputSchema: z.object({ text: z.string() }),
      execute: async (): Promise<string> => {
        throw { reason: 'busy', retry: () => false };
      },
    });
    const run = { runId: uniqueRunId(), journal, model: scripted.model, tools: { note }, prompt: 'x', toolRetry: { maxRetries: 0 } };
    expect((await runDurable(run)).status).toBe('completed');
    const complete = (await journal.events(run.runId)).find((e) => e.type === 'run-complete');
    expect(complete).toMatchObject({ type: 'run-complete', text: 'Noted nothing.' });
    expect(complete && 'answer' in complete ? complete.answer : undefined).toBeUndefined();
    const again = await runDurable(run);
    expect(again).toMatchObject({ status: 'completed', text: 'Noted nothing.', replayedSteps: 2 });
    expect(publicView(again)).toEqual(publicView(await replayDurable(run)));
    expect(scripted.calls()).toBe(2);
  });

  it("a run completed by streamDurable answers from its record too (its response timestamps are the stream's; a replay makes up its own)", async () => {
    const streaming = streamingModel((step) =>
      step === 0
        ? {
            toolCalls: [
              { toolCallId: 'call-note', toolName: 'note', input: { text: 'x' } },
              { toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } },
            ],
          }
        : { text: 'Refunded.' },
    );
    const note = tool({ inputSchema: z.object({ text: z.string() }), execute: async ({ text }) => ({ text, at: new Date(0) }) });
    const refund = refundAgent().tools.refund;
    const run = { runId: uniqueRunId(), journal, model: streaming.model, tools: { note, refund }, prompt: 'Refund o_17' };
    const first = await streamDurable(run).durable;
    expect(first.status).toBe('completed');
    const events = (await journal.events(run.runId)).length;
    const answered = await runDurable(run);
    expect((await journal.events(run.runId)).length).toBe(events);
    // (The replay of a streamed run through generateText asks with other settings than the stream did: it
    // journals replay-mismatch events, as it always has. The answer from the record appends nothing.)
    const replayed = await replayDurable(run);
    expect(streaming.calls()).toBe(2);
    // A streamed step whose provider sent no timestamp is recorded without one: the SDK stamped it as it
    // streamed (the record keeps that instant), and every replay stamps it again with its own clock.
    const withoutTimestamps = (view: unknown) => JSON.parse(JSON.stringify(view, (key, value) => (key === 'timestamp' ? undefined : value)));
    // The stream lists a step's tool results as they finished; generateText (the replay) in call order. Two
    // calls in one step finish in either order (each appends its end), so that order is compared apart.
    const inCallOrder = (view: unknown) => JSON.parse(JSON.stringify(view, (_key, value) => (Array.isArray(value) ? resultsInCallOrder(value) : value)));
    expect(inCallOrder(withoutTimestamps(publicView(answered)))).toEqual(inCallOrder(withoutTimestamps(publicView(replayed))));
    // What streamDurable's `durable` resolved with as it completed (its `result` is the stream's, not compared).
    const top = (durable: DurableResult<any>) => {
      if (durable.status !== 'completed') throw new Error(durable.status);
      const { text, content, steps, toolCalls, toolResults, finishReason, usage, totalUsage, response } = durable;
      return withoutTimestamps(
        plain({ text, content, steps: steps.map((step) => stepView(step as never)), toolCalls, toolResults, finishReason, usage, totalUsage, response }),
      );
    };
    expect(top(answered)).toEqual(top(first));
    if (answered.status === 'completed' && first.status === 'completed') expect(answered.response.timestamp).toEqual(first.response.timestamp);
  });

  it("streamDurable on a completed run streams its answer by replaying its loop (its stream is the loop's), its step and finish callbacks replayed: true", async () => {
    const scripted = scriptedModel(() => ({ text: 'Hello.' }));
    const streaming = streamingModel(() => ({ text: 'Hello.' }));
    const run = { runId: uniqueRunId(), journal, prompt: 'Hi' };
    expect((await runDurable({ ...run, model: scripted.model })).status).toBe('completed');
    const seen: string[] = [];
    const stream = streamDurable({
      ...run,
      model: streaming.model,
      onStepFinish: (e) => void seen.push(`step:${e.replayed}`),
      onFinish: (e) => void seen.push(`finish:${e.replayed}`),
      onStart: () => void seen.push('start'),
    });
    expect(await stream.text).toBe('Hello.');
    expect(await stream.durable).toMatchObject({ status: 'completed', text: 'Hello.', replayedSteps: 1 });
    expect(seen).toEqual(['step:true', 'finish:true']);
    seen.length = 0;
    // A run that is not completed: its callbacks are called as ever.
    const fresh = streamDurable({
      ...run,
      runId: uniqueRunId(),
      model: streaming.model,
      onStepFinish: (e) => void seen.push(`step:${e.replayed}`),
      onStart: () => void seen.push('start'),
    });
    await fresh.durable;
    expect(seen).toEqual(['start', 'step:false']);
    expect(streaming.calls() + scripted.calls()).toBe(2); // the completion and the fresh run: the replay asked nothing
  });
});
