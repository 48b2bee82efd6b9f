import { describe, expect, it } from 'vitest';
import type { RunSummary } from '@/lib/durable';
import { dateTime } from './format';
import { notificationLines, runHeaderLines } from './run-view';

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

describe('notificationLines', () => {
  it('one line per announced event: delivery, attempts, when, and the last error', () => {
    const at = new Date('2026-12-02T03:00:00Z');
    const base = { runId: 'r', createdAt: at, leaseOwner: null, targets: {}, nextAttemptAt: at, deliveredAt: null, lastError: null };
    expect(
      notificationLines([
        { ...base, seq: 9, status: 'waiting-approval', delivery: 'delivered', attempts: 1, deliveredAt: at },
        { ...base, seq: 14, status: 'failed', delivery: 'pending', attempts: 2, lastError: 'https://hooks.example.com: HTTP 503' },
      ]),
    ).toEqual([
      `Notified  #9 waiting-approval: delivered (1 attempt) ${dateTime(at)}`,
      `Notified  #14 failed: pending (2 attempts) · next attempt ${dateTime(at)} · https://hooks.example.com: HTTP 503`,
    ]);
  });
});
