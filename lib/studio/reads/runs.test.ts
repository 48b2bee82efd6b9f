/**
 * The run page's paging on the journal storageFromEnv gives (a fresh embedded one; the shared Postgres
 * when DATABASE_URL is set, hence a runId no earlier run used): a run of 2 500 events opens at its
 * chunk-aligned tail, earlier chunks are exact ranges, and the totals count every event.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '@/lib/durable';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { getEventsChunk, getRunView, listRuns, WATERFALL_BARS_SENT } from './runs';
import { CHUNK_SIZE } from './timeline-window';

const runId = `studio:long-run:${randomUUID()}`;
const STEPS = 2_499;
let storage: Storage;

function step(n: number): JournalEvent {
  return {
    type: 'model-step',
    step: n,
    provider: 'scripted',
    modelId: 'scripted-v1',
    latencyMs: 2,
    result: {
      content: [{ type: 'text', text: `step ${n}` }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: { inputTokens: { total: 10, cacheRead: 1 }, outputTokens: { total: 3, reasoning: 1 } },
    },
  };
}

beforeAll(async () => {
  process.env.GNL_DATA_DIR = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-studio-runs-')), 'data');
  storage = storageFromEnv();
  const hold = await storage.runs.hold(runId);
  await hold.create({ prompt: 'a long run', modelId: 'scripted-v1', provider: 'scripted', toolNames: [] });
  for (let n = 0; n < STEPS; n += 500) await hold.append(Array.from({ length: Math.min(500, STEPS - n) }, (_, i) => step(n + i)));
  await hold.release();
});

afterAll(async () => {
  await storage.close();
});

describe('a run started with a 1.2 MB image (stored apart, docs/large-payloads.md)', () => {
  it('is listed with a placeholder for the image, never its bytes; its own page reads the image whole', async () => {
    const imageRun = `studio:image:${randomUUID()}`;
    const image = new Uint8Array(1_200_000).fill(7);
    const hold = await storage.runs.hold(imageRun);
    await hold.create({ messages: [{ role: 'user', content: [{ type: 'image', image }] }], modelId: 'scripted-v1', provider: 'scripted', toolNames: [] });
    await hold.release();
    const page = await listRuns({ limit: 50 });
    const listed = 'runs' in page ? page.runs.find((run) => run.runId === imageRun) : undefined;
    const shown = JSON.stringify(listed?.input);
    expect(shown).toMatch(/\[1\.5 MiB stored apart, sha256 [0-9a-f]{12}…\]/);
    expect(shown.length).toBeLessThan(1000);
    const view = await getRunView(imageRun);
    // The run page reads the run whole (getRun), and shows bytes as the Studio always does.
    expect(JSON.stringify(view?.run.input)).toContain('[1200000 bytes]');
  });
});

describe('a run page over a long journal', () => {
  it('starts at a chunk-aligned tail ending at the newest event, with totals over the whole run', async () => {
    const view = await getRunView(runId);
    expect(view?.run.lastSeq).toBe(STEPS + 1);
    const tail = view?.tail;
    expect(tail?.startSeq).toBe(2_201);
    expect(tail?.events.map((e) => e.seq)).toEqual(Array.from({ length: 300 }, (_, i) => 2_201 + i));
    expect(view?.totals).toMatchObject({
      throughSeq: 2_500,
      steps: STEPS,
      tokens: { input: 10 * STEPS, output: 3 * STEPS, cacheRead: STEPS, cacheWrite: 0, reasoning: STEPS },
      modelMs: 2 * STEPS,
    });
  });

  it('carries the price table, and the runs list prices each run from its journal: a model without a price is unknown, never $0', async () => {
    const view = await getRunView(runId);
    expect(view?.prices.files).toEqual([{ from: 'built-in', takenOn: '2025-06-01' }]);
    expect(view?.totals.models).toEqual([
      {
        provider: 'scripted',
        modelId: 'scripted-v1',
        steps: STEPS,
        unmetered: 0,
        uncachedInput: 9 * STEPS,
        cacheRead: STEPS,
        cacheWrite: 0,
        output: 3 * STEPS,
        reasoning: STEPS,
      },
    ]);
    const page = await listRuns({ q: runId, limit: 5 });
    const listed = 'runs' in page ? page.runs.find((run) => run.runId === runId) : undefined;
    expect(listed?.cost).toEqual({
      picoUsd: 0,
      pricedSteps: 0,
      unpricedSteps: STEPS,
      unpriced: [{ provider: 'scripted', modelId: 'scripted-v1', steps: STEPS, reason: 'no-price' }],
      takenOn: [],
    });
  });

  it('folds the whole run into its waterfall, not only the tail: one bar per model step, one invocation, no queue entry', async () => {
    const view = await getRunView(runId);
    expect(view?.waterfall.throughSeq).toBe(2_500);
    // The page carries the newest bars (the chart draws the newest 60) and the count of the others.
    expect(view?.waterfall.bars).toHaveLength(WATERFALL_BARS_SENT);
    expect(view?.waterfall.trimmed).toBe(STEPS - WATERFALL_BARS_SENT);
    expect(view?.waterfall.bars.at(-1)?.id).toBe(`model:${STEPS - 1}`);
    expect(view?.waterfall.bars.every((bar) => bar.kind === 'model' && bar.endMs - bar.startMs === 2)).toBe(true);
    expect(view?.waterfall.invocations.invocations).toEqual([expect.objectContaining({ began: 'created', seq: 1 })]);
    expect(view?.executor).toBeNull();
  });

  it('serves earlier events as exact chunks, and nothing for an unknown run', async () => {
    const chunk = await getEventsChunk(runId, 3);
    expect(chunk.map((e) => e.seq)).toEqual(Array.from({ length: CHUNK_SIZE }, (_, i) => 3 * CHUNK_SIZE + 1 + i));
    expect(chunk[0]).toMatchObject({ type: 'model-step', step: 3 * CHUNK_SIZE - 1 });
    expect(typeof chunk[0]?.at).toBe('string');
    expect(await getEventsChunk('studio:no-such-run', 0)).toEqual([]);
    expect(await getRunView('studio:no-such-run')).toBeUndefined();
    expect(await getRunView('')).toBeUndefined();
  });
});

describe('the inbox of a decided run', () => {
  it('says "resuming" once a resume was asked for since the decision, until the next invocation begins', async () => {
    const { loadRunInbox } = await import('./inbox');
    const decided = `studio:resuming:${randomUUID()}`;
    const hold = await storage.runs.hold(decided);
    await hold.create({ prompt: 'Refund o_17', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['refund'] });
    const requestedAt = new Date().toISOString();
    await hold.append([
      { type: 'tool-approval-request', toolCallId: 'call-1', toolName: 'refund', input: { orderId: 'o_17' }, requestedAt },
      {
        type: 'run-suspend',
        status: 'waiting-approval',
        pending: [{ kind: 'approval', toolCallId: 'call-1', toolName: 'refund', input: { orderId: 'o_17' }, requestedAt }],
      },
    ]);
    await hold.release();
    await storage.runs.approve({ runId: decided, toolCallId: 'call-1', by: 'alice' });
    expect((await loadRunInbox(decided))[0]).not.toHaveProperty('resuming');
    await storage.runs.requestResume({ runId: decided, by: 'alice', reason: 'decided' });
    expect((await loadRunInbox(decided))[0]).toMatchObject({ item: { decision: { outcome: 'approved' } }, resuming: { by: 'alice' } });
  });
});
