import type { ModelMessage } from 'ai';
import { tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { type ScriptedStep, scriptedModel, streamingModel } from '@/tests/support/scripted-model';
import { gnlTool, runDurable } from '../index';
import { replayDurable } from '../run/run-durable';
import { streamDurable } from '../stream/stream-durable';
import { RunState } from '../projection/run-state';
import { promptTailAllowed, settledStep } from './prompt-tail';

const STEPS = 6;

/**
 * An agent of 6 steps, each one side-effecting call (an outside ledger counts executions), then an answer;
 * its model throws at `failAt`. Its first message holds an image by URL the model does not take, so the
 * SDK downloads it at every step whose whole prompt it converts: `whole` counts those conversions.
 */
/** The agent's model answer at `step`: a call to record its item, then the final text. */
const receiptStep = (step: number): ScriptedStep =>
  step < STEPS ? { toolCalls: [{ toolCallId: `call-${step}`, toolName: 'record', input: { item: `item-${step}` } }] } : { text: 'Recorded all.' };

function receiptAgent(failAt?: number) {
  const ledger = { executed: 0 };
  const scripted = scriptedModel((step) => {
    if (step === failAt) throw new Error(`provider down at step ${step}`);
    return receiptStep(step);
  });
  const record = gnlTool(
    tool({
      inputSchema: z.object({ item: z.string() }),
      execute: async ({ item }) => {
        ledger.executed += 1;
        return { recorded: item };
      },
    }),
    { sideEffect: true },
  );
  const conversions = { all: 0, whole: 0 };
  const download = async (planned: { url: URL }[]) => {
    conversions.all += 1;
    if (planned.length > 0) conversions.whole += 1;
    return planned.map(() => ({ data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }));
  };
  const messages: ModelMessage[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Record every item on this receipt.' },
        { type: 'file', data: new URL('https://receipts.example/r-17.png'), mediaType: 'image/png' },
      ],
    },
  ];
  return { scripted, ledger, conversions, settings: { model: scripted.model, tools: { record }, messages, experimental_download: download, maxRetries: 0 } };
}

it("whatever the caller gives that reads a step's messages keeps every step whole", () => {
  const plain = { record: tool({ inputSchema: z.object({}), execute: async () => 1 }) };
  const noop = () => undefined;
  expect(promptTailAllowed({}, plain, undefined)).toBe(true);
  expect(promptTailAllowed({ onStepFinish: noop, onFinish: noop, include: { requestBody: true } }, plain, undefined)).toBe(true);
  expect(promptTailAllowed({}, plain, noop)).toBe(false);
  const readers = ['onStepStart', 'experimental_onStepStart', 'onLanguageModelCallStart', 'experimental_onLanguageModelCallStart', 'repairToolCall'];
  for (const name of [...readers, 'experimental_repairToolCall', 'refineToolInput', 'experimental_refineToolInput', 'experimental_toolCallers']) {
    expect(promptTailAllowed({ [name]: noop }, plain, undefined), name).toBe(false);
  }
  expect(promptTailAllowed({ include: { requestMessages: true } }, plain, undefined)).toBe(false);
  expect(promptTailAllowed({ experimental_include: { requestMessages: true } }, plain, undefined)).toBe(false);
  for (const hook of ['onInputStart', 'onInputDelta', 'onInputAvailable']) {
    const hooked = { record: tool({ inputSchema: z.object({}), execute: async () => 1, [hook]: noop }) };
    expect(promptTailAllowed({}, hooked, undefined), hook).toBe(false);
  }
});

describeEachJournal('recorded steps replayed with the tail of their prompt', (target) => {
  const { journal } = target.open();

  /** A run recorded up to its model's failure at step `failAt` (failed, resumable). */
  async function recorded(failAt: number) {
    const runId = uniqueRunId();
    const first = receiptAgent(failAt);
    await expect(runDurable({ runId, journal, ...first.settings })).rejects.toThrow(/provider down/);
    expect(first.ledger.executed).toBe(failAt);
    return runId;
  }

  it('a recorded step is settled when each of its calls has an outcome or a rejection in the journal', async () => {
    const runId = await recorded(STEPS);
    const state = new RunState(await journal.events(runId));
    expect(state.modelSteps.length).toBe(STEPS);
    expect(state.modelSteps.every((step) => settledStep(state, step))).toBe(true);
    expect(settledStep(state, { content: [{ type: 'text', text: 'no calls' }] })).toBe(true);
    // A call the journal holds no outcome of (its tool would run, its approval policy would be asked): not settled.
    expect(settledStep(state, { content: [{ type: 'tool-call', toolCallId: 'call-unknown', toolName: 'record', input: '{}' }] })).toBe(false);
    expect(settledStep(state, { content: [...(state.modelSteps[0] as { content: unknown[] }).content, { type: 'tool-call', toolCallId: 'call-x' }] })).toBe(
      false,
    );
  });

  it('a resume converts the whole prompt for the first step, the last recorded one and the new ones only; no mismatch, even with strictReplay', async () => {
    const runId = await recorded(STEPS);
    const resumed = receiptAgent();
    const result = await runDurable({ runId, journal, ...resumed.settings, strictReplay: true });
    expect(result.status).toBe('completed');
    if (result.status !== 'completed') return;
    expect(result.text).toBe('Recorded all.');
    expect(result.steps.length).toBe(STEPS + 1);
    expect(result.replayedSteps).toBe(STEPS);
    // Only step 6 was asked; nothing recorded ran again.
    expect(resumed.scripted.calls()).toBe(1);
    expect(resumed.ledger.executed).toBe(0);
    // Seven steps, each converted: whole at step 0, at step 5 (the last recorded: its calls could still run) and at step 6 (asked).
    expect(resumed.conversions).toEqual({ all: STEPS + 1, whole: 3 });
    // The model was asked with the whole history.
    const asked = resumed.scripted.prompts[0] as { role: string }[];
    expect(asked.filter((m) => m.role === 'assistant').length).toBe(STEPS);
    expect(asked.filter((m) => m.role === 'tool').length).toBe(STEPS);
    const events = await journal.events(runId);
    expect(events.filter((e) => e.type === 'replay-mismatch')).toEqual([]);
    expect(events.filter((e) => e.type === 'model-step').length).toBe(STEPS + 1);
  });

  it('a caller that reads the step messages (onStepStart) gets the whole history at every step, and the same result', async () => {
    const tailed = await recorded(STEPS);
    const whole = await recorded(STEPS);
    const a = receiptAgent();
    const b = receiptAgent();
    const seen: number[] = [];
    const viaTail = await runDurable({ runId: tailed, journal, ...a.settings });
    const viaWhole = await runDurable({
      runId: whole,
      journal,
      ...b.settings,
      onStepStart: (event: { messages: unknown[] }) => {
        seen.push(event.messages.length);
      },
    } as Parameters<typeof runDurable>[0]);
    // One user message, then each step's answer: its call and its result.
    expect(seen).toEqual(Array.from({ length: STEPS + 1 }, (_, k) => 1 + 2 * k));
    expect(b.conversions).toEqual({ all: STEPS + 1, whole: STEPS + 1 });
    expect(a.conversions.whole).toBe(3);
    if (viaTail.status !== 'completed' || viaWhole.status !== 'completed') throw new Error('both complete');
    expect(viaTail.result.responseMessages).toEqual(viaWhole.result.responseMessages);
    expect(viaTail.steps.map((s) => s.content)).toEqual(viaWhole.steps.map((s) => s.content));
    expect(a.ledger.executed + b.ledger.executed).toBe(0);
    // A repairToolCall (handed the messages when a call does not parse) keeps them whole too.
    const repaired = await recorded(STEPS);
    const c = receiptAgent();
    await runDurable({ runId: repaired, journal, ...c.settings, repairToolCall: async () => null });
    expect(c.conversions).toEqual({ all: STEPS + 1, whole: STEPS + 1 });
  });

  it('streamDurable resumes a run runDurable recorded the same way, without a mismatch: tails for the recorded steps, the new step streamed whole', async () => {
    const runId = await recorded(STEPS);
    const resumed = receiptAgent();
    const streaming = streamingModel(receiptStep);
    const streamed = streamDurable({ runId, journal, ...resumed.settings, model: streaming.model, strictReplay: true });
    const result = await streamed.durable;
    expect(result).toMatchObject({ status: 'completed', text: 'Recorded all.', replayedSteps: STEPS });
    expect(streaming.calls()).toBe(1);
    expect((streaming.prompts[0] as { role: string }[]).filter((m) => m.role === 'tool').length).toBe(STEPS);
    expect(resumed.ledger.executed).toBe(0);
    expect(resumed.conversions).toEqual({ all: STEPS + 1, whole: 3 });
    expect((await journal.events(runId)).filter((e) => e.type === 'replay-mismatch')).toEqual([]);
  });

  it('a run streamDurable recorded replays under generateText with strictReplay: the streamed settings ask nothing different', async () => {
    const runId = uniqueRunId();
    const first = receiptAgent();
    const streaming = streamingModel(receiptStep);
    const streamed = streamDurable({ runId, journal, ...first.settings, model: streaming.model });
    expect(await streamed.durable).toMatchObject({ status: 'completed', text: 'Recorded all.' });
    const again = receiptAgent();
    const replayed = await replayDurable({ runId, journal, ...again.settings, strictReplay: true });
    expect(replayed).toMatchObject({ status: 'completed', text: 'Recorded all.', replayedSteps: STEPS + 1 });
    expect(again.scripted.calls()).toBe(0);
    expect(first.ledger.executed + again.ledger.executed).toBe(STEPS);
  });

  it('a completed run replayed whole (replayDurable) gives its recorded steps their tail and answers as recorded', async () => {
    const runId = uniqueRunId();
    const first = receiptAgent();
    const done = await runDurable({ runId, journal, ...first.settings });
    expect(done.status).toBe('completed');
    expect(first.conversions).toEqual({ all: STEPS + 1, whole: STEPS + 1 });
    const again = receiptAgent();
    const replayed = await replayDurable({ runId, journal, ...again.settings, strictReplay: true });
    if (replayed.status !== 'completed' || done.status !== 'completed') throw new Error('completed');
    expect(replayed.text).toBe('Recorded all.');
    expect(replayed.result.responseMessages).toEqual(done.result.responseMessages);
    expect(again.scripted.calls()).toBe(0);
    expect(again.ledger.executed).toBe(0);
    // Steps 1 to 5 had their tails; step 0 and the last step (6) were converted whole.
    expect(again.conversions).toEqual({ all: STEPS + 1, whole: 2 });
    expect((await journal.events(runId)).filter((e) => e.type === 'replay-mismatch')).toEqual([]);
  });

  it('a replayed history that differs from the record is still noticed at the step where it differs', async () => {
    const runId = await recorded(STEPS);
    const resumed = receiptAgent();
    // The tool's output shaped differently now: step 1's prompt (the first holding step 0's result) differs.
    const reshaped = gnlTool(
      tool({
        inputSchema: z.object({ item: z.string() }),
        execute: async ({ item }) => ({ recorded: item }),
        toModelOutput: ({ output }) => ({ type: 'text', value: `recorded ${(output as { recorded: string }).recorded}` }),
      }),
      { sideEffect: true },
    );
    const result = await runDurable({ runId, journal, ...resumed.settings, tools: { record: reshaped } });
    expect(result.status).toBe('completed');
    const mismatches = (await journal.events(runId)).filter((e) => e.type === 'replay-mismatch');
    expect(mismatches.map((e) => (e as { step?: number }).step)).toEqual([1, 2, 3, 4, 5]);
  });
});
