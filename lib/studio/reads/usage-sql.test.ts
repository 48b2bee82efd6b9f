/**
 * The runs page's SQL and the core's TS reader read token usage the same way, on both real journals
 * (PGlite; the shared Postgres when DATABASE_URL is set): every usage shape the journal holds, written
 * through a run's hold like any model step, then each count read back by SQL from the stored row and
 * by readTokenUsage from the event the journal gives back, plus hundreds of random usages (seeded).
 */
import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import type { JournalEvent, RunInput } from '@/lib/durable';
import { stepTokenUsage, tokenTotal, USAGE_COUNTS, type UsageCount } from '@/lib/durable/usage';
import { addModelStep, addToTotals, EMPTY_TOTALS, type ModelTokens } from '@/lib/durable/projection';
import { describeEachJournal } from '@/tests/support/journals';
import { searchRuns, type SearchDb } from './run-search';
import { type ModelTokensRow, modelTokensRow, toModelTokens } from './model-token-rows';
import { runModelTokensStatement } from './run-costs';
import { billedTokensSql, stepTokensSql, usageCountSql } from './usage-sql';

/** Every shape a recorded step's usage has had, and what a step without one looks like. */
const FIXTURES: Record<string, unknown> = {
  'v7 (LanguageModelV4Usage), every count': {
    inputTokens: { total: 100, noCache: 55, cacheRead: 40, cacheWrite: 5 },
    outputTokens: { total: 20, text: 15, reasoning: 5 },
    raw: { prompt_tokens: 100, completion_tokens: 20 },
  },
  'v7, counts a provider left undefined': { inputTokens: { total: 7, noCache: undefined, cacheRead: 0 }, outputTokens: { total: undefined, reasoning: 2 } },
  'v7, totals only': { inputTokens: { total: 9 }, outputTokens: { total: 4 } },
  'v2 (LanguageModelV2Usage), plain numbers': { inputTokens: 12, outputTokens: 3, totalTokens: 15, reasoningTokens: 1, cachedInputTokens: 4 },
  'v2, a count that is not a number': { inputTokens: 5, outputTokens: 'n/a' },
  'both shapes mixed': { inputTokens: { total: 3, cacheRead: 1 }, outputTokens: 4, cachedInputTokens: 2 },
  'fractions and a count at the bound (MAX_TOKEN_COUNT)': { inputTokens: 0.5, outputTokens: { total: 1e15 } },
  'counts past the bound or below 0: not reported': { inputTokens: -3, outputTokens: { total: 2 ** 60 + 2 ** 10 }, reasoningTokens: 1.7e308 },
  // Summed with the one above, past a float's range: before the bound, the runs page's query failed on it.
  'another count near the largest float': { inputTokens: 1, outputTokens: 1, reasoningTokens: 1.7e308 },
  'non-finite and -0 (stored tagged)': { inputTokens: Number.NaN, outputTokens: { total: Number.POSITIVE_INFINITY, reasoning: -0 } },
  'totals that are objects, arrays, strings': { inputTokens: { total: { total: 3 } }, outputTokens: { total: [4] }, reasoningTokens: '2' },
  'usage null': null,
  'usage a number': 42,
  'usage an array': [{ inputTokens: 3 }],
};
const RESULTS: unknown[] = [
  ...Object.values(FIXTURES).map((usage) => ({ content: [], usage })),
  { content: [{ type: 'text', text: 'no usage at all' }] },
  { gnlRefused: { bytes: 10, limit: 5 } },
  'a result that is a string',
];

/** A count as providers and junk put it: mostly token-like integers, sometimes anything a number can be, or not a number. */
const count = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 5_000_000 }) },
  { weight: 2, arbitrary: fc.double() },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, '12', true, [3], { total: 4 }, -0, 2 ** 53 + 2) },
);
const details = (keys: string[]) => fc.record(Object.fromEntries(keys.map((key) => [key, count])), { requiredKeys: [] });
const direction = (keys: string[]) => fc.oneof(count, details(keys), fc.jsonValue({ maxDepth: 2 }));
const usage = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record(
      {
        inputTokens: direction(['total', 'noCache', 'cacheRead', 'cacheWrite']),
        outputTokens: direction(['total', 'text', 'reasoning']),
        cachedInputTokens: count,
        reasoningTokens: count,
        totalTokens: count,
        raw: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const SEED = 20261201;
const RANDOM = fc.sample(usage, { seed: SEED, numRuns: 400 }).map((u) => ({ content: [], usage: u }));

const modelSteps = (results: unknown[]): JournalEvent[] =>
  results.map((result, step) => ({ type: 'model-step', step, provider: 'p', modelId: 'm', latencyMs: 1, result }));

type Db = SearchDb & { execute(statement: SQL): Promise<unknown> };
const rowsOf = <T>(result: unknown) => (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];

/** SQL's numeric as a JS number (drivers give it as text); null stays null, for "not reported". */
const numberOrNull = (value: unknown) => (value === null || value === undefined ? null : Number(value));

describeEachJournal('token usage in SQL and in TS', (target) => {
  const { storage } = target.open();
  const U = randomUUID().slice(0, 8);
  const fixtureRun = `usage-${U}-fixtures`;
  const randomRun = `usage-${U}-random`;
  let db: Db;

  beforeAll(async () => {
    db = (await storage.database()) as unknown as Db;
    const input: RunInput = { prompt: 'usage', modelId: 'm', provider: 'p', toolNames: [] };
    for (const [runId, results] of [
      [fixtureRun, RESULTS],
      [randomRun, RANDOM],
    ] as const) {
      const hold = await storage.runs.hold(runId);
      await hold.create(input);
      await hold.append(modelSteps([...results]));
      await hold.release();
    }
  }, 120_000);

  /** Per step of the run: each count and the step's total, as SQL reads the stored row and as TS reads the event given back. */
  async function bothReaders(runId: string) {
    const usageOf = sql`(e.payload->'result'->'usage')`;
    const columns = sql.join(
      USAGE_COUNTS.map((c) => sql`${usageCountSql(usageOf, c)} as ${sql.identifier(c)}`),
      sql`, `,
    );
    const rows = rowsOf<Record<UsageCount | 'total' | 'step', unknown>>(
      await db.execute(sql`select (e.payload->>'step')::int as step, ${columns}, ${stepTokensSql(sql`e.payload`)} as total
        from gnl.run_events e where e.run_id = ${runId} and e.type = 'model-step' order by e.seq`),
    );
    const events = (await storage.runs.events(runId)).flatMap((e) => (e.type === 'model-step' ? [e] : []));
    expect(rows.length).toBe(events.length);
    return events.map((event, i) => {
      const row = rows[i] as Record<string, unknown>;
      const ts = stepTokenUsage(event.result);
      type Read = Record<UsageCount, number | null> & { total: number };
      return {
        step: event.step,
        sql: { ...Object.fromEntries(USAGE_COUNTS.map((c) => [c, numberOrNull(row[c])])), total: Number(row.total) } as Read,
        ts: { ...Object.fromEntries(USAGE_COUNTS.map((c) => [c, ts[c] ?? null])), total: tokenTotal(ts) } as Read,
      };
    });
  }

  it('agree on every usage shape ever recorded, count by count', async () => {
    const steps = await bothReaders(fixtureRun);
    expect(steps).toHaveLength(RESULTS.length);
    for (const { step, sql: bySql, ts } of steps) expect({ step, ...bySql }).toEqual({ step, ...ts });
    // What they agree on is right, too: the v7 step, the plain-number one, the mixed one, a junk one.
    expect(steps[0]?.ts).toEqual({ input: 100, noCache: 55, cacheRead: 40, cacheWrite: 5, output: 20, text: 15, reasoning: 5, total: 120 });
    expect(steps[3]?.ts).toMatchObject({ input: 12, output: 3, cacheRead: 4, reasoning: 1, noCache: null, total: 15 });
    expect(steps[5]?.ts).toMatchObject({ input: 3, output: 4, cacheRead: 1, total: 7 });
    expect(steps[7]?.ts).toMatchObject({ input: null, output: null, reasoning: null, total: 0 });
  });

  it(`agree on ${RANDOM.length} random usages (fast-check seed ${SEED}), count by count`, async () => {
    const steps = await bothReaders(randomRun);
    expect(steps).toHaveLength(RANDOM.length);
    // Totals too, exactly: SQL adds exact decimals and rounds once to a double, as JS's one addition does.
    for (const { step, sql: bySql, ts } of steps) expect({ step, ...bySql }).toEqual({ step, ...ts });
    // The sample is not all junk: most steps report counts, of both directions and the details.
    const reported = (c: UsageCount) => steps.filter((s) => s.ts[c] !== null).length;
    for (const c of USAGE_COUNTS) expect(reported(c), c).toBeGreaterThan(20);
  });

  it("the runs page's tokens column is the sum of the reader's totals", async () => {
    const [row] = await searchRuns(db, { q: fixtureRun, limit: 1 });
    const steps = await bothReaders(fixtureRun);
    const sum = steps.reduce((total, s) => total + s.ts.total, 0);
    // One fixture is at the bound (1e15): JS's running sum and SQL's exact one agree to a float's precision.
    expect(Math.abs(Number(row?.tokens) - sum)).toBeLessThanOrEqual(sum * 1e-15);
    expect(sum).toBeGreaterThanOrEqual(1e15);
    // The counts past the bound (2^60, 1e308, a negative one) are not in it.
    expect(sum).toBeLessThan(2e15);
  });
});

describeEachJournal("billed tokens per model in SQL and in the run totals' fold", (target) => {
  const { storage } = target.open();
  const runId = `billed-${randomUUID().slice(0, 8)}`;
  let db: Db;

  beforeAll(async () => {
    db = (await storage.database()) as unknown as Db;
    const hold = await storage.runs.hold(runId);
    await hold.create({ prompt: 'billed', modelId: 'm', provider: 'p', toolNames: [] });
    // Every fixture on two models, so the per-model grouping is exercised too.
    await hold.append(
      RESULTS.map((result, step) => ({
        type: 'model-step',
        step,
        provider: step % 2 ? 'openai.chat' : 'anthropic.messages',
        modelId: `m${step % 2}`,
        latencyMs: 1,
        result,
      })),
    );
    await hold.release();
  }, 120_000);

  it('agree on every usage shape ever recorded, step by step and summed per model', async () => {
    const billed = billedTokensSql(sql`e.payload`);
    const perStep = rowsOf<Record<string, unknown>>(
      await db.execute(
        sql`select ${sql.join(
          Object.entries(billed).map(([name, expr]) => sql`${expr} as ${sql.identifier(name)}`),
          sql`, `,
        )} from gnl.run_events e where e.run_id = ${runId} and e.type = 'model-step' order by e.seq`,
      ),
    );
    const events = (await storage.runs.events(runId)).flatMap((e) => (e.type === 'model-step' ? [e] : []));
    expect(perStep).toHaveLength(RESULTS.length);
    for (const [i, event] of events.entries()) {
      const { provider: _p, modelId: _m, steps: _s, ...ts } = addModelStep([], event)[0] as ModelTokens;
      const row = perStep[i] as Record<string, unknown>;
      expect({ step: i, ...Object.fromEntries(Object.keys(ts).map((k) => [k, Number(row[k])])) }).toEqual({ step: i, ...ts });
    }
    const sums = rowsOf<ModelTokensRow>(await db.execute(runModelTokensStatement([runId]))).map((row) => toModelTokens(modelTokensRow.parse(row)));
    const fold = addToTotals(EMPTY_TOTALS, events).models;
    expect(sums.map((m) => [m.provider, m.modelId, m.steps, m.unmetered])).toEqual(fold.map((m) => [m.provider, m.modelId, m.steps, m.unmetered]));
    for (const [i, m] of sums.entries()) {
      const f = fold[i] as ModelTokens;
      // One fixture passes 2^53: JS's running sum rounds at each step, SQL's exact one once.
      for (const k of ['uncachedInput', 'cacheRead', 'cacheWrite', 'output', 'reasoning'] as const)
        expect(Math.abs(m[k] - f[k])).toBeLessThanOrEqual(f[k] * 1e-15);
    }
  });
});
