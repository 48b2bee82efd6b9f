import { describe, expect, it } from 'vitest';
import { defineAgent } from './define-agent';
import { DEFAULT_RETRY_POLICY, retryDelayMs } from './retry-policy';

const model = { specificationVersion: 'v4', provider: 'p', modelId: 'm', supportedUrls: {}, doGenerate: async () => ({}), doStream: async () => ({}) };

describe('the run-level retry policy', () => {
  it('waits twice as long each attempt, capped, with half of each wait random', () => {
    const policy = { attempts: 6, initialDelayMs: 1_000, maxDelayMs: 5_000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, () => 0))).toEqual([500, 1_000, 2_000, 2_500, 2_500]);
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, () => 1))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000]);
  });

  it('defineAgent fills the defaults, keeps the policy out of the runDurable settings, and refuses a bad one naming the field', () => {
    const agent = defineAgent({ name: 'a', model: model as never, tools: {}, retry: { attempts: 2 } });
    expect(agent.retry).toEqual({ ...DEFAULT_RETRY_POLICY, attempts: 2 });
    expect('retry' in agent.settings).toBe(false);
    expect(defineAgent({ name: 'b', model: model as never, tools: {} }).retry).toEqual(DEFAULT_RETRY_POLICY);
    expect(() => defineAgent({ name: 'c', model: model as never, tools: {}, retry: { attempts: 0 } })).toThrow(/retry\.attempts/);
    expect(() => defineAgent({ name: 'd', model: model as never, tools: {}, retry: { initialDelayMs: 10_000, maxDelayMs: 1_000 } })).toThrow(
      /maxDelayMs must be at least initialDelayMs/,
    );
    expect(() => defineAgent({ name: 'e', model: model as never, tools: {}, retry: { tries: 3 } as never })).toThrow(/retry/);
  });
});
