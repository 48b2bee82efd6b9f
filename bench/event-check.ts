/**
 * What the append's schema check (event-schemas.ts assertValidEvent) costs, beside the encoding every
 * append already pays (event-limit.ts encodeEventParts): CPU only, no database, in microseconds per
 * event. The events are the hot path's: bench/append.ts's ~1 KB model step, a side effect's start, a
 * read-only call's end, a suspend with ten pending approvals. Batches of 1,000 calls, interleaved.
 *
 *   npx tsx bench/event-check.ts
 */
import type { JournalEvent } from '../lib/durable';
import { assertValidEvent, encodeEventParts } from '../lib/durable/journal';
import { printTable, round, writeResults } from './stats';

const BATCHES = Number(process.env.BENCH_ROUNDS ?? 200);
const PER_BATCH = 1_000;
const at = new Date().toISOString();

const EVENTS: Record<string, JournalEvent> = {
  'model-step (~1 KB)': {
    type: 'model-step',
    step: 0,
    provider: 'bench',
    modelId: 'bench-1',
    latencyMs: 812.4,
    result: { content: [{ type: 'text', text: 'x'.repeat(900) }], finishReason: { unified: 'stop' }, usage: { inputTokens: { total: 120 } } },
  },
  'tool-call-start': {
    type: 'tool-call-start',
    toolCallId: 'call-1',
    toolName: 'refund',
    input: { orderId: 'o_17', amount: 40 },
    idempotencyKey: 'gnl2_x',
    attempt: 1,
    sideEffect: true,
  },
  'tool-call-end (read-only)': {
    type: 'tool-call-end',
    toolCallId: 'call-1',
    toolName: 'lookupOrder',
    idempotencyKey: 'gnl2_y',
    attempt: 1,
    output: { orderId: 'o_17', total: 40 },
    durationMs: 2,
    input: { orderId: 'o_17' },
    startedAt: at,
    source: 'executed',
  },
  'run-suspend (10 pending)': {
    type: 'run-suspend',
    status: 'waiting-approval',
    pending: Array.from({ length: 10 }, (_, i) => ({
      kind: 'approval' as const,
      toolCallId: `call-${i}`,
      toolName: 'refund',
      input: { amount: i },
      requestedAt: at,
    })),
  },
};

function perCall(run: () => void): number {
  const started = performance.now();
  for (let i = 0; i < PER_BATCH; i++) run();
  return ((performance.now() - started) * 1000) / PER_BATCH;
}

const rows = Object.entries(EVENTS).map(([name, event]) => {
  const check: number[] = [];
  const encode: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    check.push(perCall(() => assertValidEvent(event)));
    encode.push(perCall(() => encodeEventParts(event)));
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  const checkUs = median(check);
  const encodeUs = median(encode);
  return { event: name, checkUs: round(checkUs, 2), encodeUs: round(encodeUs, 2), checkPerEncode: round(checkUs / encodeUs, 2) };
});

printTable(`schema check vs encoding, median µs per event (${BATCHES} batches of ${PER_BATCH})`, rows);
console.log(`written to ${writeResults('event-check', rows)}`);
