import { describe, expect, it } from 'vitest';
import { addTokenUsage, billedTokens, NO_TOKENS, readTokenUsage, stepTokenUsage, tokenTotal } from './model-usage';
import { refusedStepResult } from '../model/refused-step';

describe("a model step's token usage", () => {
  it('reads AI SDK v7 usage: totals, cache reads and writes, text and reasoning', () => {
    const usage = readTokenUsage({
      inputTokens: { total: 100, noCache: 55, cacheRead: 40, cacheWrite: 5 },
      outputTokens: { total: 20, text: 15, reasoning: 5 },
      raw: { prompt_tokens: 100 },
    });
    expect(usage).toEqual({ input: 100, noCache: 55, cacheRead: 40, cacheWrite: 5, output: 20, text: 15, reasoning: 5 });
    expect(tokenTotal(usage)).toBe(120);
    expect(billedTokens(usage)).toEqual({ uncachedInput: 55, cacheRead: 40, cacheWrite: 5, output: 20 });
  });

  it('leaves out what v7 providers leave undefined, and never counts it as 0', () => {
    const usage = readTokenUsage({ inputTokens: { total: 7, noCache: undefined }, outputTokens: { total: undefined, reasoning: 2 } });
    expect(usage).toEqual({ input: 7, reasoning: 2 });
    expect(tokenTotal(usage)).toBe(7);
  });

  it('reads the earlier plain-number shape (LanguageModelV2Usage) with its cache and reasoning counts', () => {
    const usage = readTokenUsage({ inputTokens: 12, outputTokens: 3, totalTokens: 15, reasoningTokens: 1, cachedInputTokens: 4 });
    expect(usage).toEqual({ input: 12, output: 3, cacheRead: 4, reasoning: 1 });
    // Without noCache, what was not read from the cache is the rest of the input.
    expect(billedTokens(usage)).toEqual({ uncachedInput: 8, cacheRead: 4, cacheWrite: 0, output: 3 });
  });

  it('reads nothing from junk, and never throws', () => {
    for (const junk of [undefined, null, 7, 'usage', [1, 2], { inputTokens: 'n/a', outputTokens: [5] }, { inputTokens: { total: '9' } }]) {
      expect(readTokenUsage(junk)).toEqual({});
    }
    expect(readTokenUsage({ inputTokens: Number.NaN, outputTokens: Number.POSITIVE_INFINITY, reasoningTokens: -0 })).toEqual({});
    expect(stepTokenUsage(refusedStepResult({ bytes: 10, limit: 5 }))).toEqual({});
    expect(stepTokenUsage('junk')).toEqual({});
    expect(billedTokens({})).toEqual({ uncachedInput: 0, cacheRead: 0, cacheWrite: 0, output: 0 });
  });

  it('reads a model-step result through its usage', () => {
    expect(stepTokenUsage({ content: [], usage: { inputTokens: { total: 3 }, outputTokens: 4 } })).toEqual({ input: 3, output: 4 });
  });

  it('sums steps, a count a step did not report adding 0, without changing the sum it was given', () => {
    const one = addTokenUsage(NO_TOKENS, { input: 3, cacheRead: 1 });
    const two = addTokenUsage(one, { input: 4, output: 2, reasoning: 1 });
    expect(one).toEqual({ ...NO_TOKENS, input: 3, cacheRead: 1 });
    expect(two).toEqual({ input: 7, noCache: 0, cacheRead: 1, cacheWrite: 0, output: 2, text: 0, reasoning: 1 });
    expect(NO_TOKENS).toEqual({ input: 0, noCache: 0, cacheRead: 0, cacheWrite: 0, output: 0, text: 0, reasoning: 0 });
  });
});
