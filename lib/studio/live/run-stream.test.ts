/**
 * The run page's live step on both journals, end to end below the browser: batches written through a
 * real hold (as a streaming invocation writes them), served by runStreamResponse, read back by the
 * browser's reader (readRunStream: the AI SDK's parser and fold) and read for a person (liveStepOf).
 * Judged by what a person would see: the step's text so far, its tool calls and their states, and
 * whether the stream says the answer is whole or only cut.
 */
import type { UIMessageChunk } from 'ai';
import { expect, it } from 'vitest';
import type { LiveJournal, RunHold } from '@/lib/durable';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { liveStepOf } from '../reads/live-step';
import { type RunStreamSnapshot, readRunStream } from '../reads/run-stream-reader';
import { followAnswer, type RunStreamResponseOptions, runStreamFrom, runStreamResponse } from './run-stream';

const messageId = (runId: string) => `gnl:${runId}`;

/** A run that is running, held by this test: the one writer of its stream. */
async function runningRun(journal: LiveJournal, prefix: string): Promise<{ runId: string; hold: RunHold }> {
  const runId = uniqueRunId(prefix);
  const hold = await journal.hold(runId);
  await hold.create({ prompt: 'Refund o_17', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['lookupCustomer', 'issueRefund'] });
  return { runId, hold };
}

/** Serves the run's stream and reads it as the browser does; `snapshots` fills as it arrives. */
async function read(journal: LiveJournal, options: Omit<RunStreamResponseOptions, 'journal' | 'signal'> & { signal?: AbortSignal }) {
  const response = await runStreamResponse({ journal, signal: new AbortController().signal, idleCheckMs: 100, ...options });
  const snapshots: RunStreamSnapshot[] = [];
  const outcome = response.body ? readRunStream({ body: response.body, onSnapshot: (s) => snapshots.push(s) }) : undefined;
  return { response, snapshots, outcome };
}

const lookupStep: UIMessageChunk[] = [
  { type: 'start-step' },
  { type: 'tool-input-start', toolCallId: 'call-0', toolName: 'lookupCustomer' },
  { type: 'tool-input-available', toolCallId: 'call-0', toolName: 'lookupCustomer', input: { customerId: 'c_42' } },
  { type: 'finish-step' },
  { type: 'tool-output-available', toolCallId: 'call-0', output: { found: true } },
];

describeEachJournal('the run page’s live step', (target) => {
  const journal = target.open().storage.runs as LiveJournal;

  it('a run that has streamed nothing answers 204, with nothing to read', async () => {
    const { runId, hold } = await runningRun(journal, 'live-none');
    const { response } = await read(journal, { runId });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    await hold.release();
  });

  it('a reader that connects mid-step sees the earlier steps replayed, then the live step word by word, then the whole answer and the finish', async () => {
    const { runId, hold } = await runningRun(journal, 'live-mid');
    await hold.appendStream({
      invocation: 'inv-1',
      batch: 0,
      chunks: [
        { type: 'start', messageId: messageId(runId) },
        ...lookupStep,
        { type: 'start-step' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Refunded ' },
      ],
      done: false,
    });
    const { response, snapshots, outcome } = await read(journal, { runId });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    await until(() => liveStepOf(snapshots.at(-1)?.message)?.text === 'Refunded ');
    expect(liveStepOf(snapshots.at(-1)?.message)).toEqual({ step: 2, text: 'Refunded ', reasoning: '', toolCalls: [] });
    expect(snapshots.at(-1)?.stepOpen).toBe(true);

    await hold.appendStream({ invocation: 'inv-1', batch: 1, chunks: [{ type: 'text-delta', id: 't', delta: '40 for ' }], done: false });
    await until(() => liveStepOf(snapshots.at(-1)?.message)?.text === 'Refunded 40 for ');
    await hold.appendStream({
      invocation: 'inv-1',
      batch: 2,
      chunks: [{ type: 'text-delta', id: 't', delta: 'o_17.' }, { type: 'text-end', id: 't' }, { type: 'finish-step' }, { type: 'finish' }],
      done: true,
    });
    expect(await outcome).toMatchObject({ finished: true });
    const last = snapshots.at(-1) as RunStreamSnapshot;
    expect(liveStepOf(last.message)?.text).toBe('Refunded 40 for o_17.');
    expect(last.stepOpen).toBe(false);
    // Every text the page showed for step 2 was a prefix of the answer: never a gap, never a repeat.
    const texts = snapshots
      .map((s) => liveStepOf(s.message))
      .filter((step) => step?.step === 2)
      .map((step) => step?.text ?? '');
    for (const text of texts) expect('Refunded 40 for o_17.'.startsWith(text)).toBe(true);
    // The replayed first step is in the answer too: its call, planned and returned.
    const first = liveStepOf({
      ...last.message,
      parts: last.message.parts.slice(
        0,
        last.message.parts.findLastIndex((p) => p.type === 'step-start'),
      ),
    });
    expect(first?.toolCalls).toEqual([
      { toolCallId: 'call-0', toolName: 'lookupCustomer', state: 'output-available', stateLabel: 'returned', input: { customerId: 'c_42' }, hasInput: true },
    ]);
    await hold.release();
  });

  it('a planned call shows its tool, its whole input and that it waits for approval', async () => {
    const { runId, hold } = await runningRun(journal, 'live-tool');
    const refund = { customerId: 'c_42', orderId: 'o_17', amount: 40, note: '<img src=x onerror=alert(1)>' };
    await hold.appendStream({
      invocation: 'inv-1',
      batch: 0,
      chunks: [
        { type: 'start', messageId: messageId(runId) },
        { type: 'start-step' },
        { type: 'tool-input-start', toolCallId: 'call-r', toolName: 'issueRefund' },
        { type: 'tool-input-available', toolCallId: 'call-r', toolName: 'issueRefund', input: refund },
        { type: 'tool-approval-request', approvalId: 'approval-r', toolCallId: 'call-r' },
        { type: 'finish-step' },
        { type: 'finish' },
      ],
      done: true,
    });
    const { snapshots, outcome } = await read(journal, { runId });
    expect(await outcome).toMatchObject({ finished: true });
    expect(liveStepOf(snapshots.at(-1)?.message)?.toolCalls).toEqual([
      { toolCallId: 'call-r', toolName: 'issueRefund', state: 'approval-requested', stateLabel: 'waiting for approval', input: refund, hasInput: true },
    ]);
    // Before its input was whole, the call was shown as being planned, without an input.
    expect(snapshots.map((s) => liveStepOf(s.message)?.toolCalls[0]?.stateLabel)).toContain('planning its input');
    await hold.release();
  });

  it('a newer invocation taking over ends the followed stream without a finish (the browser replays the newer), never with a broken body', async () => {
    const { runId, hold } = await runningRun(journal, 'live-taken');
    await hold.appendStream({
      invocation: 'dead',
      batch: 0,
      chunks: [
        { type: 'start', messageId: messageId(runId) },
        { type: 'start-step' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Half' },
      ],
      done: false,
    });
    const { snapshots, outcome } = await read(journal, { runId });
    await until(() => snapshots.length > 0);
    await hold.appendStream({ invocation: 'newer', batch: 0, chunks: [{ type: 'start', messageId: messageId(runId) }], done: false });
    expect(await outcome).toMatchObject({ finished: false });
    expect(liveStepOf(snapshots.at(-1)?.message)?.text).toBe('Half');

    await hold.appendStream({
      invocation: 'newer',
      batch: 1,
      chunks: [
        { type: 'start-step' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Whole.' },
        { type: 'text-end', id: 't' },
        { type: 'finish-step' },
        { type: 'finish' },
      ],
      done: true,
    });
    const again = await read(journal, { runId });
    expect(await again.outcome).toMatchObject({ finished: true });
    expect(liveStepOf(again.snapshots.at(-1)?.message)?.text).toBe('Whole.');
    await hold.release();
  });

  it('the chat’s way (untilAnswered): no lifetime, and a newer invocation taking over errors the stream, so useChat reconnects and replays it whole; a session that ended closes it quietly', async () => {
    const { runId, hold } = await runningRun(journal, 'chat-taken');
    await hold.appendStream({ invocation: 'dead', batch: 0, chunks: [{ type: 'start', messageId: messageId(runId) }], done: false });
    const open = { journal, runId, signal: new AbortController().signal, idleCheckMs: 100, untilAnswered: true };
    const reader = followAnswer({ ...open, maxMs: 50, heartbeatMs: 60_000 }).getReader();
    expect((await reader.read()).value).toMatchObject({ type: 'start' });
    const next = reader.read();
    // Past the lifetime it would have had, and nothing ended it.
    const past = await Promise.race([next.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('open'), 300))]);
    expect(past).toBe('open');
    await hold.appendStream({ invocation: 'newer', batch: 0, chunks: [{ type: 'start', messageId: messageId(runId) }], done: false });
    await expect(next).rejects.toThrow();

    // Signed out: the stream of the newer invocation ends without an error and without a finish.
    let checks = 0;
    const signedOut = followAnswer({ ...open, heartbeatMs: 50, stillAuthorized: async () => ++checks < 2 }).getReader();
    expect((await signedOut.read()).value).toMatchObject({ type: 'start' });
    expect(await signedOut.read()).toMatchObject({ done: true });
    await hold.release();
  });

  it("?from=next skips the finished stream and follows the next invocation's", async () => {
    const { runId, hold } = await runningRun(journal, 'live-next');
    await hold.appendStream({
      invocation: 'first',
      batch: 0,
      chunks: [{ type: 'start', messageId: messageId(runId) }, ...lookupStep, { type: 'finish' }],
      done: true,
    });
    const from = runStreamFrom(new Request('http://studio.test/api/runs/x/stream?from=next'));
    expect(from).toBe('next');
    expect(runStreamFrom(new Request('http://studio.test/api/runs/x/stream?from=elsewhere'))).toBe('replay');
    const { snapshots, outcome } = await read(journal, { runId, from });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(snapshots).toEqual([]);
    // Two batches, the first read before the done one: a next invocation read whole in one go is skipped
    // too (a defect of followRunStream's 'next', reported, not this module's to fix).
    await hold.appendStream({
      invocation: 'second',
      batch: 0,
      chunks: [
        { type: 'start', messageId: messageId(runId) },
        ...lookupStep,
        { type: 'start-step' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Do' },
      ],
      done: false,
    });
    await until(() => snapshots.length > 0);
    await hold.appendStream({
      invocation: 'second',
      batch: 1,
      chunks: [{ type: 'text-delta', id: 't', delta: 'ne.' }, { type: 'text-end', id: 't' }, { type: 'finish-step' }, { type: 'finish' }],
      done: true,
    });
    expect(await outcome).toMatchObject({ finished: true });
    expect(liveStepOf(snapshots.at(-1)?.message)).toMatchObject({ step: 2, text: 'Done.' });
    await hold.release();
  });

  it('a session that is no longer on, the browser going away and the lifetime each end a live stream without a finish', async () => {
    const { runId, hold } = await runningRun(journal, 'live-end');
    await hold.appendStream({ invocation: 'inv-1', batch: 0, chunks: [{ type: 'start', messageId: messageId(runId) }, { type: 'start-step' }], done: false });
    let checks = 0;
    const signedOut = await read(journal, { runId, heartbeatMs: 50, stillAuthorized: async () => ++checks < 2 });
    expect(await signedOut.outcome).toMatchObject({ finished: false });
    expect(checks).toBe(2);

    const browser = new AbortController();
    const gone = await read(journal, { runId, signal: browser.signal });
    await until(() => gone.snapshots.length > 0);
    browser.abort();
    expect(await gone.outcome).toMatchObject({ finished: false });

    const lifetime = await read(journal, { runId, maxMs: 100 });
    expect(await lifetime.outcome).toMatchObject({ finished: false });
    await hold.release();
  });
});

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
