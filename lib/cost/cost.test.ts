import { describe, expect, it } from 'vitest';
import { addModelStep, addToTotals, EMPTY_TOTALS, type ModelTokens } from '@/lib/durable/projection';
import { type Cost, costOf, costText, costUsd, type PriceTable, unpricedText, usdText } from './index';
import { loadPriceTable } from './price-file';

const table = loadPriceTable({});

type Step = { provider: string; modelId: string; result: unknown };
const step = (provider: string, modelId: string, usage: unknown): Step => ({ provider, modelId, result: { content: [], usage } });
const tokensOf = (steps: Step[]) => steps.reduce<ModelTokens[]>(addModelStep, []);
const cost = (steps: Step[], prices: PriceTable = table): Cost => costOf(tokensOf(steps), prices);

const miniStep = step('openai.responses', 'gpt-4o-mini', {
  inputTokens: { total: 1200, noCache: 1000, cacheRead: 200 },
  outputTokens: { total: 300, text: 300 },
});
const demoStep = step('gnl-demo', 'scripted-support-v1', { inputTokens: { total: 50, noCache: 50 }, outputTokens: { total: 10 } });

describe('what a model step costs', () => {
  it('prices OpenAI input, cached input and output at their own rates', () => {
    // 1000 × $0.15 + 200 × $0.075 + 300 × $0.60 per million tokens.
    const c = cost([miniStep]);
    expect(c.picoUsd).toBe(345_000_000);
    expect(costUsd(c)).toBe(0.000345);
    expect(c).toMatchObject({ pricedSteps: 1, unpricedSteps: 0, unpriced: [], takenOn: ['2025-06-01'] });
    expect(costText(c)).toBe('$0.000345');
  });

  it('prices Anthropic cache reads at a tenth of input and cache writes at 1.25 times', () => {
    const sonnet = step('anthropic.messages', 'claude-sonnet-4-20250514', {
      inputTokens: { total: 2500, noCache: 500, cacheRead: 1500, cacheWrite: 500 },
      outputTokens: { total: 800 },
    });
    // 500 × $3 + 1500 × $0.30 + 500 × $3.75 + 800 × $15 per million tokens.
    expect(costUsd(cost([sonnet]))).toBe(0.015825);
    expect(costText(cost([sonnet]))).toBe('$0.0158');
  });

  it('prices reasoning tokens as output where the provider does (OpenAI), and apart where a table prices them apart', () => {
    const o3 = step('openai.chat', 'o3-mini', { inputTokens: { total: 100, noCache: 100 }, outputTokens: { total: 1000, text: 300, reasoning: 700 } });
    // 100 × $1.10 + 1000 × $4.40 per million: the 700 reasoning tokens are output.
    expect(costUsd(cost([o3]))).toBe(0.00451);
    const apart: PriceTable = {
      models: { openai: { 'o3-mini': { input: 1.1, output: 0.6, reasoning: 3.5, takenOn: '2026-11-30', from: 'test' } } },
      files: [],
    };
    // 100 × $1.10 + 300 × $0.60 + 700 × $3.50 per million.
    expect(costUsd(cost([o3], apart))).toBe(0.00274);
  });

  it('reads the earlier usage shape: cached input is part of the input total', () => {
    const v2 = step('openai.chat', 'gpt-4.1', { inputTokens: 1000, outputTokens: 500, totalTokens: 1500, cachedInputTokens: 400 });
    // 600 × $2 + 400 × $0.50 + 500 × $8 per million.
    expect(costUsd(cost([v2]))).toBe(0.0054);
  });

  it('says the scripted demo model has no price, never $0', () => {
    const c = cost([demoStep, demoStep]);
    expect(c).toMatchObject({ picoUsd: 0, pricedSteps: 0, unpricedSteps: 2 });
    expect(costText(c)).toBe('price unknown');
    expect(unpricedText(c)).toEqual(['gnl-demo/scripted-support-v1: no price in the table (2 steps)']);
  });

  it('a partly priced run shows the known part as a lower bound and counts the rest', () => {
    const c = cost([miniStep, demoStep, miniStep, demoStep]);
    expect(costUsd(c)).toBe(0.00069);
    expect(costText(c)).toBe('≥ $0.000690 (2 steps unpriced)');
  });

  it('a step that did not report its tokens is unpriced; a kind of token the table does not price leaves the model unpriced', () => {
    const silent = { provider: 'openai.chat', modelId: 'gpt-4o', result: { content: [] } };
    const c = cost([silent, step('openai.chat', 'gpt-4o', { inputTokens: { total: 1000, noCache: 1000 }, outputTokens: { total: 100 } })]);
    // 1000 × $2.50 + 100 × $10 per million, and one step that reported nothing.
    expect(costUsd(c)).toBe(0.0035);
    expect(c.unpriced).toEqual([{ provider: 'openai.chat', modelId: 'gpt-4o', steps: 1, reason: 'usage-unreported' }]);
    expect(costText(c)).toBe('≥ $0.00350 (1 step unpriced)');
    const written = step('openai.chat', 'gpt-4o', { inputTokens: { total: 10, noCache: 5, cacheWrite: 5 }, outputTokens: { total: 1 } });
    expect(cost([written]).unpriced).toEqual([{ provider: 'openai.chat', modelId: 'gpt-4o', steps: 1, reason: 'cache-write-unpriced' }]);
  });

  it("matches model ids exactly, on the provider family, and never finds a price among an object prototype's keys", () => {
    expect(cost([step('openai.responses', 'gpt-4o-2024-05-13', { inputTokens: 1, outputTokens: 1 })]).unpricedSteps).toBe(1);
    expect(cost([step('azure.responses', 'gpt-4o', { inputTokens: 1, outputTokens: 1 })]).unpricedSteps).toBe(1);
    expect(cost([step('openai', 'constructor', { inputTokens: 1, outputTokens: 1 })]).unpricedSteps).toBe(1);
    expect(cost([step('toString', 'x', { inputTokens: 1, outputTokens: 1 })]).unpricedSteps).toBe(1);
  });

  it('a run without model steps costs nothing', () => {
    expect(costText(cost([]))).toBe('$0.00');
  });
});

describe('the run totals carry billed tokens per model', () => {
  it('sums per (provider, modelId) in the order models first appear, as the live fold adds events', () => {
    const events = [miniStep, demoStep, miniStep].map((s, i) => ({ type: 'model-step' as const, seq: i + 2, step: i, latencyMs: 1, ...s }));
    const totals = addToTotals(addToTotals(EMPTY_TOTALS, events.slice(0, 2)), events);
    expect(totals.models).toEqual([
      {
        provider: 'openai.responses',
        modelId: 'gpt-4o-mini',
        steps: 2,
        unmetered: 0,
        uncachedInput: 2000,
        cacheRead: 400,
        cacheWrite: 0,
        output: 600,
        reasoning: 0,
      },
      {
        provider: 'gnl-demo',
        modelId: 'scripted-support-v1',
        steps: 1,
        unmetered: 0,
        uncachedInput: 50,
        cacheRead: 0,
        cacheWrite: 0,
        output: 10,
        reasoning: 0,
      },
    ]);
    expect(costText(costOf(totals.models, table))).toBe('≥ $0.000690 (1 step unpriced)');
  });
});

describe('usdText', () => {
  it('shows cents from a dollar up, four decimals from a cent up, three significant digits below', () => {
    expect([0, 12.345, 1, 0.0123, 0.01, 0.00999, 0.000345, 0.0000012].map(usdText)).toEqual([
      '$0.00',
      '$12.35',
      '$1.00',
      '$0.0123',
      '$0.0100',
      '$0.00999',
      '$0.000345',
      '$0.00000120',
    ]);
  });
});
