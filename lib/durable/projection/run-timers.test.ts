import { describe, expect, it } from 'vitest';
import type { JournalEvent, RecordedEvent } from '../journal/events';
import { RunState } from './run-state';
import { runTimers } from './run-timers';

const INPUT = { modelId: 'm', provider: 'p', toolNames: ['refund'] };
const at = (s: number) => new Date(Date.UTC(2026, 11, 2, 9, 0, s));
const iso = (s: number) => at(s).toISOString();

function fold(events: JournalEvent[]): RunState {
  return new RunState(events.map((event, i): RecordedEvent => ({ ...event, seq: i + 1, at: at(i) })));
}

const fail: JournalEvent = { type: 'run-fail', error: { name: 'AI_APICallError', message: 'Service Unavailable' } };
const retry = (attempt: number, retryAt?: string): JournalEvent => ({
  type: 'run-retry',
  by: 'worker-1',
  attempt,
  attempts: 3,
  error: { name: 'AI_APICallError', message: 'Service Unavailable' },
  ...(retryAt ? { retryAt } : {}),
});
const step = (n: number): JournalEvent => ({ type: 'model-step', step: n, provider: 'p', modelId: 'm', latencyMs: 1, result: { content: [] } });
const ask = (toolCallId: string, expiresAt?: string): JournalEvent => ({
  type: 'tool-approval-request',
  toolCallId,
  toolName: 'refund',
  input: {},
  requestedAt: iso(0),
  ...(expiresAt ? { expiresAt } : {}),
});
const suspend = (items: { toolCallId: string; expiresAt?: string }[]): JournalEvent => ({
  type: 'run-suspend',
  status: 'waiting-approval',
  pending: items.map((item) => ({ kind: 'approval', toolName: 'refund', input: {}, requestedAt: iso(0), ...item })),
});

describe('retries in the run projection', () => {
  it('counts transient failures in a row, names the next attempt, and starts afresh after new progress or a person', () => {
    const state = fold([
      { type: 'run-start', input: INPUT },
      step(0),
      fail,
      retry(1, iso(30)),
      { type: 'run-resume', fromStatus: 'failed' },
      fail,
      retry(2, iso(60)),
    ]);
    expect(state.retryStreak).toBe(2);
    expect(state.nextAttemptAt).toBe(iso(60));
    expect(runTimers(state)).toEqual([{ kind: 'retry', dueAt: iso(60), attempt: 3, attempts: 3 }]);

    state.apply({ type: 'run-resume', fromStatus: 'failed', seq: 8, at: at(61) });
    expect(state.nextAttemptAt).toBeUndefined();
    expect(runTimers(state)).toEqual([]);
    state.apply({ ...step(1), seq: 9, at: at(62) } as RecordedEvent);
    expect(state.retryStreak).toBe(0);

    const exhausted = fold([{ type: 'run-start', input: INPUT }, fail, retry(1, iso(10)), { type: 'run-resume', fromStatus: 'failed' }, fail, retry(2)]);
    expect([exhausted.retryStreak, exhausted.nextAttemptAt, runTimers(exhausted)]).toEqual([2, undefined, []]);
    exhausted.apply({ type: 'run-resume-request', by: 'ops', seq: 7, at: at(70) });
    expect(exhausted.retryStreak).toBe(0);
    expect(exhausted.retries).toHaveLength(2);
  });
});

describe('runTimers', () => {
  it('lists undecided approval deadlines, the next attempt and a scheduled resume, earliest first; a decision removes its deadline', () => {
    const state = fold([
      { type: 'run-start', input: INPUT },
      ask('a', iso(50)),
      ask('b', iso(20)),
      ask('c'),
      suspend([{ toolCallId: 'a', expiresAt: iso(50) }, { toolCallId: 'b', expiresAt: iso(20) }, { toolCallId: 'c' }]),
      { type: 'run-resume-request', by: 'ops', reason: 'after the cut-off', resumeAt: iso(40) },
    ]);
    expect(runTimers(state)).toEqual([
      { kind: 'approval-deadline', dueAt: iso(20), toolCallId: 'b', toolName: 'refund' },
      { kind: 'resume', dueAt: iso(40), by: 'ops', reason: 'after the cut-off' },
      { kind: 'approval-deadline', dueAt: iso(50), toolCallId: 'a', toolName: 'refund' },
    ]);
    state.apply({ type: 'tool-approval-response', toolCallId: 'b', approved: true, by: 'ops', seq: 7, at: at(7) });
    expect(runTimers(state).map((t) => t.dueAt)).toEqual([iso(40), iso(50)]);
    // A resume asked for at once replaces the scheduled one; the invocation that begins clears it.
    state.apply({ type: 'run-resume-request', by: 'alice', seq: 8, at: at(8) });
    expect(runTimers(state).map((t) => t.kind)).toEqual(['approval-deadline']);
    state.apply({ type: 'run-resume', fromStatus: 'waiting-approval', seq: 9, at: at(9) });
    expect(runTimers(state)).toEqual([]);
  });

  it('a finished run has no timers, and a partial fold takes the status it is given', () => {
    const canceled = fold([
      { type: 'run-start', input: INPUT },
      { type: 'run-resume-request', by: 'ops', resumeAt: iso(40) },
      { type: 'run-cancel', by: 'ops' },
    ]);
    expect(runTimers(canceled)).toEqual([]);
    // From the last model step on (the Studio's window): no run-start, the status comes from the summary.
    const tail = fold([step(3), fail, retry(1, iso(30))]);
    expect(runTimers(tail)).toEqual([{ kind: 'retry', dueAt: iso(30), attempt: 2, attempts: 3 }]);
    expect(runTimers(tail, { status: 'completed' })).toEqual([]);
  });
});
