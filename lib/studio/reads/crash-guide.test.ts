/** The guided crash's checklist, read from a run's events through the projection's call history. */
import { describe, expect, it } from 'vitest';
import { buildCallHistory } from '@/lib/durable/projection';
import type { WireEvent } from './wire';
import { crashGuide } from './crash-guide';

let seq = 0;
const at = '2026-12-06T10:00:00.000Z';
const e = (event: Record<string, unknown>) => ({ ...event, seq: ++seq, at }) as unknown as WireEvent;
const call = { toolCallId: 'c-refund', toolName: 'issueRefund' };

function stateAfter(events: WireEvent[], status: string) {
  const guide = crashGuide({ index: buildCallHistory(events), status });
  return {
    now: guide.steps.find((s) => s.state === 'now')?.id ?? 'done',
    done: guide.steps.filter((s) => s.state === 'done').map((s) => s.id),
    off: guide.off,
  };
}

describe('the guided crash checklist', () => {
  it('follows approve → crash → blocked → decide → completed', () => {
    seq = 0;
    const events: WireEvent[] = [
      e({ type: 'run-start', input: {} }),
      e({ type: 'tool-approval-request', ...call, input: {}, requestedAt: at }),
      e({ type: 'run-suspend', status: 'waiting-approval', pending: [] }),
    ];
    expect(stateAfter(events, 'waiting-approval')).toEqual({ now: 'approve', done: [], off: undefined });
    events.push(
      e({ type: 'tool-approval-response', toolCallId: call.toolCallId, approved: true, by: 'alice' }),
      e({ type: 'run-resume', fromStatus: 'waiting-approval' }),
    );
    events.push(e({ type: 'tool-call-start', ...call, input: {}, idempotencyKey: 'k', attempt: 1, sideEffect: true }));
    expect(stateAfter(events, 'running').now).toBe('crash');
    // The server died after the start; the next invocation resumed it and found no outcome.
    events.push(e({ type: 'run-resume', fromStatus: 'running' }));
    expect(stateAfter(events, 'running')).toMatchObject({ now: 'blocked', done: ['approve', 'crash'] });
    events.push(e({ type: 'run-suspend', status: 'blocked', pending: [] }));
    expect(stateAfter(events, 'blocked')).toMatchObject({ now: 'decide', done: ['approve', 'crash', 'blocked'] });
    events.push(e({ type: 'side-effect-resolution', toolCallId: call.toolCallId, idempotencyKey: 'k', outcome: 'done', by: 'alice' }));
    expect(stateAfter(events, 'blocked').now).toBe('completed');
    events.push(e({ type: 'run-complete', text: 'Refunded', finishReason: 'stop', steps: 3 }));
    expect(stateAfter(events, 'completed')).toMatchObject({ now: 'done', done: ['approve', 'crash', 'blocked', 'decide', 'completed'] });
  });

  it('says so when the run took another way: a rejected refund, a failed run', () => {
    seq = 0;
    const rejected = [
      e({ type: 'tool-approval-request', ...call, input: {}, requestedAt: at }),
      e({ type: 'tool-approval-response', toolCallId: call.toolCallId, approved: false, by: 'bob' }),
    ];
    expect(stateAfter(rejected, 'running').off).toContain('The refund was rejected');
    expect(stateAfter([], 'failed').off).toBe('The run is failed: the guide stops here.');
  });
});
