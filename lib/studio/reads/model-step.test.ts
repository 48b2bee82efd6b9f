import { describe, expect, it } from 'vitest';
import { readModelStep } from './model-step';
import { addToTotals, EMPTY_TOTALS } from '@/lib/durable/projection';
import type { WireEvent } from './wire';

describe('reading a recorded model step', () => {
  it('reads v4 results: text, reasoning, tool calls with parsed arguments, finish reason, tokens with cache and reasoning', () => {
    const step = readModelStep({
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'text', text: 'Hello <b>x</b>' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'refund', input: '{"orderId":"o_1"}' },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'raw', input: 'not json' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      usage: {
        inputTokens: { total: 100, noCache: 60, cacheRead: 40, cacheWrite: 5 },
        outputTokens: { total: 20, text: 15, reasoning: 5 },
      },
    });
    expect(step).toEqual({
      text: 'Hello <b>x</b>',
      reasoning: 'think',
      toolCalls: [
        { toolCallId: 'c1', toolName: 'refund', input: { orderId: 'o_1' } },
        { toolCallId: 'c2', toolName: 'raw', input: 'not json' },
      ],
      finishReason: 'tool-calls',
      rawFinishReason: 'tool_use',
      usage: { input: 100, noCache: 60, output: 20, text: 15, cacheRead: 40, cacheWrite: 5, reasoning: 5 },
    });
  });

  it('reads older shapes (string finish reason, numeric usage) and never throws on junk', () => {
    expect(readModelStep({ content: [], finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 4 } })).toMatchObject({
      finishReason: 'stop',
      usage: { input: 3, output: 4 },
    });
    expect(readModelStep(undefined)).toEqual({ text: '', reasoning: '', toolCalls: [], usage: {} });
    expect(readModelStep('junk')).toEqual({ text: '', reasoning: '', toolCalls: [], usage: {} });
  });

  it('totals count each event once, however often they are added', () => {
    const events = [
      {
        seq: 1,
        type: 'model-step',
        provider: 'p',
        modelId: 'm',
        latencyMs: 10,
        result: { usage: { inputTokens: { total: 7 }, outputTokens: { total: 2, reasoning: 1 } } },
      },
      { seq: 2, type: 'tool-call-end', durationMs: 5 },
      {
        seq: 3,
        type: 'model-step',
        provider: 'p',
        modelId: 'm',
        latencyMs: 20,
        result: { usage: { inputTokens: { total: 3, cacheRead: 2 }, outputTokens: { total: 1 } } },
      },
    ] as unknown as WireEvent[];
    const once = addToTotals(EMPTY_TOTALS, events);
    expect(addToTotals(once, events)).toEqual(once);
    expect(once).toEqual({
      throughSeq: 3,
      steps: 2,
      tokens: { input: 10, noCache: 0, output: 3, text: 0, cacheRead: 2, cacheWrite: 0, reasoning: 1 },
      // Billed: uncached input is the input less cache reads (7 + 1), reasoning is a part of output.
      models: [{ provider: 'p', modelId: 'm', steps: 2, unmetered: 0, uncachedInput: 8, cacheRead: 2, cacheWrite: 0, output: 3, reasoning: 1 }],
      modelMs: 30,
      toolMs: 5,
    });
  });
});
