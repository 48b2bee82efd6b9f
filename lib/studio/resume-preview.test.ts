/**
 * The resume preview follows the runtime's rules: approved calls execute, rejected and done ones do
 * not, not-done ones run again under their key; an open side effect is retried (retrySafe), checked
 * (check) or blocks; and each repeat says whether its key protects it, as far as GNL can know.
 */
import { describe, expect, it } from 'vitest';
import type { PendingItem } from '@/lib/durable';
import { protectionOf, resumePreview, type ToolPolicy } from './resume-preview';
import type { WireEvent } from './wire';

const at = '2026-11-29T22:00:00.000Z';
const policies: Record<string, ToolPolicy> = {
  issueRefund: { sideEffect: true, idempotency: 'call', retrySafe: false, check: false },
  createTicket: { sideEffect: true, idempotency: 'args', retrySafe: true, check: false },
  sendEmail: { sideEffect: true, idempotency: 'call', retrySafe: false, check: true },
  lookupCustomer: { sideEffect: false, idempotency: 'call', retrySafe: false, check: false },
};

const sideEffect = (toolName: string, key: string, decision?: PendingItem['decision']): PendingItem => ({
  kind: 'side-effect',
  toolCallId: `call-${key}`,
  toolName,
  input: {},
  idempotencyKey: key,
  attempt: 1,
  startedAt: at,
  reason: 'no check and not retrySafe',
  ...(decision ? { decision } : {}),
});

let seq = 0;
const start = (toolName: string, key: string, sideEffect = true): WireEvent => ({
  type: 'tool-call-start',
  toolCallId: `call-${key}`,
  toolName,
  input: {},
  idempotencyKey: key,
  attempt: 1,
  sideEffect,
  seq: ++seq,
  at,
});
const error = (toolName: string, key: string, retryable: boolean): WireEvent => ({
  type: 'tool-call-error',
  toolCallId: `call-${key}`,
  toolName,
  idempotencyKey: key,
  attempt: 1,
  error: { name: 'Error', message: 'boom' },
  durationMs: 1,
  retryable,
  seq: ++seq,
  at,
});
const end = (toolName: string, key: string): WireEvent => ({
  type: 'tool-call-end',
  toolCallId: `call-${key}`,
  toolName,
  idempotencyKey: key,
  attempt: 1,
  output: {},
  durationMs: 1,
  source: 'executed',
  seq: ++seq,
  at,
});

describe('resume preview', () => {
  it('says what each decision leads to, and whether the key protects a repeat', () => {
    const pending: PendingItem[] = [
      { kind: 'approval', toolCallId: 'a1', toolName: 'issueRefund', input: {}, requestedAt: at, decision: { outcome: 'approved', by: 'alice', at } },
      { kind: 'approval', toolCallId: 'a2', toolName: 'sendEmail', input: {}, requestedAt: at, decision: { outcome: 'rejected', by: 'bob', at } },
      sideEffect('issueRefund', 'k-not-done', { outcome: 'not-done', by: 'alice', at }),
      sideEffect('issueRefund', 'k-done', { outcome: 'done', by: 'alice', at }),
    ];
    const calls = resumePreview({ pending }, [start('issueRefund', 'k-not-done'), start('issueRefund', 'k-done')], policies);
    expect(calls.map((c) => [c.toolName, c.action, c.why])).toEqual([
      ['issueRefund', 'executes', 'approved by alice'],
      ['sendEmail', 'not-run', 'rejected by bob; the model sees the refusal'],
      ['issueRefund', 'executes-again', 'marked not done by alice'],
      ['issueRefund', 'not-run', 'marked done by alice; the output given is its result'],
    ]);
    expect(calls[2]?.protection).toBe(
      "GNL sends the idempotency key k-not-done (scope 'call': one key for this call); the tool does not declare retrySafe: nothing tells GNL that the outside service deduplicates by the key, so a repeat may act twice.",
    );
    expect(calls[1]?.protection).toBeUndefined();
  });

  it('an undecided item adds nothing (the run cannot resume yet)', () => {
    expect(resumePreview({ pending: [sideEffect('issueRefund', 'k')] }, [start('issueRefund', 'k')], policies)).toEqual([]);
  });

  it('a failed run: open side effects are retried, checked or block, by declaration; a read-only error is tried again', () => {
    const events = [
      start('createTicket', 'k-ticket'),
      start('sendEmail', 'k-email'),
      start('issueRefund', 'k-refund'),
      error('lookupCustomer', 'k-lookup', true),
      start('issueRefund', 'k-finished'),
      end('issueRefund', 'k-finished'),
      error('issueRefund', 'k-final-error', false),
    ];
    const calls = resumePreview({ pending: [] }, events, policies);
    expect(calls.map((c) => [c.toolName, c.action])).toEqual([
      ['createTicket', 'executes-again'],
      ['sendEmail', 'checked-first'],
      ['issueRefund', 'blocks'],
      ['lookupCustomer', 'executes-again'],
    ]);
    expect(calls[0]?.protection).toContain("scope 'args'");
    expect(calls[0]?.protection).toContain('the tool declares retrySafe');
    expect(calls[1]?.protection).toContain('it has a check');
    expect(calls[3]?.protection).toBe('Read-only (the tool declares no side effect): running it again changes nothing outside.');
  });

  it('a side effect whose execute threw stays of unknown outcome: the same rule as a start with no end', () => {
    const calls = resumePreview({ pending: [] }, [start('issueRefund', 'k'), error('issueRefund', 'k', true)], policies);
    expect(calls.map((c) => c.action)).toEqual(['blocks']);
  });

  it('without a registered agent it says GNL cannot tell', () => {
    const calls = resumePreview({ pending: [] }, [start('refund', 'k')], undefined);
    expect(calls[0]?.action).toBe('blocks');
    expect(calls[0]?.why).toContain('depends on how the tool is declared');
    expect(protectionOf(undefined, 'k')).toContain('cannot tell whether it is a side effect or whether the outside service deduplicates');
  });
});
