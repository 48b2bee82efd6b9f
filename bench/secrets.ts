/**
 * What the secrets rules add to the journal's hot path, in CPU time per event (no database: the
 * append's round trip, bench/append.ts, is the same statement either way). Interleaved rounds:
 * - encode: what an append did before (encodeEvent);
 * - encode + pre-check: an event with no secret (the common case: one regular-expression scan);
 * - encode + seal: an event with an apiKey in its arguments (walk, AES-256-GCM, encode again);
 * - open: reading an event back (the walk over its user data; decrypting when it holds an envelope).
 *
 *   npx tsx bench/secrets.ts
 */
import { randomBytes } from 'node:crypto';
import type { JournalEvent } from '../lib/durable';
import { encodeEvent, JournalSecrets, journalKeyFrom } from '../lib/durable/internal';
import { latency, printTable } from './stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 2000);

const secrets = new JournalSecrets({ key: journalKeyFrom(randomBytes(32).toString('base64')) });
const runId = 'bench:secrets';

const modelStep: JournalEvent = {
  type: 'model-step',
  step: 0,
  provider: 'bench',
  modelId: 'bench-1',
  latencyMs: 812.4,
  result: { content: [{ type: 'text', text: 'x'.repeat(900) }], finishReason: { unified: 'stop' }, usage: { inputTokens: { total: 120 } } },
};
const withSecret: JournalEvent = {
  type: 'tool-call-start',
  toolCallId: 'call-1',
  toolName: 'charge',
  input: { apiKey: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345', amount: 40, note: 'y'.repeat(800) },
  idempotencyKey: 'gnl1a_x',
  attempt: 1,
  sideEffect: true,
};
const sealed = secrets.sealEvent(withSecret, runId);

function stored(event: JournalEvent): string {
  const json = encodeEvent(event);
  if (!secrets.mightHold(json)) return json;
  const next = secrets.sealEvent(event, runId);
  return next === event ? json : encodeEvent(next);
}

const variants: { name: string; run(): unknown }[] = [
  { name: 'encode (before), 1 KB model step', run: () => encodeEvent(modelStep) },
  { name: 'encode + pre-check, 1 KB model step (no secret)', run: () => stored(modelStep) },
  { name: 'encode + seal, 1 KB tool call with an apiKey', run: () => stored(withSecret) },
  { name: 'open, 1 KB model step (no envelope)', run: () => secrets.openEvent(modelStep, runId, 'e') },
  { name: 'open, 1 KB tool call with a sealed apiKey', run: () => secrets.openEvent(sealed, runId, 'e') },
];

const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
for (const v of variants) for (let i = 0; i < 500; i++) v.run();
for (let round = 0; round < ROUNDS; round++) {
  for (const v of variants) {
    const list = samples.get(v.name) as number[];
    for (let i = 0; i < PER_ROUND; i++) {
      const started = performance.now();
      v.run();
      list.push(performance.now() - started);
    }
  }
}
printTable(
  `secrets on the hot path, CPU per event, ${ROUNDS * PER_ROUND} per variant (ms)`,
  variants.map((v) => ({ variant: v.name, ...latency(samples.get(v.name) as number[]) })),
);
