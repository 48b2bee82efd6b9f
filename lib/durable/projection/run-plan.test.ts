/**
 * The plan is what the resume does: for each state a run can be left in (an approval decided or not, a
 * side effect of unknown outcome under each declaration, marked done or not done, a canceled run), the
 * plan computed from the journal, and from its tail alone, is compared with what resuming the run then
 * executes, counted by the refund ledger (the outside service of these tests), on both journals.
 */
import { expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { leaveRefundInFlight, refundAgent } from '@/tests/support/refund-agent';
import {
  fromLastModelStep,
  type GnlToolOptions,
  idempotencyKey,
  type Journal,
  type PlannedCall,
  planResume,
  RunState,
  runDurable,
  SideEffectRetryBlockedError,
  toolDeclaration,
} from '../index';

type Agent = ReturnType<typeof refundAgent>;

async function planOf(journal: Journal, runId: string, agent: Agent): Promise<PlannedCall[]> {
  const events = await journal.events(runId);
  const declarations = { refund: toolDeclaration(agent.tools.refund) };
  const whole = planResume({ state: new RunState(events), declarations, now: Date.now() });
  // Paged as the Studio reads a long run: only the part from the last model step is kept.
  let kept: typeof events = [];
  for (let i = 0; i < events.length; i += 2) kept = fromLastModelStep(kept, events.slice(i, i + 2));
  const status = (await journal.getRun(runId))?.status;
  expect(planResume({ state: new RunState(kept), declarations, now: Date.now(), ...(status ? { status } : {}) })).toEqual(whole);
  return whole;
}

describeEachJournal('planResume says what the resume does', (target) => {
  const { journal } = target.open();
  /** Resumes the run; a run left blocked is an error runDurable throws (SideEffectRetryBlockedError), read here as its status. */
  const resume = async (agent: Agent, runId: string): Promise<{ status: string }> => {
    try {
      return await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    } catch (error) {
      if (SideEffectRetryBlockedError.isInstance(error)) return { status: 'blocked' };
      throw error;
    }
  };
  const key = (runId: string) => idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'refund' });

  it('an approved call executes once; a rejected one never runs; an undecided one waits', async () => {
    for (const decide of ['approve', 'reject', 'none'] as const) {
      const runId = uniqueRunId(`plan-${decide}`);
      const agent = refundAgent({ sideEffect: true, needsApproval: true });
      expect((await resume(agent, runId)).status).toBe('waiting-approval');
      if (decide === 'approve') await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
      if (decide === 'reject') await journal.reject({ runId, toolCallId: 'call-refund', by: 'bob@acme', reason: 'not owed' });
      const [call, ...rest] = await planOf(journal, runId, agent);
      expect(rest).toEqual([]);
      const expected = { approve: 'executes', reject: 'not-run', none: 'waits' }[decide];
      expect(call).toMatchObject({ toolCallId: 'call-refund', toolName: 'refund', action: expected });
      const result = await resume(agent, runId);
      expect(result.status).toBe(decide === 'none' ? 'waiting-approval' : 'completed');
      expect(agent.ledger.total).toBe(decide === 'approve' ? 1 : 0);
    }
  });

  it('a side effect of unknown outcome: runs again if retrySafe, is checked first if it has a check, else blocks', async () => {
    const cases: { options: GnlToolOptions<{ orderId: string; amount: number }, unknown>; action: string; executions: number; status: string }[] = [
      { options: { sideEffect: true, retrySafe: true }, action: 'executes-again', executions: 1, status: 'completed' },
      {
        options: { sideEffect: true, check: async () => ({ done: true, output: { refundId: 'r_o_17', amount: 40 } }) },
        action: 'checked-first',
        executions: 0,
        status: 'completed',
      },
      { options: { sideEffect: true, check: async () => ({ done: false }) }, action: 'checked-first', executions: 1, status: 'completed' },
      { options: { sideEffect: true }, action: 'blocks', executions: 0, status: 'blocked' },
    ];
    for (const [i, c] of cases.entries()) {
      const runId = uniqueRunId(`plan-unknown-${i}`);
      const agent = refundAgent(c.options);
      await leaveRefundInFlight(journal, runId);
      const [call] = await planOf(journal, runId, agent);
      expect(call).toMatchObject({ action: c.action, idempotencyKey: key(runId) });
      expect((await resume(agent, runId)).status).toBe(c.status);
      expect(agent.ledger.executions.get(key(runId)) ?? 0).toBe(c.executions);
    }
  });

  it('a blocked side effect marked not done executes again under its key; marked done, it is not run', async () => {
    for (const outcome of ['not-done', 'done'] as const) {
      const runId = uniqueRunId(`plan-${outcome}`);
      const agent = refundAgent({ sideEffect: true });
      await leaveRefundInFlight(journal, runId);
      expect((await resume(agent, runId)).status).toBe('blocked');
      const output = { refundId: 'r_o_17', amount: 40 };
      await journal.resolveSideEffect({
        runId,
        toolCallId: 'call-refund',
        outcome,
        by: 'alice@acme',
        reason: 'PSP says so',
        ...(outcome === 'done' ? { output } : {}),
      });
      const [call] = await planOf(journal, runId, agent);
      expect(call).toMatchObject(
        outcome === 'done'
          ? { action: 'replays', decision: { outcome: 'done', by: 'alice@acme' } }
          : { action: 'executes-again', idempotencyKey: key(runId), why: 'marked not done by alice@acme' },
      );
      expect((await resume(agent, runId)).status).toBe('completed');
      expect(agent.ledger.executions.get(key(runId)) ?? 0).toBe(outcome === 'done' ? 0 : 1);
    }
  });

  it('a canceled run plans nothing, and its resume runs nothing', async () => {
    const runId = uniqueRunId('plan-canceled');
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    expect((await resume(agent, runId)).status).toBe('waiting-approval');
    await journal.cancel({ runId, by: 'alice@acme', reason: 'customer withdrew' });
    expect(await planOf(journal, runId, agent)).toEqual([]);
    expect((await resume(agent, runId)).status).toBe('canceled');
    expect(agent.ledger.total).toBe(0);
  });
});
