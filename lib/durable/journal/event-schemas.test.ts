import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertValidEvent, eventType, journalEventSchema, USER_DATA } from './event-schemas';
import type { JournalEvent, JournalEventType } from './events';

const at = '2026-12-01T10:00:00.000Z';
const pendingApproval = { kind: 'approval' as const, toolCallId: 'call-2', toolName: 'refund', input: { orderId: 'o_17', amount: 40 }, requestedAt: at };

/** One event of each type, shaped as the runtime writes it today (the compiler holds them to the types, and wants one per type). */
const TODAY: { [T in JournalEventType]: Extract<JournalEvent, { type: T }> } = {
  'run-start': {
    type: 'run-start',
    input: {
      agent: 'refunds',
      agentVersion: 'v_3f2a',
      prompt: 'Refund order o_17',
      instructions: 'Be brief.',
      modelId: 'claude-x',
      provider: 'anthropic.messages',
      toolNames: ['lookupOrder', 'refund'],
      toolSchemas: { lookupOrder: 'a'.repeat(64), refund: 'b'.repeat(64) },
      defaultStepLimit: 20,
      keyScheme: 2,
    },
  },
  'run-resume': { type: 'run-resume', fromStatus: 'waiting-approval' },
  'model-step': {
    type: 'model-step',
    step: 0,
    provider: 'anthropic.messages',
    modelId: 'claude-x',
    latencyMs: 812.4,
    requestHash: 'c'.repeat(64),
    result: {
      content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'lookupOrder', input: '{"orderId":"o_17"}' }],
      finishReason: { unified: 'tool-calls' },
    },
  },
  'tool-call-start': {
    type: 'tool-call-start',
    toolCallId: 'call-2',
    toolName: 'refund',
    input: { orderId: 'o_17', amount: 40 },
    idempotencyKey: 'gnl2_abc',
    attempt: 1,
    sideEffect: true,
  },
  'tool-call-end': {
    type: 'tool-call-end',
    toolCallId: 'call-1',
    toolName: 'lookupOrder',
    idempotencyKey: 'gnl2_def',
    attempt: 1,
    output: { orderId: 'o_17', total: 40, at: new Date(at) },
    durationMs: 3,
    input: { orderId: 'o_17' },
    startedAt: at,
    source: 'executed',
  },
  'tool-call-error': {
    type: 'tool-call-error',
    toolCallId: 'call-1',
    toolName: 'lookupOrder',
    idempotencyKey: 'gnl2_def',
    attempt: 2,
    error: { name: 'TypeError', message: 'fetch failed' },
    durationMs: 12,
    input: { orderId: 'o_17' },
    startedAt: at,
    retryable: false,
  },
  'tool-call-repair': { type: 'tool-call-repair', step: 1, toolCallId: 'call-3', repaired: null },
  'tool-approval-request': {
    type: 'tool-approval-request',
    toolCallId: 'call-2',
    toolName: 'refund',
    input: { orderId: 'o_17' },
    requestedAt: at,
    expiresAt: at,
  },
  'tool-approval-vote': { type: 'tool-approval-vote', toolCallId: 'call-2', by: 'alice', reason: 'fine by me' },
  'tool-approval-response': {
    type: 'tool-approval-response',
    toolCallId: 'call-2',
    approved: true,
    by: 'policy',
    policy: { toolName: 'refund', input: { orderId: 'o_17' } },
  },
  'side-effect-check': {
    type: 'side-effect-check',
    toolCallId: 'call-2',
    idempotencyKey: 'gnl2_abc',
    attempt: 1,
    result: { done: 'unknown', reason: 'timeout' },
  },
  'side-effect-resolution': {
    type: 'side-effect-resolution',
    toolCallId: 'call-2',
    idempotencyKey: 'gnl2_abc',
    outcome: 'done',
    output: { refundId: 'r_1' },
    by: 'ops@example.com',
    reason: 'seen in Stripe',
  },
  'replay-mismatch': { type: 'replay-mismatch', kind: 'model-call', step: 1, recorded: 'd'.repeat(64), given: 'e'.repeat(64) },
  'run-suspend': {
    type: 'run-suspend',
    status: 'waiting-tool-result',
    pending: [
      { ...pendingApproval, expiresAt: at, decision: { outcome: 'approved', by: 'ops', at } },
      {
        kind: 'side-effect',
        toolCallId: 'call-4',
        toolName: 'charge',
        input: {},
        idempotencyKey: 'gnl2_ghi',
        attempt: 1,
        startedAt: at,
        reason: 'no recorded outcome',
      },
      { kind: 'tool-result', toolCallId: 'call-5', toolName: 'askUser', input: { question: '?' }, idempotencyKey: 'gnl2_jkl', requestedAt: at },
    ],
  },
  'run-complete': { type: 'run-complete', text: 'Refunded.', finishReason: 'stop', steps: 3 },
  'run-cancel': { type: 'run-cancel', by: 'ops', reason: 'duplicate order' },
  'run-resume-request': { type: 'run-resume-request', by: 'ops', resumeAt: at },
  'run-fail': { type: 'run-fail', error: { name: 'ToolCallFailedError', message: 'refund failed' } },
  'run-migrate': {
    type: 'run-migrate',
    input: {
      agent: 'refunds',
      agentVersion: 'v_4e1b',
      prompt: 'Refund order o_17',
      modelId: 'claude-x',
      provider: 'anthropic.messages',
      toolNames: ['refund'],
    },
    fromVersion: 'v_3f2a',
    toVersion: 'v_4e1b',
    changed: ['system'],
    by: 'ops',
    reason: 'new wording',
  },
  'run-forked': { type: 'run-forked', childRunId: 'refunds:fork-1', atStep: 2, by: 'alice', reason: 'try without the refund' },
  'run-restarted': { type: 'run-restarted', restartedAs: 'refunds:restart-1', by: 'alice', newAttempt: true },
  'run-imported': { type: 'run-imported', from: { runId: 'refunds:42', exportedAt: at, redacted: true }, by: 'os:alice@ops' },
  'run-retry': { type: 'run-retry', by: 'worker-1', attempt: 1, attempts: 5, error: { name: 'AI_RetryError', message: '503' }, retryAt: at },
  'workflow-wait': {
    type: 'workflow-wait',
    waitId: 'wf-2',
    name: 'customer-reply',
    wait: { kind: 'event', event: 'reply', timeoutAt: at, match: { ticket: 't_1' } },
  },
  'workflow-wait-end': { type: 'workflow-wait-end', waitId: 'wf-2', outcome: 'event', eventId: 'e_1', value: { text: 'thanks' } },
  'workflow-event': { type: 'workflow-event', eventId: 'e_1', name: 'reply', payload: { text: 'thanks', ticket: 't_1' }, by: 'ops@example.com' },
};

/** Shapes written by earlier versions (before the fields their comments say are absent in older runs). Never rewritten, always read. */
const OLDER: Partial<Record<JournalEventType, Record<string, unknown>>> = {
  'run-start': { type: 'run-start', input: { prompt: 'Refund order o_17', modelId: 'm', provider: 'p', toolNames: [] } },
  'model-step': { type: 'model-step', step: 0, provider: 'p', modelId: 'm', latencyMs: 5, result: { content: [] } },
  'tool-call-end': {
    type: 'tool-call-end',
    toolCallId: 'call-2',
    toolName: 'refund',
    idempotencyKey: 'gnl1a_x',
    attempt: 1,
    output: { refundId: 'r_1' },
    durationMs: 9,
    source: 'check',
  },
  'tool-call-error': {
    type: 'tool-call-error',
    toolCallId: 'call-2',
    toolName: 'refund',
    idempotencyKey: 'gnl1a_x',
    attempt: 1,
    error: { name: 'Error', message: 'boom' },
    durationMs: 9,
  },
  'tool-approval-request': { type: 'tool-approval-request', toolCallId: 'call-2', toolName: 'refund', input: {}, requestedAt: at },
  'tool-approval-response': { type: 'tool-approval-response', toolCallId: 'call-2', approved: false, by: 'ops', reason: 'no' },
  'replay-mismatch': { type: 'replay-mismatch', kind: 'tool-arguments', toolCallId: 'call-2', recorded: '{"a":1}', given: '{"a":2}' },
  'run-suspend': { type: 'run-suspend', status: 'blocked', pending: [{ ...pendingApproval, decision: { outcome: 'rejected', by: 'ops', at, reason: 'no' } }] },
};

/** The user's own values: any value is fine there, so only these fields take a value of any kind. */
const ANY_VALUE: Partial<Record<JournalEventType, readonly string[]>> = {
  'model-step': ['result'],
  'tool-call-start': ['input'],
  'tool-call-end': ['input', 'output'],
  'tool-call-error': ['input'],
  'tool-call-repair': ['repaired'],
  'tool-approval-request': ['input'],
  'side-effect-resolution': ['output'],
  'workflow-wait-end': ['value'],
  'workflow-event': ['payload'],
};

const types = Object.keys(USER_DATA) as JournalEventType[];

describe('event schemas', () => {
  it.each(types)('%s: accepts the shape the runtime writes today', (type) => {
    expect(() => assertValidEvent(TODAY[type])).not.toThrow();
    expect(journalEventSchema.parse(TODAY[type])).toEqual(TODAY[type]);
  });

  it.each(Object.entries(OLDER))('%s: still accepts the shape earlier versions wrote', (_type, event) => {
    expect(() => assertValidEvent(event)).not.toThrow();
  });

  it('lets through fields it does not name (a newer row, a recorded event) and never changes what it checks', () => {
    const newer = { ...TODAY['model-step'], seq: 4, at: new Date(at), usageSummary: { total: 3 } };
    const before = structuredClone(newer);
    assertValidEvent(newer);
    expect(newer).toEqual(before);
  });

  it.each(types)("%s: refuses a value of the wrong kind in each of GNL's own fields, naming the field", (type) => {
    const event = TODAY[type] as Record<string, unknown>;
    for (const field of Object.keys(event)) {
      if (field === 'type') continue;
      const wrong = { ...event, [field]: Symbol('wrong') };
      if (ANY_VALUE[type]?.includes(field)) {
        expect(() => assertValidEvent(wrong), `${type}.${field}`).not.toThrow();
        continue;
      }
      const error = catchError(() => assertValidEvent(wrong));
      expect(error, `${type}.${field}`).toMatchObject({ name: 'JournalDataError', invalidEvent: { eventType: type, fields: [field] } });
      expect(error.message).toMatch(new RegExp(`^A ${type} event cannot be journaled: ${field}: .+ Nothing was written\\.$`));
      expect(error.cause).toBeInstanceOf(z.ZodError);
    }
  });

  it('names nested fields by their path, and refuses an unknown type listing the known ones', () => {
    const suspend = { ...TODAY['run-suspend'], pending: [{ ...pendingApproval, requestedAt: 7 }] };
    expect(catchError(() => assertValidEvent(suspend))).toMatchObject({ invalidEvent: { eventType: 'run-suspend', fields: ['pending[0].requestedAt'] } });
    const check = { ...TODAY['side-effect-check'], result: { done: 'maybe' } };
    expect(catchError(() => assertValidEvent(check)).message).toMatch(/^A side-effect-check event cannot be journaled: result: /);
    const unknown = catchError(() => assertValidEvent({ type: 'run-pause' }));
    expect(unknown).toMatchObject({ name: 'JournalDataError', invalidEvent: { eventType: 'run-pause', fields: ['type'] } });
    expect(unknown.message).toContain('known: run-start, run-resume, model-step');
    expect(catchError(() => assertValidEvent(null)).message).toMatch(/^An event of unknown type undefined cannot be journaled/);
  });

  it('declares user data beside each schema: an event type without the declaration, or naming a field it lacks, does not compile', () => {
    // @ts-expect-error: the user-data declaration is a required argument
    const undeclared = eventType('run-pause', { by: z.string() });
    // @ts-expect-error: run-pause has no field "output"
    const wrongField = eventType('run-pause', { by: z.string() }, ['output']);
    const declared = eventType('run-pause', { by: z.string(), note: z.unknown() }, ['note']);
    expect(undeclared.userData).toBeUndefined();
    expect(wrongField.userData).toEqual(['output']);
    expect(declared.schema.parse({ type: 'run-pause', by: 'ops', note: 1 })).toEqual({ type: 'run-pause', by: 'ops', note: 1 });
    expect(USER_DATA['tool-call-end']).toEqual(['input', 'output']);
    expect(Object.keys(USER_DATA).sort()).toEqual(Object.keys(TODAY).sort());
  });
});

function catchError(run: () => void): Error & { invalidEvent?: unknown } {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}
