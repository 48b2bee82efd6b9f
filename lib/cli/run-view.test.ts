import { describe, expect, it } from 'vitest';
import type { RunSummary } from '@/lib/durable';
import { runHeaderLines } from './run-view';

function run(input: Partial<RunSummary['input']> = {}): RunSummary {
  return {
    runId: 'chat:c1:m2',
    status: 'completed',
    input: { modelId: 'scripted-v1', provider: 'scripted', toolNames: [], ...input },
    stepCount: 1,
    lastSeq: 3,
    pending: [],
    createdAt: new Date('2026-11-29T21:32:46.312Z'),
    updatedAt: new Date('2026-11-29T21:32:47.000Z'),
  };
}

describe('gnl show: the run header', () => {
  it('names the conversation a chat turn belongs to, in one line, escaped like every value it did not write', () => {
    const lines = runHeaderLines(run({ conversationId: 'c1\u202eevil' }), undefined, []);
    expect(lines.filter((line) => line.includes('conversation'))).toEqual(['Chat      turn of conversation c1\\u202eevil']);
    expect(lines.indexOf('Chat      turn of conversation c1\\u202eevil')).toBe(lines.findIndex((line) => line.startsWith('Agent')) + 1);
  });

  it('has no conversation line for a run that is no chat turn', () => {
    expect(runHeaderLines(run(), undefined, []).some((line) => line.startsWith('Chat'))).toBe(false);
  });
});
