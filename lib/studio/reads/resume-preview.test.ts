/**
 * The resume preview says, in the operator's words, what the runtime's plan (lib/durable/projection/run-plan.ts)
 * decides for each call of the last model step: approved calls execute, rejected and done ones do not,
 * not-done ones run again under their key; an open side effect is retried (retrySafe), checked (check)
 * or blocks; and each repeat says whether its key protects it, as far as GNL can know. That the plan is
 * what the resume does is run-plan.test.ts's business, on both journals.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEvent } from '@/lib/durable';
import { protectionOf, resumePreview, type ToolDeclaration } from './resume-preview';
import type { WireEvent } from './wire';

const at = '2026-11-29T22:00:00.000Z';
const declared = (d: Partial<ToolDeclaration>): ToolDeclaration => ({
  sideEffect: true,
  idempotency: 'call',
  retrySafe: false,
  check: false,
  executes: true,
  needsApproval: false,
  ...d,
});
const declarations: Record<string, ToolDeclaration> = {
  issueRefund: declared({ needsApproval: true }),
  createTicket: declared({ idempotency: 'args', retrySafe: true }),
  sendEmail: declared({ check: true }),
  lookupCustomer: declared({ sideEffect: false }),
};

function journal(calls: [id: string, tool: string][], ...rest: JournalEvent[]): WireEvent[] {
  const content = calls.map(([toolCallId, toolName]) => ({ type: 'tool-call', toolCallId, toolName, input: '{}' }));
  const step: JournalEvent = { type: 'model-step', step: 0, provider: 'p', modelId: 'm', latencyMs: 1, result: { content } };
  return [step, ...rest].map((event, i) => ({ ...event, seq: i + 1, at }) as WireEvent);
}
const start = (id: string, toolName: string, sideEffect = true): JournalEvent => ({
  type: 'tool-call-start',
  toolCallId: id,
  toolName,
  input: {},
  idempotencyKey: `k-${id}`,
  attempt: 1,
  sideEffect,
});
const error = (id: string, toolName: string, retryable: boolean): JournalEvent => ({
  type: 'tool-call-error',
  toolCallId: id,
  toolName,
  idempotencyKey: `k-${id}`,
  attempt: 1,
  error: { name: 'Error', message: 'boom' },
  durationMs: 1,
  retryable,
});
const end = (id: string, toolName: string): JournalEvent => ({
  type: 'tool-call-end',
  toolCallId: id,
  toolName,
  idempotencyKey: `k-${id}`,
  attempt: 1,
  output: {},
  durationMs: 1,
  source: 'executed',
});
const request = (id: string, toolName: string): JournalEvent => ({ type: 'tool-approval-request', toolCallId: id, toolName, input: {}, requestedAt: at });
const response = (id: string, approved: boolean, by: string): JournalEvent => ({ type: 'tool-approval-response', toolCallId: id, approved, by });
const resolution = (id: string, outcome: 'done' | 'not-done', by: string): JournalEvent => ({
  type: 'side-effect-resolution',
  toolCallId: id,
  idempotencyKey: `k-${id}`,
  outcome,
  by,
  ...(outcome === 'done' ? { output: {} } : {}),
});
const waiting = { status: 'waiting-approval' } as const;

describe('resume preview', () => {
  it('says what each decision leads to, and whether the key protects a repeat', () => {
    const events = journal(
      [
        ['a1', 'issueRefund'],
        ['a2', 'issueRefund'],
        ['nd', 'sendEmail'],
        ['d', 'sendEmail'],
        ['u', 'issueRefund'],
      ],
      ...[request('a1', 'issueRefund'), request('a2', 'issueRefund'), request('u', 'issueRefund')],
      ...[start('nd', 'sendEmail'), start('d', 'sendEmail')],
      ...[response('a1', true, 'alice'), response('a2', false, 'bob'), resolution('nd', 'not-done', 'alice'), resolution('d', 'done', 'alice')],
    );
    const calls = resumePreview(waiting, events, declarations);
    expect(calls.map((c) => [c.toolCallId, c.action, c.why])).toEqual([
      ['a1', 'executes', 'approved by alice'],
      ['a2', 'not-run', 'rejected by bob; the model sees the refusal'],
      ['nd', 'executes-again', 'marked not done by alice'],
      ['d', 'not-run', 'marked done by alice; the output given is its result'],
      ['u', 'waits', 'it waits for a person to approve or reject it'],
    ]);
    expect(calls[2]?.protection).toBe(
      "GNL sends the idempotency key k-nd (scope 'call': one key for this call); the tool does not declare retrySafe: nothing tells GNL that the outside service deduplicates by the key, so a repeat may act twice; it has a check, which asks the service by key after an unknown outcome.",
    );
    expect(calls[1]?.protection).toBeUndefined();
  });

  it('a failed run: open side effects are retried, checked or block, by declaration; a read-only error is tried again; recorded results replay unsaid', () => {
    const events = journal(
      [
        ['t', 'createTicket'],
        ['e', 'sendEmail'],
        ['r', 'issueRefund'],
        ['l', 'lookupCustomer'],
        ['f', 'lookupCustomer'],
      ],
      ...[request('r', 'issueRefund'), response('r', true, 'alice'), start('t', 'createTicket'), start('e', 'sendEmail'), start('r', 'issueRefund')],
      ...[error('l', 'lookupCustomer', true), end('f', 'lookupCustomer')],
    );
    const calls = resumePreview({ status: 'failed' }, events, declarations);
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
    const events = journal([['e', 'sendEmail']], start('e', 'sendEmail'), error('e', 'sendEmail', true));
    expect(resumePreview({ status: 'failed' }, events, { sendEmail: declared({}) }).map((c) => c.action)).toEqual(['blocks']);
  });

  it('a canceled or completed run previews nothing; a call the agent does not declare is not run', () => {
    const events = journal([['r', 'issueRefund']], request('r', 'issueRefund'), response('r', true, 'alice'));
    expect(resumePreview({ status: 'canceled' }, events, declarations)).toEqual([]);
    expect(resumePreview({ status: 'completed' }, events, declarations)).toEqual([]);
    expect(resumePreview(waiting, events, { other: declared({}) }).map((c) => c.action)).toEqual(['not-run']);
  });

  it('without a registered agent it says GNL cannot tell', () => {
    const calls = resumePreview({ status: 'failed' }, journal([['r', 'refund']], start('r', 'refund')), undefined);
    expect(calls[0]?.action).toBe('depends');
    expect(calls[0]?.why).toContain('depends on how the tool is declared');
    expect(protectionOf(undefined, 'k')).toContain('cannot tell whether it is a side effect or whether the outside service deduplicates');
  });
});
