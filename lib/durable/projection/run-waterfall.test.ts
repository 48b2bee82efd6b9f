import { describe, expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { leaveRefundInFlight, REFUND_INPUT, refundAgent } from '@/tests/support/refund-agent';
import type { JournalEvent } from '../journal/events';
import { runDurable } from '../index';
import { addToInvocations, NO_INVOCATIONS, type SeqAtEvent } from './run-invocations';
import { addToWaterfall, EMPTY_WATERFALL, type RunWaterfall, trimWaterfall, waterfallGaps } from './run-waterfall';

const T0 = Date.parse('2026-01-05T09:11:00.000Z');
/** A journal written by hand: each event at T0 + `s` seconds, numbered in order. */
function journalOf(...rows: [s: number, event: JournalEvent][]): SeqAtEvent[] {
  return rows.map(([s, event], i) => ({ ...event, seq: i + 1, at: new Date(T0 + s * 1000).toISOString() }) as SeqAtEvent);
}
const START: JournalEvent = { type: 'run-start', input: { prompt: 'Refund o_17', modelId: 'm', provider: 'p', toolNames: ['refund'] } };
const step = (n: number, latencyMs: number): JournalEvent => ({ type: 'model-step', step: n, provider: 'p', modelId: 'm', latencyMs, result: {} });
const refundStart: JournalEvent = {
  type: 'tool-call-start',
  toolCallId: 'c1',
  toolName: 'refund',
  input: REFUND_INPUT,
  idempotencyKey: 'k1',
  attempt: 1,
  sideEffect: true,
};
const refundEnd = (source: 'executed' | 'check' = 'executed'): JournalEvent => ({
  type: 'tool-call-end',
  toolCallId: 'c1',
  toolName: 'refund',
  idempotencyKey: 'k1',
  attempt: 1,
  output: { ok: true },
  durationMs: 1000,
  source,
});

describe('runWaterfall from a journal', () => {
  it('a run queued by startRun: its first run-resume begins the first invocation, it is not a resume', () => {
    const w = addToWaterfall(EMPTY_WATERFALL, journalOf([0, START], [1, { type: 'run-resume', fromStatus: 'running' }], [3, step(0, 1500)]));
    expect(w.invocations.invocations).toEqual([{ seq: 2, at: T0 + 1000, began: 'first' }]);
    expect(w.bars).toEqual([{ id: 'model:0', kind: 'model', label: 'step 1', seq: 3, startMs: T0 + 1500, endMs: T0 + 3000, outcome: 'ok' }]);
  });

  it('model calls and tool calls are bars on the clock; a read-only call without a start is placed by its startedAt', () => {
    const lookup: JournalEvent = {
      type: 'tool-call-end',
      toolCallId: 'c0',
      toolName: 'lookupOrder',
      idempotencyKey: 'k0',
      attempt: 1,
      output: {},
      durationMs: 250,
      input: {},
      startedAt: new Date(T0 + 2000).toISOString(),
      source: 'executed',
    };
    const w = addToWaterfall(
      EMPTY_WATERFALL,
      journalOf(
        [0, START],
        [1, step(0, 1000)],
        [2.25, lookup],
        [3, refundStart],
        [4, refundEnd()],
        [5, { type: 'run-complete', text: 'done', finishReason: 'stop', steps: 1 }],
      ),
    );
    expect(w.bars.map((b) => [b.kind, b.label, b.startMs - T0, b.endMs - T0, b.outcome])).toEqual([
      ['model', 'step 1', 0, 1000, 'ok'],
      ['tool', 'lookupOrder', 2000, 2250, 'ok'],
      ['side-effect', 'refund', 3000, 4000, 'ok'],
    ]);
    expect(w.invocations.invocations).toEqual([{ seq: 1, at: T0, began: 'created', end: { how: 'completed', text: 'done', seq: 6, at: T0 + 5000 } }]);
    expect(waterfallGaps(w.invocations.invocations)).toEqual([]);
  });

  it('a wait for a person is a gap from the suspend to the resume, and the resume names who decided', () => {
    const w = addToWaterfall(
      EMPTY_WATERFALL,
      journalOf(
        [0, START],
        [1, step(0, 1000)],
        [1, { type: 'tool-approval-request', toolCallId: 'c1', toolName: 'refund', input: REFUND_INPUT, requestedAt: 'x' }],
        [1, { type: 'run-suspend', status: 'waiting-approval', pending: [] }],
        [60, { type: 'tool-approval-response', toolCallId: 'c1', approved: true, by: 'alice' }],
        [61, { type: 'run-resume', fromStatus: 'waiting-approval' }],
      ),
    );
    const [first, second] = w.invocations.invocations;
    expect(first?.end).toEqual({ how: 'suspended', status: 'waiting-approval', seq: 4, at: T0 + 1000 });
    expect(second).toEqual({ seq: 6, at: T0 + 61_000, began: 'after-wait', decidedBy: 'alice' });
    expect(waterfallGaps(w.invocations.invocations)).toEqual([{ kind: 'person', waitedFor: 'waiting-approval', fromMs: T0 + 1000, toMs: T0 + 61_000 }]);
  });

  it('a resume asked for after a decision is "resuming" until the next invocation begins; one scheduled for later is not', () => {
    const base: [number, JournalEvent][] = [
      [0, START],
      [0.1, { type: 'run-resume', fromStatus: 'running' }],
      [1, { type: 'run-suspend', status: 'blocked', pending: [] }],
      [5, { type: 'side-effect-resolution', toolCallId: 'c', idempotencyKey: 'k', outcome: 'done', by: 'alice' }],
    ];
    const fold = (...more: [number, JournalEvent][]) => addToInvocations(NO_INVOCATIONS, journalOf(...base, ...more));
    expect(fold().resumeRequested).toBeUndefined();
    expect(fold([6, { type: 'run-resume-request', by: 'bob', resumeAt: '2030-01-01T00:00:00.000Z' }]).resumeRequested).toBeUndefined();
    const asked: [number, JournalEvent] = [6, { type: 'run-resume-request', by: 'alice', reason: 'decided' }];
    expect(fold(asked).resumeRequested).toEqual({ by: 'alice', at: T0 + 6000, seq: 5 });
    const begun = fold(asked, [7, { type: 'run-resume', fromStatus: 'blocked' }]);
    expect(begun.resumeRequested).toBeUndefined();
    expect(begun.invocations.at(-1)).toMatchObject({ began: 'after-wait', decidedBy: 'alice' });
  });

  it('an invocation that stopped without an end is interrupted at its last event; its started side effect has an unknown outcome', () => {
    const w = addToWaterfall(
      EMPTY_WATERFALL,
      journalOf(
        [0, START],
        [0, { type: 'run-resume', fromStatus: 'running' }],
        [1, step(0, 500)],
        [2, refundStart],
        [32, { type: 'run-resume', fromStatus: 'running' }],
        [33, refundEnd('check')],
      ),
    );
    expect(w.invocations.invocations.map((i) => [i.began, i.end?.how, i.end && i.end.at - T0])).toEqual([
      ['first', 'interrupted', 2000],
      ['after-interruption', undefined, undefined],
    ]);
    expect(waterfallGaps(w.invocations.invocations)).toEqual([{ kind: 'interruption', fromMs: T0 + 2000, toMs: T0 + 32_000 }]);
    expect(w.bars.slice(1).map((b) => [b.label, b.startMs - T0, b.endMs - T0, b.outcome, b.source])).toEqual([
      ['refund', 2000, 2000, 'unknown', undefined],
      ['refund', 32_000, 33_000, 'ok', 'check'],
    ]);
  });

  it('a failure the executor retries is a retry gap, and the invocation after it names the attempt', () => {
    const w = addToWaterfall(
      EMPTY_WATERFALL,
      journalOf(
        [0, START],
        [1, { type: 'run-fail', error: { name: 'APICallError', message: '503' } }],
        [1, { type: 'run-retry', by: 'worker-2', attempt: 1, attempts: 3, error: { name: 'APICallError', message: '503' }, retryAt: 'soon' }],
        [6, { type: 'run-resume', fromStatus: 'failed' }],
      ),
    );
    expect(w.invocations.invocations[1]).toEqual({ seq: 4, at: T0 + 6000, began: 'after-failure', retry: { by: 'worker-2', attempt: 2, attempts: 3 } });
    expect(waterfallGaps(w.invocations.invocations)).toEqual([{ kind: 'retry', fromMs: T0 + 1000, toMs: T0 + 6000 }]);
  });

  it('a run still waiting has an open gap; folding in pages gives what folding at once gives, without touching the earlier fold', () => {
    const events = journalOf([0, START], [1, step(0, 1000)], [2, refundStart], [3, { type: 'run-suspend', status: 'blocked', pending: [] }]);
    const whole = addToWaterfall(EMPTY_WATERFALL, events);
    let paged: RunWaterfall = EMPTY_WATERFALL;
    for (const e of events) {
      const before = JSON.stringify(paged);
      const next = addToWaterfall(paged, [e, e]);
      expect(JSON.stringify(paged)).toBe(before);
      paged = next;
    }
    expect(paged).toEqual(whole);
    expect(addToWaterfall(whole, events)).toBe(whole);
    expect(whole.bars[1]?.outcome).toBe('unknown');
    expect(waterfallGaps(whole.invocations.invocations)).toEqual([{ kind: 'person', waitedFor: 'blocked', fromMs: T0 + 3000 }]);
    expect(addToInvocations(NO_INVOCATIONS, events)).toEqual(whole.invocations);
  });
});

describe('trimWaterfall: a long run sends its newest bars', () => {
  it('keeps the newest bars, counts the rest, and folds on as the whole does', () => {
    const events = journalOf([0, START], [1, step(0, 500)], [2, step(1, 500)], [3, refundStart], [4, refundEnd()], [5, step(2, 500)]);
    const head = addToWaterfall(EMPTY_WATERFALL, events.slice(0, 4));
    const trimmed = trimWaterfall(head, 1);
    expect(trimmed.trimmed).toBe(2);
    expect(trimmed.bars.map((b) => b.id)).toEqual(['tool:k1:1']);
    const whole = addToWaterfall(EMPTY_WATERFALL, events);
    const folded = addToWaterfall(trimmed, events.slice(4));
    expect(folded.bars).toEqual(whole.bars.slice(2));
    expect(folded.invocations).toEqual(whole.invocations);
    expect(trimWaterfall(whole, 10)).toBe(whole);
  });
});

describeEachJournal('runWaterfall over a real journal', (target) => {
  const { journal } = target.open();

  it('an approval, its wait and the refund after it: one model bar per step, the refund once, the wait a person gap', async () => {
    const runId = uniqueRunId('waterfall');
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const call = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect((await call()).status).toBe('waiting-approval');
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme', reason: 'verified' });
    expect((await call()).status).toBe('completed');
    const w = addToWaterfall(EMPTY_WATERFALL, await journal.events(runId));
    expect(w.bars.map((b) => [b.kind, b.label, b.outcome])).toEqual([
      ['model', 'step 1', 'ok'],
      ['side-effect', 'refund', 'ok'],
      ['model', 'step 2', 'ok'],
    ]);
    expect(w.invocations.invocations.map((i) => [i.began, i.decidedBy, i.end?.how])).toEqual([
      ['created', undefined, 'suspended'],
      ['after-wait', 'alice@acme', 'completed'],
    ]);
    const [gap] = waterfallGaps(w.invocations.invocations);
    expect(gap).toMatchObject({ kind: 'person', waitedFor: 'waiting-approval' });
    expect(gap && gap.toMs !== undefined && gap.toMs >= gap.fromMs).toBe(true);
  });

  it('a refund left in flight by a killed process: the next invocation begins after an interruption, the refund has an unknown outcome', async () => {
    const runId = uniqueRunId('waterfall');
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }).catch((error: unknown) => error);
    const w = addToWaterfall(EMPTY_WATERFALL, await journal.events(runId));
    expect(w.invocations.invocations.map((i) => [i.began, i.end?.how])).toEqual([
      ['created', 'interrupted'],
      ['after-interruption', 'suspended'],
    ]);
    expect(w.bars.find((b) => b.kind === 'side-effect')?.outcome).toBe('unknown');
    expect(agent.ledger.total).toBe(0);
  });
});
