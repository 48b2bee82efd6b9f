import { describe, expect, it } from 'vitest';
import { inboxCount, runGoal } from './run-listing';

describe('runGoal: what a run is about, in one line', () => {
  it("is the prompt's first line, trimmed", () => {
    expect(runGoal({ prompt: '  Refund order o_17 \nIt arrived broken.' })).toBe('Refund order o_17');
    expect(runGoal({ prompt: 'one line' })).toBe('one line');
  });

  it("is a chat turn's last user message: its text, or its first text part", () => {
    const messages = [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: 'an answer' },
      {
        role: 'user',
        content: [
          { type: 'image', image: '[1 bytes]' },
          { type: 'text', text: 'and now\nthis' },
        ],
      },
    ];
    expect(runGoal({ messages })).toBe('and now');
    expect(runGoal({ messages: messages.slice(0, 2) })).toBe('first question');
  });

  it('is undefined when there is nothing to read', () => {
    expect(runGoal(undefined)).toBeUndefined();
    expect(runGoal({ prompt: '   \n  ' })).toBeUndefined();
    expect(runGoal({ messages: [{ role: 'assistant', content: 'x' }] })).toBeUndefined();
    expect(runGoal({ prompt: { not: 'text' } })).toBeUndefined();
  });
});

it('inboxCount counts what still waits for a decision', () => {
  const item = { kind: 'approval', toolCallId: 'c', toolName: 't', input: {}, requestedAt: 'x' } as const;
  expect(inboxCount({ pending: [] })).toBe(0);
  expect(inboxCount({ pending: [item, { ...item, toolCallId: 'd', decision: { outcome: 'approved', by: 'a', at: 'x' } }] })).toBe(1);
});
