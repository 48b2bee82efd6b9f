/** What a run was given from memory (recorded-memory.ts), as the run page and gnl show print it: what the run's start input recorded, recalled texts read back from its recall message. */
import { expect, it } from 'vitest';
import type { RunInput } from '../journal/events';
import { runMemoryView } from './recorded-memory';

const base: RunInput = { prompt: 'p', modelId: 'm', provider: 'x', toolNames: [] };
const recallMessage = [
  'What is remembered from earlier conversations with this customer, most similar first:',
  '- (fact, 2026-12-01, similarity 0.87) order o_77 arrived damaged',
  '- (message, 2026-11-30, similarity -0.05) two lines:\nthe second - (not an item)',
].join('\n');

it('names the resource and thread, counts the thread messages, and pairs each recalled item with its text and score', () => {
  const view = runMemoryView({
    ...base,
    memory: {
      resource: 'customer:c_77',
      thread: 'conv-77',
      messages: [
        { role: 'system', content: recallMessage },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
      recalled: [
        { id: 4, kind: 'fact', score: 0.871 },
        { id: 9, kind: 'message', score: -0.05 },
      ],
    },
  });
  expect(view).toEqual({
    resource: 'customer:c_77',
    thread: 'conv-77',
    messages: 2,
    recalled: [
      { id: 4, kind: 'fact', score: 0.871, text: 'order o_77 arrived damaged' },
      { id: 9, kind: 'message', score: -0.05, text: 'two lines:\nthe second - (not an item)' },
    ],
  });
});

it('without memory: nothing; a record it cannot read back (erased text): the scores without texts', () => {
  expect(runMemoryView(base)).toBeUndefined();
  expect(runMemoryView(undefined)).toBeUndefined();
  const erased = runMemoryView({
    ...base,
    memory: { resource: 'r', thread: 't', messages: '[erased]', recalled: [{ id: 1, kind: 'fact', score: 0.5 }] },
  });
  expect(erased).toEqual({ resource: 'r', thread: 't', messages: 0, recalled: [{ id: 1, kind: 'fact', score: 0.5 }] });
});
