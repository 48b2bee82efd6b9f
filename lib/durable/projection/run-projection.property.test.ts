/**
 * The run projection on random logs. A seeded walk drives a run through what really happens to one:
 * invocations that record model steps and suspend (for approvals, on side effects of unknown outcome,
 * for tool results), complete or fail, in batches of one or more appends; operators who decide through
 * the journal's API, cancel, or ask for a resume; a stopped invocation that still writes after a cancel.
 * After every action:
 * - the summary row the append statement maintains in SQL (status, pending with its decisions, step
 *   count, last seq) equals what the projection folds from the journal's events, on both journals;
 * - folding any prefix and then the rest one event at a time equals folding the whole (incremental).
 */
import { expect, it } from 'vitest';
import { seededRandom } from '@/e2e/explorer/random';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import type { Journal, JournalEvent, PendingItem, RecordedEvent } from '../index';
import { RunState } from './run-state';

const INPUT = { prompt: 'walk', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['refund'] };
const at = '2026-12-01T00:00:00.000Z';

/** What the summary and the projection are compared on: a decision's instant is the API's clock in one and the row's in the other. */
function comparable(pending: readonly PendingItem[]) {
  return pending.map((item) => (item.decision ? { ...item, decision: { ...item.decision, at: 'when' } } : item));
}

/** Everything the projection holds, as plain data. */
function snapshot(state: RunState) {
  return {
    status: state.status,
    lastSeq: state.lastSeq,
    canceled: state.canceled,
    failedAt: state.failedAt,
    pending: state.pending,
    decisions: [...state.decisions],
    resumes: state.resumes,
    steps: state.recordedSteps(),
    operations: [...state.operations].map(([key, op]) => [key, { ...op, toolCallIds: [...op.toolCallIds] }]),
    approvals: [...state.approvals],
    lastStepCalls: state.lastStepCalls(),
  };
}

/** One invocation's writes: a model step with `calls` tool calls, then how it stops. */
function invocation(step: number, calls: number, ending: number): JournalEvent[] {
  const ids = Array.from({ length: calls }, (_, i) => `c${step}_${i}`);
  const content = ids.map((toolCallId) => ({ type: 'tool-call', toolCallId, toolName: 'refund', input: '{}' }));
  const events: JournalEvent[] = [{ type: 'model-step', step, provider: 'scripted', modelId: 'scripted-v1', latencyMs: 1, result: { content } }];
  const kind = ending % 5;
  if (kind === 0 || calls === 0) events.push({ type: 'run-complete', text: 'done', finishReason: 'stop', steps: step + 1 });
  else if (kind === 1) events.push({ type: 'run-fail', error: { name: 'Error', message: 'boom' } });
  else if (kind === 2) {
    for (const id of ids) events.push({ type: 'tool-approval-request', toolCallId: id, toolName: 'refund', input: {}, requestedAt: at });
    events.push({
      type: 'run-suspend',
      status: 'waiting-approval',
      pending: ids.map((toolCallId) => ({ kind: 'approval', toolCallId, toolName: 'refund', input: {}, requestedAt: at })),
    });
  } else if (kind === 3) {
    const pending: PendingItem[] = ids.map((toolCallId) => ({
      kind: 'side-effect',
      toolCallId,
      toolName: 'refund',
      input: {},
      idempotencyKey: `k-${toolCallId}`,
      attempt: 1,
      startedAt: at,
      reason: 'no check and not retrySafe',
    }));
    for (const id of ids)
      events.push({ type: 'tool-call-start', toolCallId: id, toolName: 'refund', input: {}, idempotencyKey: `k-${id}`, attempt: 1, sideEffect: true });
    events.push({ type: 'run-suspend', status: 'blocked', pending });
  } else {
    const pending: PendingItem[] = ids.map((toolCallId) => ({
      kind: 'tool-result',
      toolCallId,
      toolName: 'refund',
      input: {},
      idempotencyKey: `k-${toolCallId}`,
      requestedAt: at,
    }));
    events.push({ type: 'run-suspend', status: 'waiting-tool-result', pending });
  }
  return events;
}

async function decide(journal: Journal, runId: string, item: PendingItem, roll: number): Promise<void> {
  const by = roll < 0.5 ? 'alice@acme' : 'bob@acme';
  const { toolCallId } = item;
  if (item.kind === 'approval') await (roll < 0.6 ? journal.approve({ runId, toolCallId, by }) : journal.reject({ runId, toolCallId, by, reason: 'no' }));
  else if (item.kind === 'side-effect') {
    const outcome = roll < 0.5 ? 'done' : 'not-done';
    await journal.resolveSideEffect({ runId, toolCallId, outcome, by, reason: 'checked the PSP', ...(outcome === 'done' ? { output: { ok: true } } : {}) });
  } else await journal.provideToolResult({ runId, toolCallId, output: { provided: roll }, by, reason: 'from the client' });
}

describeEachJournal('the run projection on random logs', (target) => {
  const { journal } = target.open();

  it('the summary row kept in SQL equals the projection, and folding is incremental, after every action of 24 random walks', async () => {
    let actions = 0;
    let statuses = new Set<string>();
    for (let seed = 1; seed <= 24; seed++) {
      const next = seededRandom(seed);
      const runId = uniqueRunId(`walk-${seed}`);
      const hold = await journal.hold(runId);
      let step = 0;
      let wroteAfterCancel = false;
      try {
        await hold.create(INPUT);
        for (let action = 0; action < 14; action++) {
          const state = new RunState(await journal.events(runId));
          if (state.status === 'completed' || wroteAfterCancel) break;
          const roll = next();
          if (state.status === 'running') {
            const events = invocation(step++, 1 + Math.floor(next() * 2), Math.floor(next() * 5));
            const cut = 1 + Math.floor(next() * events.length);
            await hold.append(events.slice(0, cut));
            if (cut < events.length) await hold.append(events.slice(cut));
          } else if (state.status === 'canceled') {
            // The invocation a cancel stopped may still record its end: the cancel stays the run's word.
            await hold.append([
              roll < 0.5 ? { type: 'run-fail', error: { name: 'Error', message: 'stopped' } } : (invocation(step++, 1, 2).at(-1) as JournalEvent),
            ]);
            wroteAfterCancel = true;
          } else {
            const undecided = state.pending.filter((item) => !item.decision);
            if (roll < 0.55 && undecided.length > 0) await decide(journal, runId, undecided[Math.floor(next() * undecided.length)] as PendingItem, next());
            else if (roll < 0.85 || state.status === 'failed') await hold.append([{ type: 'run-resume', fromStatus: state.status ?? 'running' }]);
            else await journal.cancel({ runId, by: 'carol@acme', reason: 'customer withdrew' });
          }
          actions += 1;
          const events: RecordedEvent[] = await journal.events(runId);
          const projected = new RunState(events);
          const row = await journal.getRun(runId);
          statuses = statuses.add(projected.status as string);
          expect({ status: row?.status, pending: comparable(row?.pending ?? []), stepCount: row?.stepCount, lastSeq: row?.lastSeq }, `seed ${seed}`).toEqual({
            status: projected.status,
            pending: comparable(projected.pending),
            stepCount: projected.recordedSteps().length,
            lastSeq: projected.lastSeq,
          });
          const k = Math.floor(next() * (events.length + 1));
          const incremental = new RunState(events.slice(0, k));
          for (const event of events.slice(k)) incremental.apply(event);
          expect(snapshot(incremental), `seed ${seed}, prefix ${k}`).toEqual(snapshot(projected));
        }
      } finally {
        await hold.release();
      }
    }
    // The walks met every status, so the comparison covered each rule.
    expect([...statuses].sort()).toEqual(['blocked', 'canceled', 'completed', 'failed', 'running', 'waiting-approval', 'waiting-tool-result']);
    expect(actions).toBeGreaterThan(150);
  });
});
