/**
 * What a person whose decision got no answer is told: the journal's own record of the call's decision
 * (by whom, when, why), or that none was recorded and whether the run still waits for one. Real runs on
 * both journals, decided through the journal's API as the Studio's actions decide them.
 */
import { expect, it } from 'vitest';
import { runDurable } from '@/lib/durable';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { callDecision } from './call-decision';

describeEachJournal('a call decision read after a lost answer', (target) => {
  const { journal } = target.open();
  const waitingRun = async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('waiting-approval');
    return { runId, agent };
  };

  it('not recorded: no decision, and the run still waits for one on this call', async () => {
    const { runId } = await waitingRun();
    expect(await callDecision({ journal, runId, toolCallId: 'call-refund' })).toEqual({
      runId,
      toolCallId: 'call-refund',
      status: 'waiting-approval',
      undecided: true,
    });
  });

  it('recorded: who approved, when and why, as the journal holds it; nothing left undecided', async () => {
    const { runId } = await waitingRun();
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme', reason: 'customer verified' });
    // When the journal recorded it: its event's instant (approve's own answer carries the deciding
    // process's clock, taken before the append: a few ms earlier, and another clock than Postgres's).
    const recorded = { at: (await journal.events(runId)).at(-1)?.at.toISOString() };
    const read = await callDecision({ journal, runId, toolCallId: 'call-refund' });
    expect(read).toEqual({
      runId,
      toolCallId: 'call-refund',
      status: 'waiting-approval',
      decision: { outcome: 'approved', by: 'alice@acme', at: recorded.at, reason: 'customer verified' },
      undecided: false,
    });
    // The same, however far the run got since (the server that recorded it may have run it on, or died).
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' })).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    expect(await callDecision({ journal, runId, toolCallId: 'call-refund' })).toMatchObject({
      status: 'completed',
      decision: { outcome: 'approved', by: 'alice@acme', at: recorded.at },
      undecided: false,
    });
  });

  it('a rejection is a decision too; a canceled run waits for none', async () => {
    const rejected = await waitingRun();
    await journal.reject({ runId: rejected.runId, toolCallId: 'call-refund', by: 'bob@acme', reason: 'already refunded' });
    expect(await callDecision({ journal, runId: rejected.runId, toolCallId: 'call-refund' })).toMatchObject({
      decision: { outcome: 'rejected', by: 'bob@acme', reason: 'already refunded' },
      undecided: false,
    });
    const canceled = await waitingRun();
    await journal.cancel({ runId: canceled.runId, by: 'bob@acme', reason: 'withdrawn' });
    expect(await callDecision({ journal, runId: canceled.runId, toolCallId: 'call-refund' })).toEqual({
      runId: canceled.runId,
      toolCallId: 'call-refund',
      status: 'canceled',
      undecided: false,
    });
  });

  it('an approval counted under a rule that asks for two is said as counted (who, when, of how many), not as lost', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true, approvers: { approvals: 2 } });
    expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' })).status).toBe('waiting-approval');
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    const at = (await journal.events(runId)).at(-1)?.at.toISOString();
    expect(await callDecision({ journal, runId, toolCallId: 'call-refund' })).toEqual({
      runId,
      toolCallId: 'call-refund',
      status: 'waiting-approval',
      undecided: true,
      approvals: { votes: [{ by: 'alice@acme', at }], needed: 2 },
    });
  });

  it('no such run: undefined', async () => {
    expect(await callDecision({ journal, runId: uniqueRunId(), toolCallId: 'call-refund' })).toBeUndefined();
  });
});
