/**
 * The stream log on both journals: what a resumable streamDurable writes, and what followRunStream
 * gives a client that connects at any moment (before the run starts, mid-step, after it ended), read
 * back the way useChat reads it (readUIMessageStream). Judged by the refund ledger and by the text:
 * a reader sees the whole answer once, never a gap or a repeat.
 */
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { readUIMessageStream, tool, type UIMessage, type UIMessageChunk } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger, REFUND_INPUT, refundScript } from '@/tests/support/refund-agent';
import { streamingModel, streamParts } from '@/tests/support/scripted-model';
import { gnlTool, streamDurable } from '../index';
import { answerMessageId, followRunStream, StreamSupersededError } from './stream-log';

function refundTools() {
  const ledger = new Ledger();
  const refund = gnlTool(
    tool({
      inputSchema: z.object({ orderId: z.string(), amount: z.number(), password: z.string().optional() }),
      execute: async (input, { idempotencyKey }) => ledger.refund(idempotencyKey as string, input),
    }),
    { sideEffect: true },
  );
  return { ledger, tools: { refund } };
}

/** A streaming model whose text step waits at `gate` after its first words: a reader can connect mid-step. */
function pausingModel(gate: Promise<void>) {
  let calls = 0;
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-v1',
    doStream: async (options) => {
      calls += 1;
      const stepNumber = options.prompt.filter((m) => m.role === 'assistant').length;
      const parts = streamParts(refundScript(stepNumber), stepNumber);
      const firstDelta = parts.findIndex((part) => part.type === 'text-delta');
      const pauseAt = firstDelta >= 0 ? firstDelta + 2 : -1;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async start(controller) {
            for (const [i, part] of parts.entries()) {
              if (i === pauseAt) await gate;
              controller.enqueue(part);
            }
            controller.close();
          },
        }),
      };
    },
  });
  return { model, calls: () => calls };
}

async function finalMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream })) last = message;
  return last;
}

function textOf(message: UIMessage | undefined): string {
  return (message?.parts ?? []).flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

async function chunksOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describeEachJournal('stream log', (target) => {
  const { journal } = target.open();

  it('a resumable run writes its UI stream; a reader after the end replays the same answer, without tool-input deltas, secrets redacted', async () => {
    const runId = uniqueRunId('log');
    const { ledger, tools } = refundTools();
    const script = (step: number) =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { ...REFUND_INPUT, password: 'hunter2-secret' } }] }
        : refundScript(step);
    const streamed = streamDurable({ runId, journal, model: streamingModel(script).model, tools, prompt: 'Refund o_17', resumable: true });
    const live = await finalMessage(streamed.toUIMessageStream({ generateMessageId: () => answerMessageId(runId) }) as ReadableStream<UIMessageChunk>);
    expect(await streamed.durable).toMatchObject({ status: 'completed' });

    const batches = await journal.streamBatches(runId);
    expect(batches.length).toBeGreaterThan(0);
    expect(new Set(batches.map((b) => b.invocation)).size).toBe(1);
    expect(batches.map((b) => b.batch)).toEqual(batches.map((_, i) => i));
    expect(batches.filter((b) => b.done).map((b) => b.batch)).toEqual([batches.length - 1]);
    const logged = batches.flatMap((b) => b.chunks as UIMessageChunk[]);
    expect(logged.some((c) => c.type === 'tool-input-delta')).toBe(false);
    expect(JSON.stringify(logged)).not.toContain('hunter2-secret');

    const replayed = await finalMessage(followRunStream({ journal, runId }));
    expect(replayed?.id).toBe(answerMessageId(runId));
    expect(textOf(replayed)).toBe('Refunded 40 for o_17.');
    expect(textOf(replayed)).toBe(textOf(live));
    expect(replayed?.parts.map((p) => p.type)).toEqual(live?.parts.map((p) => p.type));
    expect(ledger.total).toBe(1);
  });

  it('a reader that connects before the run exists, and one that connects mid-step, each see the whole answer once', async () => {
    const runId = uniqueRunId('log-live');
    const { ledger, tools } = refundTools();
    const early = finalMessage(followRunStream({ journal, runId, from: 'next', idleCheckMs: 200 }));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const streamed = streamDurable({ runId, journal, model: pausingModel(gate).model, tools, prompt: 'Refund o_17', resumable: { flushMs: 5 } });
    // Mid-step: the refund ran and the answer's first words are in the log.
    await until(async () => (await journal.streamBatches(runId)).some((b) => (b.chunks as UIMessageChunk[]).some((c) => c.type === 'text-delta')));
    const middle = finalMessage(followRunStream({ journal, runId, idleCheckMs: 200 }));
    open();
    await streamed.durable;
    expect(textOf(await early)).toBe('Refunded 40 for o_17.');
    expect(textOf(await middle)).toBe('Refunded 40 for o_17.');
    expect(ledger.total).toBe(1);
  });

  it('a newer invocation supersedes the followed one (StreamSupersededError); a new reader gets the newer, and the older is deleted once it is done', async () => {
    const runId = uniqueRunId('log-take');
    const { tools } = refundTools();
    // An invocation that died mid-answer: its batches, no done one (written through a real hold).
    const first = streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17' });
    await first.durable;
    const hold = await journal.hold(runId);
    await hold.appendStream({
      invocation: 'dead',
      batch: 0,
      chunks: [
        { type: 'start', messageId: answerMessageId(runId) },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Refu' },
      ],
      done: false,
    });
    const following = chunksOf(followRunStream({ journal, runId, idleCheckMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await hold.appendStream({ invocation: 'next', batch: 0, chunks: [{ type: 'start', messageId: answerMessageId(runId) }], done: false });
    await expect(following).rejects.toBeInstanceOf(StreamSupersededError);
    await hold.appendStream({
      invocation: 'next',
      batch: 1,
      chunks: [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Refunded.' }, { type: 'text-end', id: 't' }, { type: 'finish' }],
      done: true,
    });
    await hold.release();
    expect(textOf(await finalMessage(followRunStream({ journal, runId })))).toBe('Refunded.');
    expect(new Set((await journal.streamBatches(runId)).map((b) => b.invocation))).toEqual(new Set(['next']));
  });

  it("'next' skips a done stream and waits for the next invocation; a run that settles without one is replayed as it was", async () => {
    const runId = uniqueRunId('log-next');
    const { tools } = refundTools();
    const done = streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17', resumable: true });
    await done.durable;
    // Completed: nothing comes next, so after two idle checks the done stream is what the reader gets.
    const message = await finalMessage(followRunStream({ journal, runId, from: 'next', idleCheckMs: 50 }));
    expect(textOf(message)).toBe('Refunded 40 for o_17.');
  });

  it("'next' follows the next invocation even when its whole stream arrives in one batch (only the stream finished at connect time is skipped)", async () => {
    const runId = uniqueRunId('log-next-one');
    const { tools } = refundTools();
    await streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17', resumable: true }).durable;
    // The run is about to stream again (as after a resume): the reader skips the finished stream and waits.
    const reading = finalMessage(followRunStream({ journal, runId, from: 'next', idleCheckMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const hold = await journal.hold(runId);
    const next = [
      { type: 'start', messageId: answerMessageId(runId) },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Again.' },
      { type: 'text-end', id: 't' },
      { type: 'finish' },
    ];
    await hold.appendStream({ invocation: 'next', batch: 0, chunks: next, done: true });
    await hold.release();
    // Long before an idle check (60 s): the next stream was taken as it came.
    expect(textOf(await reading)).toBe('Again.');
  });

  it('an invocation that died without its done batch, on a settled run, ends with a finish after the idle checks', async () => {
    const runId = uniqueRunId('log-idle');
    const { tools } = refundTools();
    await streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17' }).durable;
    const hold = await journal.hold(runId);
    await hold.appendStream({
      invocation: 'dead',
      batch: 0,
      chunks: [
        { type: 'start', messageId: 'm' },
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'Half' },
      ],
      done: false,
    });
    await hold.release();
    const chunks = await chunksOf(followRunStream({ journal, runId, idleCheckMs: 50 }));
    expect(chunks.at(-1)).toEqual({ type: 'finish' });
    expect(chunks.filter((c) => c.type === 'text-delta').map((c) => (c as { delta: string }).delta)).toEqual(['Half']);
  });

  it('an invocation refused with RunBusyError writes nothing to the stream of the run it could not take', async () => {
    const runId = uniqueRunId('log-busy');
    const { tools } = refundTools();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const running = streamDurable({ runId, journal, model: pausingModel(gate).model, tools, prompt: 'Refund o_17', resumable: true });
    await until(async () => (await journal.streamBatches(runId)).length > 0);
    const busy = streamDurable({ runId, journal, model: streamingModel(refundScript).model, tools, prompt: 'Refund o_17', resumable: true });
    await expect(busy.durable).rejects.toThrow(/busy|held/i);
    open();
    await running.durable;
    expect(new Set((await journal.streamBatches(runId)).map((b) => b.invocation)).size).toBe(1);
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
