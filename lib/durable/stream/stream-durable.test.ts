/**
 * streamDurable on both journals, with a real streaming model (the SDK's MockLanguageModelV4 doStream)
 * and the refund ledger as the outside service: the stream is streamText's own, a call reaches its tool
 * only once the step that asked for it is journaled, a stream that fails after a call arrived and before
 * its step finished executes nothing, approvals wait and resume, replays stream the recorded steps
 * without calling the model, and a streamed run can be resumed by runDurable (the same record).
 */
import { tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger, REFUND_INPUT, refundScript } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel, streamingModel } from '@/tests/support/scripted-model';
import { type GnlToolOptions, gnlTool, idempotencyKey, type Journal, RunState, runDurable, streamDurable } from '../index';

/** The refund tool; at each execution it notes whether the journal already held the step that asked for it. */
function refundTool(journal: Journal, runId: string, options: GnlToolOptions<{ orderId: string; amount: number }, any> = { sideEffect: true }) {
  const ledger = new Ledger();
  const stepDurableAtExecute: boolean[] = [];
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
      execute: async (input, { idempotencyKey: key, toolCallId }) => {
        const state = new RunState(await journal.events(runId));
        stepDurableAtExecute.push(state.recordedSteps().some((step) => JSON.stringify(step.result).includes(toolCallId)));
        return ledger.refund(key as string, input);
      },
    }),
    options,
  );
  return { ledger, stepDurableAtExecute, tools: { refund } };
}

/**
 * A refund whose execute waits, once it has begun, on a gate the test opens: `running` resolves when the
 * refund is under way (an abort then lands while it runs). `streams`: execute returns an async iterable
 * (a preliminary value, then the refund), and the wait is between the two.
 */
function gatedRefund(streams: boolean) {
  const ledger = new Ledger();
  let began!: () => void;
  const running = new Promise<void>((resolve) => {
    began = resolve;
  });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const inputSchema = z.object({ orderId: z.string(), amount: z.number() });
  const refund = streams
    ? tool({
        inputSchema,
        execute: async function* (input, { idempotencyKey: key }) {
          yield { status: 'pending' as const, refundId: '', amount: 0 };
          began();
          await gate;
          yield { status: 'done' as const, ...ledger.refund(key as string, input) };
        },
      })
    : tool({
        inputSchema,
        execute: async (input, { idempotencyKey: key }) => {
          began();
          await gate;
          return { status: 'done' as const, ...ledger.refund(key as string, input) };
        },
      });
  return { ledger, running, open, tools: { refund: gnlTool(refund, { sideEffect: true }) } };
}

async function text(stream: AsyncIterable<string>): Promise<string> {
  let out = '';
  for await (const delta of stream) out += delta;
  return out;
}

describeEachJournal('streamDurable', (target) => {
  const { journal } = target.open();
  const key = (runId: string) => idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'refund' });

  it('streams a run to completion; the tool runs once, after its step is journaled; a second call replays without the model', async () => {
    const runId = uniqueRunId('stream');
    const { ledger, stepDurableAtExecute, tools } = refundTool(journal, runId);
    const first = streamingModel(refundScript);
    const streamed = streamDurable({ runId, journal, model: first.model, tools, prompt: 'Refund o_17' });
    expect(await text(streamed.textStream)).toBe('Refunded 40 for o_17.');
    const done = await streamed.durable;
    expect(done).toMatchObject({ status: 'completed', text: 'Refunded 40 for o_17.', replayedSteps: 0 });
    expect(ledger.executions.get(key(runId))).toBe(1);
    expect(stepDurableAtExecute).toEqual([true]);
    expect(first.calls()).toBe(2);

    const again = streamingModel(refundScript);
    const replayed = streamDurable({ runId, journal, model: again.model, tools, prompt: 'Refund o_17' });
    expect(await text(replayed.textStream)).toBe('Refunded 40 for o_17.');
    expect(await replayed.durable).toMatchObject({ status: 'completed', replayedSteps: 2 });
    expect(again.calls()).toBe(0);
    expect(ledger.total).toBe(1);
  });

  it('a stream that fails after the call arrived and before its step finished executes nothing; the resume asks again and refunds once', async () => {
    const runId = uniqueRunId('stream-cut');
    const { ledger, tools } = refundTool(journal, runId);
    const cut = streamingModel(refundScript, (call) => (call === 1 ? 'fail-before-finish' : undefined));
    const streamed = streamDurable({ runId, journal, model: cut.model, tools, prompt: 'Refund o_17', maxRetries: 0 });
    await expect(streamed.durable).rejects.toThrow('connection reset mid-stream');
    expect(ledger.total).toBe(0);
    const state = new RunState(await journal.events(runId));
    expect(state.status).toBe('failed');
    expect(state.recordedSteps()).toEqual([]);

    const resumed = streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17' });
    expect(await resumed.durable).toMatchObject({ status: 'completed', text: 'Refunded 40 for o_17.' });
    expect(ledger.executions.get(key(runId))).toBe(1);
  });

  it('an approval waits; approved, the next call streams on and refunds once; a canceled run streams nothing', async () => {
    const runId = uniqueRunId('stream-approval');
    const { ledger, tools } = refundTool(journal, runId, { sideEffect: true, needsApproval: true });
    const waiting = streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17' });
    expect(await waiting.durable).toMatchObject({
      status: 'waiting-approval',
      pending: [{ toolCallId: 'call-refund', toolName: 'refund', input: REFUND_INPUT }],
    });
    // Still undecided: nothing to do, one empty step, the model not asked.
    const idle = streamingModel(refundScript);
    const still = streamDurable({ runId, journal, model: idle.model, tools, prompt: 'Refund o_17' });
    expect(await text(still.textStream)).toBe('');
    expect(await still.durable).toMatchObject({ status: 'waiting-approval' });
    expect(idle.calls()).toBe(0);

    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    const resumed = streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17' });
    expect(await text(resumed.textStream)).toBe('Refunded 40 for o_17.');
    expect(await resumed.durable).toMatchObject({ status: 'completed' });
    expect(ledger.executions.get(key(runId))).toBe(1);

    const other = uniqueRunId('stream-canceled');
    const second = refundTool(journal, other, { sideEffect: true, needsApproval: true });
    expect(
      (await streamDurable({ runId: other, journal, model: streamingModel(refundScript).model, tools: second.tools, prompt: 'Refund o_17' }).durable).status,
    ).toBe('waiting-approval');
    await journal.cancel({ runId: other, by: 'bob@acme', reason: 'withdrawn' });
    const canceled = streamDurable({ runId: other, journal, model: streamingModel(refundScript).model, tools: second.tools, prompt: 'Refund o_17' });
    expect(await canceled.durable).toEqual({ status: 'canceled', runId: other, by: 'bob@acme', reason: 'withdrawn' });
    expect(second.ledger.total).toBe(0);
  });

  it('a streamed run and runDurable share the record: streamed to an approval, resumed by runDurable, replayed by streamDurable', async () => {
    const runId = uniqueRunId('stream-mixed');
    const { ledger, tools } = refundTool(journal, runId, { sideEffect: true, needsApproval: true });
    expect((await streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17' }).durable).status).toBe(
      'waiting-approval',
    );
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    // The same model answers generate calls too: runDurable replays the streamed step 0 and asks for step 1.
    const generated = await runDurable({ runId, journal, model: scriptedModel(refundScript).model, tools, prompt: 'Refund o_17' });
    expect(generated).toMatchObject({ status: 'completed', text: 'Refunded 40 for o_17.', replayedSteps: 1 });
    const replay = streamingModel(refundScript);
    const streamed = streamDurable({ runId, journal, model: replay.model, tools, prompt: 'Refund o_17' });
    expect(await text(streamed.textStream)).toBe('Refunded 40 for o_17.');
    expect(replay.calls()).toBe(0);
    expect(ledger.total).toBe(1);
  });

  it('a tool without execute waits for its result; provided, the streamed resume hands it to the model and completes', async () => {
    const runId = uniqueRunId('stream-client-tool');
    const geolocate = tool({ inputSchema: z.object({ ip: z.string() }) });
    const script = (step: number): ScriptedStep =>
      step === 0 ? { toolCalls: [{ toolCallId: 'call-geo', toolName: 'geolocate', input: { ip: '10.0.0.1' } }] } : { text: 'You are in Lyon.' };
    const first = streamDurable({ runId, journal, model: streamingModel(script).model, tools: { geolocate }, prompt: 'Where am I?' });
    expect(await first.durable).toMatchObject({ status: 'waiting-tool-result', pending: [{ toolCallId: 'call-geo', toolName: 'geolocate' }] });
    await journal.provideToolResult({ runId, toolCallId: 'call-geo', output: { city: 'Lyon' }, by: 'the app' });
    const model = streamingModel(script);
    const resumed = streamDurable({ runId, journal, model: model.model, tools: { geolocate }, prompt: 'Where am I?' });
    expect(await resumed.durable).toMatchObject({ status: 'completed', text: 'You are in Lyon.' });
    // The model was asked for step 1 only, with the provided result in its prompt.
    expect(model.calls()).toBe(1);
    expect(JSON.stringify(model.prompts[0])).toContain('Lyon');
  });

  it('a stop condition that answers through a promise is awaited: false goes on, true stops', async () => {
    const runId = uniqueRunId('stream-stops');
    const { ledger, tools } = refundTool(journal, runId);
    const goOn = streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17', stopWhen: async () => false });
    expect(await goOn.durable).toMatchObject({ status: 'completed', text: 'Refunded 40 for o_17.' });
    expect((await goOn.steps).length).toBe(2);
    const other = uniqueRunId('stream-stops-now');
    const stopNow = streamDurable({
      runId: other,
      journal,
      model: streamingModel(refundScript).model,
      tools,
      prompt: 'Refund o_17',
      stopWhen: async () => true,
    });
    expect(await stopNow.durable).toMatchObject({ status: 'completed', text: '' });
    expect(ledger.total).toBe(2);
  });

  /**
   * The refund is under way when the caller's signal aborts; it finishes after the abort. What the journal,
   * the invocation and a resume (by the same function) make of it, and how many refunds the ledger saw.
   */
  async function abortedWhileRefunding(via: 'runDurable' | 'streamDurable', streams: boolean) {
    const runId = uniqueRunId(`abort-${via}`);
    const { ledger, running, open, tools } = gatedRefund(streams);
    const call = (abortSignal?: AbortSignal) =>
      via === 'runDurable'
        ? runDurable({ runId, journal, model: scriptedModel(refundScript).model, tools, prompt: 'Refund o_17', ...(abortSignal ? { abortSignal } : {}) })
        : streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17', ...(abortSignal ? { abortSignal } : {}) })
            .durable;
    const controller = new AbortController();
    const first = call(controller.signal).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    await running;
    controller.abort();
    open();
    const error = await first;
    const state = new RunState(await journal.events(runId));
    const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end');
    const afterAbort = { error: error?.name, status: state.status, events: (await journal.events(runId)).map((e) => e.type) };
    const resumed = await call();
    return {
      afterAbort,
      recorded: end?.type === 'tool-call-end' ? end.output : undefined,
      resumed: resumed.status,
      refunds: ledger.total,
      key: ledger.executions.get(key(runId)),
    };
  }

  for (const streams of [false, true]) {
    it(`an abort while a side effect runs${streams ? ' (a streaming tool, mid-stream)' : ''}: its outcome is journaled when it returns, the run fails resumably as runDurable's does, the resume does not run it again`, async () => {
      const expected = {
        afterAbort: { error: 'AbortError', status: 'failed', events: ['run-start', 'model-step', 'tool-call-start', 'tool-call-end', 'run-fail'] },
        recorded: { status: 'done', refundId: 'r_o_17', amount: 40 },
        resumed: 'completed',
        refunds: 1,
        key: 1,
      };
      expect(await abortedWhileRefunding('runDurable', streams)).toEqual(expected);
      expect(await abortedWhileRefunding('streamDurable', streams)).toEqual(expected);
    });
  }

  it('a repeated call id from the provider is renamed in the streamed parts and the record alike, so each call runs once', async () => {
    const runId = uniqueRunId('stream-ids');
    const { ledger, tools } = refundTool(journal, runId);
    // Every answer calls its call `call_0` (some providers number per response).
    const script = (step: number): ScriptedStep =>
      step < 2 ? { toolCalls: [{ toolCallId: 'call_0', toolName: 'refund', input: { orderId: `o_${step}`, amount: 10 } }] } : { text: 'Two refunds.' };
    const streamed = streamDurable({ runId, journal, model: streamingModel(script).model, tools, prompt: 'Refund both' });
    const calls: string[] = [];
    for await (const part of streamed.fullStream) if (part.type === 'tool-call') calls.push(part.toolCallId);
    expect(await streamed.durable).toMatchObject({ status: 'completed', text: 'Two refunds.' });
    expect(calls).toEqual(['call_0', 'call_0~s1.1']);
    expect([...ledger.executions.values()]).toEqual([1, 1]);
    const state = new RunState(await journal.events(runId));
    expect([...state.operations.values()].map((op) => op.firstToolCallId)).toEqual(['call_0', 'call_0~s1.1']);
  });
});
