/**
 * Operator input on both journals: an output marked done must match the tool's output schema when the
 * caller gives it; deciding twice, on a run that moved on, on a canceled run, or for a call the run does
 * not wait for is a DecisionConflictError naming who decided first. Nothing is recorded for a refusal.
 */
import { beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { leaveRefundInFlight, refundAgent } from '@/tests/support/refund-agent';
import { DecisionConflictError, JournalDataError, type Journal, runDurable } from '../index';

const refundOutput = z.object({ refundId: z.string(), amount: z.number().positive() });

async function conflict(promise: Promise<unknown>): Promise<DecisionConflictError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(DecisionConflictError.isInstance(error)).toBe(true);
  return error as DecisionConflictError;
}

/** A run blocked on a refund of unknown outcome (its process died inside execute). */
async function blockedRun(journal: Journal) {
  const runId = uniqueRunId();
  await leaveRefundInFlight(journal, runId);
  const agent = refundAgent({ sideEffect: true });
  const resume = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
  await expect(resume()).rejects.toThrow(/is blocked/);
  return { runId, agent, resume };
}

describeEachJournal('operator input', (target) => {
  const { journal, storage } = target.open();
  // Opening (and migrating) the database is slow on a loaded machine: it happens here, not in the first test.
  beforeAll(() => storage.database().then(() => undefined), 300_000);

  it("marking done with an output that does not match the tool's output schema is refused with the reason; nothing is recorded", async () => {
    const { runId, agent, resume } = await blockedRun(journal);
    const before = await journal.events(runId);
    const request = { runId, toolCallId: 'call-refund', outcome: 'done' as const, by: 'ops@acme', outputSchema: refundOutput };
    const error = await journal.resolveSideEffect({ ...request, output: { refundId: 42, amount: -1 } }).catch((e: unknown) => e);
    expect(JournalDataError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^resolveSideEffect: the output for call call-refund does not match the tool's output schema: refundId: .*string.*; amount: .*\. Nothing was recorded\.$/,
    );
    expect((error as Error).cause).toBeDefined();
    await expect(journal.resolveSideEffect({ ...request, output: undefined })).rejects.toThrow(/does not match the tool's output schema/);
    expect(await journal.events(runId)).toEqual(before);
    expect((await journal.getRun(runId))?.status).toBe('blocked');

    // 'not-done' carries no output: the schema is not asked. A matching output is recorded as given.
    await journal.resolveSideEffect({ ...request, output: { refundId: 'r_manual', amount: 40 } });
    expect((await journal.events(runId)).at(-1)).toMatchObject({ type: 'side-effect-resolution', output: { refundId: 'r_manual', amount: 40 } });
    expect((await resume()).status).toBe('completed');
    expect(agent.ledger.total).toBe(0);
    await expect(journal.resolveSideEffect({ ...request, outcome: 'not-done', outputSchema: 'not a schema' as never })).rejects.toThrow(
      /outputSchema must be a schema/,
    );
  });

  it('resolving twice, and again after the run moved on, is a conflict naming who resolved first', async () => {
    const { runId, agent, resume } = await blockedRun(journal);
    await journal.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'not-done', by: 'alice@acme', reason: 'not in the PSP' });
    const second = await conflict(journal.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'done', output: {}, by: 'bob@acme' }));
    expect(second).toMatchObject({ reason: 'already-decided', decidedBy: 'alice@acme', decidedAt: expect.any(Date) });
    expect(second.message).toMatch(/^Decision refused: call call-refund of run ".*" was already decided by alice@acme at \d{4}-/);

    expect((await resume()).status).toBe('completed');
    expect(agent.ledger.total).toBe(1); // not-done: run again under the same key, once
    const late = await conflict(journal.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'done', output: {}, by: 'carol@acme' }));
    expect(late).toMatchObject({ reason: 'already-decided', decidedBy: 'alice@acme' });
    const events = await journal.events(runId);
    expect(events.filter((e) => e.type === 'side-effect-resolution')).toHaveLength(1);
  });

  it('a decision for a call the run does not wait for, or of the wrong kind, is an unknown-call conflict; an unknown run says so', async () => {
    const { runId } = await blockedRun(journal);
    const before = await journal.events(runId);
    expect(await conflict(journal.resolveSideEffect({ runId, toolCallId: 'no-such-call', outcome: 'done', output: {}, by: 'a' }))).toMatchObject({
      reason: 'unknown-call',
      message: expect.stringContaining('call no-such-call of run'),
    });
    // The refund is a blocked side effect, not an approval question.
    expect(await conflict(journal.approve({ runId, toolCallId: 'call-refund', by: 'a' }))).toMatchObject({
      reason: 'unknown-call',
      message: expect.stringContaining('no approval is requested for it'),
    });
    expect(await conflict(journal.reject({ runId: uniqueRunId('missing'), toolCallId: 'call-refund', by: 'a' }))).toMatchObject({
      reason: 'unknown-run',
    });
    expect(await journal.events(runId)).toEqual(before);
  });

  it('a decision on a canceled run names who canceled it and when', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    const { canceledAt } = await journal.cancel({ runId, by: 'ops@acme', reason: 'customer withdrew' });
    const error = await conflict(journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' }));
    expect(error).toMatchObject({ reason: 'run-finished', decidedBy: 'ops@acme', decidedAt: canceledAt });
    expect(error.message).toBe(`Decision refused: call call-refund of run "${runId}" has finished (canceled by ops@acme at ${canceledAt.toISOString()}).`);
  });
});
