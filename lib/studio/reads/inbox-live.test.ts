/**
 * How the inbox follows a run's summary before its re-read answers: a call decided anywhere loses its
 * choices at once (it moves to "decided, waiting to resume"), a run that moved on or ended takes its
 * calls out, other runs' cards stay as they were, and a card this tab decided leaves at once.
 */
import { describe, expect, it } from 'vitest';
import type { PendingItem } from '@/lib/durable';
import type { Inbox, InboxItem } from './inbox';
import { inboxAfterRunChange, inboxKey, inboxParts } from './inbox-live';

const approval = (toolCallId: string, decision?: PendingItem['decision']): PendingItem => ({
  kind: 'approval',
  toolCallId,
  toolName: 'issueRefund',
  input: { orderId: 'o_17' },
  requestedAt: '2026-12-01T10:00:00.000Z',
  ...(decision ? { decision } : {}),
});

const entry = (runId: string, item: PendingItem): InboxItem => ({
  run: { runId, status: 'waiting-approval', createdAt: '2026-12-01T09:59:00.000Z', updatedAt: '2026-12-01T10:00:00.000Z', goal: 'Refund o_17' },
  item,
  since: '2026-12-01T10:00:00.000Z',
  lastSteps: [],
});

const inbox: Inbox = {
  items: [entry('run-a', approval('call-1')), entry('run-a', approval('call-2')), entry('run-b', approval('call-1'))],
  truncated: false,
};
const alice = { outcome: 'approved' as const, by: 'alice', at: '2026-12-01T10:01:00.000Z' };
const summary = (runId: string, status: 'waiting-approval' | 'running' | 'canceled', pending: PendingItem[]) => ({
  runId,
  status,
  updatedAt: '2026-12-01T10:01:00.000Z',
  pending,
});

describe('the inbox after a run changed', () => {
  it('a call decided elsewhere takes its decision and leaves the open cards; its sibling stays open', () => {
    const after = inboxAfterRunChange(inbox, summary('run-a', 'waiting-approval', [approval('call-1', alice), approval('call-2')]));
    const { open, decided } = inboxParts(after.items);
    expect(decided.map(inboxKey)).toEqual(['run-a:call-1']);
    expect(decided[0]?.item.decision).toEqual(alice);
    expect(open.map(inboxKey)).toEqual(['run-a:call-2', 'run-b:call-1']);
  });

  it('a run that resumed (or was canceled) waits for nothing: its cards leave, other runs keep theirs', () => {
    for (const status of ['running', 'canceled'] as const) {
      const after = inboxAfterRunChange(inbox, summary('run-a', status, []));
      expect(after.items.map(inboxKey)).toEqual(['run-b:call-1']);
      expect(after.items[0]).toBe(inbox.items[2]);
    }
  });

  it('a change to a run the inbox does not list leaves it untouched (its re-read adds new calls)', () => {
    expect(inboxAfterRunChange(inbox, summary('run-c', 'waiting-approval', [approval('call-9')]))).toBe(inbox);
  });

  it('a card decided in this tab leaves the open cards at once, before the journal says so', () => {
    const { open, decided } = inboxParts(inbox.items, new Set(['run-b:call-1']));
    expect(open.map(inboxKey)).toEqual(['run-a:call-1', 'run-a:call-2']);
    expect(decided).toEqual([]);
  });
});
