/**
 * What streamDurable's hold costs (stream-step.ts: a streamed step's tool calls reach the loop only once
 * the step is journaled). A streaming model sends text, then a tool call, then waits `GAP_MS` before its
 * finish; we measure, per round, when the first text delta reached the reader and when the tool's execute
 * began, both from the moment the model sent the call, for plain streamText and for streamDurable on
 * PGlite and (with DATABASE_URL) Postgres. Medians of ROUNDS rounds.
 *
 *   npx tsx bench/stream-hold.ts        (BENCH_ROUNDS=20 BENCH_GAP_MS=200 by default)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { type Journal, streamDurable } from '../lib/durable';
import { PGliteStorage, PostgresStorage } from '../lib/durable/storage';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 200);
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };

interface Round {
  /** From the request to the first text delta the reader got. */
  firstTextMs: number;
  /** From the moment the model sent the tool call to its execute's start. */
  callToExecuteMs: number;
}

function timedModel(marks: { callSentAt?: number }) {
  return new MockLanguageModelV4({
    doStream: async (options) => {
      const step = options.prompt.filter((m) => m.role === 'assistant').length;
      const parts: (LanguageModelV4StreamPart | 'gap')[] =
        step === 0
          ? [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Refunding.' },
              { type: 'text-end', id: 't' },
              { type: 'tool-call', toolCallId: 'c1', toolName: 'refund', input: '{"orderId":"o_17"}' },
              'gap',
              { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage },
            ]
          : [
              { type: 'stream-start', warnings: [] },
              { type: 'text-start', id: 't' },
              { type: 'text-delta', id: 't', delta: 'Done.' },
              { type: 'text-end', id: 't' },
              { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage },
            ];
      let i = 0;
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async pull(controller) {
            const part = parts[i++];
            if (part === 'gap') await new Promise((resolve) => setTimeout(resolve, GAP_MS));
            else if (part) {
              if (part.type === 'tool-call') marks.callSentAt = performance.now();
              controller.enqueue(part);
            } else controller.close();
          },
        }),
      };
    },
  });
}

function refundTool(marks: { executeAt?: number }) {
  return tool({
    inputSchema: z.object({ orderId: z.string() }),
    execute: async () => {
      marks.executeAt = performance.now();
      return { ok: true };
    },
  });
}

type Tools = { refund: ReturnType<typeof refundTool> };

async function round(run: (model: MockLanguageModelV4, tools: Tools) => { textStream: AsyncIterable<string>; done: PromiseLike<unknown> }): Promise<Round> {
  const marks: { callSentAt?: number; executeAt?: number } = {};
  const refund = refundTool(marks);
  const started = performance.now();
  const { textStream, done } = run(timedModel(marks), { refund });
  let firstText: number | undefined;
  for await (const _ of textStream) firstText ??= performance.now();
  await done;
  return { firstTextMs: (firstText ?? Number.NaN) - started, callToExecuteMs: (marks.executeAt ?? Number.NaN) - (marks.callSentAt ?? Number.NaN) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function measure(name: string, run: Parameters<typeof round>[0]): Promise<void> {
  await round(run); // warm-up
  const rounds: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await round(run));
  const firstText = median(rounds.map((r) => r.firstTextMs)).toFixed(1);
  const callToExecute = median(rounds.map((r) => r.callToExecuteMs)).toFixed(1);
  console.log(`${name.padEnd(28)} first text ${firstText.padStart(7)} ms   call → execute ${callToExecute.padStart(7)} ms`);
}

const plain = (model: MockLanguageModelV4, tools: Tools) => {
  const result = streamText({ model, tools, stopWhen: stepCountIs(5), prompt: 'Refund o_17' });
  return { textStream: result.textStream, done: result.consumeStream() };
};

const durable = (journal: Journal) => {
  let n = 0;
  return (model: MockLanguageModelV4, tools: Tools) => {
    const result = streamDurable({ runId: `bench-stream-hold:${process.pid}:${Date.now()}:${n++}`, journal, model, tools, prompt: 'Refund o_17' });
    return { textStream: result.textStream, done: result.durable };
  };
};

console.log(`[stream-hold] ${ROUNDS} rounds, the model waits ${GAP_MS} ms between its tool call and its finish; medians`);
await measure('streamText (no journal)', plain);
const dir = mkdtempSync(path.join(tmpdir(), 'gnl-bench-stream-'));
const pglite = new PGliteStorage({ dataDir: path.join(dir, 'data') });
try {
  await measure('streamDurable, PGlite', durable(pglite.runs));
} finally {
  await pglite.close();
  rmSync(dir, { recursive: true, force: true });
}
if (process.env.DATABASE_URL) {
  const pg = new PostgresStorage({ connectionString: process.env.DATABASE_URL });
  try {
    await measure('streamDurable, Postgres', durable(pg.runs));
  } finally {
    await pg.close();
  }
}
