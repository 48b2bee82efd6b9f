import { tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent, refundScript } from '@/tests/support/refund-agent';
import { scriptedModel } from '@/tests/support/scripted-model';
import { DecisionConflictError, gnlTool, runDurable } from '../index';

describeEachJournal('approvals', (target) => {
  const { journal } = target.open();
  const call = (agent: ReturnType<typeof refundAgent>, runId: string, extra: object = {}) =>
    runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', ...extra });

  it('a call that needs approval is journaled as a question and the run resolves waiting-approval', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const result = await call(agent, runId);
    expect(result).toMatchObject({
      status: 'waiting-approval',
      runId,
      pending: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }],
    });
    if (result.status !== 'waiting-approval') return;
    expect(result.pending[0]?.requestedAt).toBeInstanceOf(Date);
    expect(agent.ledger.total).toBe(0);
    const run = await journal.getRun(runId);
    expect(run?.status).toBe('waiting-approval');
    expect(run?.pending).toEqual([expect.objectContaining({ kind: 'approval', toolCallId: 'call-refund' })]);

    // Resuming without a decision changes nothing and appends nothing.
    const before = (await journal.events(runId)).length;
    expect((await call(agent, runId)).status).toBe('waiting-approval');
    expect((await journal.events(runId)).length).toBe(before);
    expect(agent.scripted.calls()).toBe(1);
  });

  it("a decision's time is its event's, by the database's clock: in the answer, the pending list and the journal alike", async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    expect((await call(agent, runId)).status).toBe('waiting-approval');
    const decision = await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice' });
    const event = (await journal.events(runId)).find((e) => e.type === 'tool-approval-response');
    expect(event?.at.toISOString()).toBe(decision.at);
    const pending = (await journal.getRun(runId))?.pending as { decision?: { at?: string } }[] | undefined;
    expect(pending?.[0]?.decision?.at).toBe(decision.at);
  });

  it('after approve, the next resume executes the call before any new model call, once', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await call(agent, runId);
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme', reason: 'customer verified' });
    const result = await call(agent, runId);
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    expect(agent.scripted.calls()).toBe(2);
    const types = (await journal.events(runId)).map((e) => e.type);
    const approvedAt = types.indexOf('tool-approval-response');
    expect(types.slice(approvedAt)).toEqual(['tool-approval-response', 'run-resume', 'tool-call-start', 'tool-call-end', 'model-step', 'run-complete']);
    // And a crash-free second resume replays it, never runs it again.
    await call(agent, runId);
    expect(agent.ledger.total).toBe(1);
  });

  it('a resume request in the journal is inert: undecided, the run stays waiting and appends nothing; approved, it resumes and replays past it', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await call(agent, runId);
    await journal.requestResume({ runId, by: 'alice@acme', reason: 'too early' });
    const before = (await journal.events(runId)).length;
    expect(await call(agent, runId)).toMatchObject({ status: 'waiting-approval', pending: [{ toolCallId: 'call-refund' }] });
    expect((await journal.events(runId)).length).toBe(before);
    expect(agent.scripted.calls()).toBe(1);

    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    await journal.requestResume({ runId, by: 'alice@acme', reason: 'after approving refund (call-refund)' });
    expect((await call(agent, runId)).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    expect(agent.scripted.calls()).toBe(2);
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types.slice(types.indexOf('tool-approval-response'))).toEqual([
      'tool-approval-response',
      'run-resume-request',
      'run-resume',
      'tool-call-start',
      'tool-call-end',
      'model-step',
      'run-complete',
    ]);
    await call(agent, runId);
    expect([agent.ledger.total, agent.scripted.calls()]).toEqual([1, 2]);
  });

  it("after reject, the model receives the SDK's execution-denied output with the reason and carries on", async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await call(agent, runId);
    await journal.reject({ runId, toolCallId: 'call-refund', by: 'bob@acme', reason: 'refund window closed' });
    const result = await call(agent, runId);
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(0);
    const toolMessage = (agent.scripted.prompts.at(-1) as { role: string; content: { type: string; output?: unknown }[] }[]).find((m) => m.role === 'tool');
    expect(toolMessage?.content).toContainEqual(
      expect.objectContaining({ type: 'tool-result', output: { type: 'execution-denied', reason: 'refund window closed' } }),
    );
  });

  it('decisions are keyed by toolCallId; a second decision is a conflict naming who decided first', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await call(agent, runId);
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    const again = await journal.reject({ runId, toolCallId: 'call-refund', by: 'bob@acme' }).catch((e: unknown) => e);
    expect(DecisionConflictError.isInstance(again)).toBe(true);
    expect(again).toMatchObject({ name: 'DecisionConflictError', reason: 'already-decided', decidedBy: 'alice@acme' });
    expect((again as Error).message).toContain('alice@acme');

    // Still a conflict after the run consumed the decision and moved on.
    await call(agent, runId);
    await expect(journal.approve({ runId, toolCallId: 'call-refund', by: 'carol@acme' })).rejects.toMatchObject({
      reason: 'already-decided',
      decidedBy: 'alice@acme',
    });

    await expect(journal.approve({ runId: uniqueRunId('missing'), toolCallId: 'call-refund', by: 'alice@acme' })).rejects.toMatchObject({
      reason: 'unknown-run',
    });
    await expect(journal.approve({ runId, toolCallId: 'no-such-call', by: 'alice@acme' })).rejects.toMatchObject({ reason: 'unknown-call' });
    await expect(journal.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'done', by: 'alice@acme' })).rejects.toMatchObject({
      reason: 'unknown-call',
    });
  });

  it('two operators deciding at once: exactly one decision is recorded', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await call(agent, runId);
    const outcomes = await Promise.allSettled([
      journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' }),
      journal.reject({ runId, toolCallId: 'call-refund', by: 'bob@acme' }),
      journal.approve({ runId, toolCallId: 'call-refund', by: 'carol@acme' }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((await journal.events(runId)).filter((e) => e.type === 'tool-approval-response')).toHaveLength(1);
  });

  it('bad decision input gets a clear error and records nothing', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    await call(agent, runId);
    const before = (await journal.events(runId)).length;
    await expect(journal.approve({ runId, toolCallId: 'call-refund', by: '  ' })).rejects.toThrow(/by/);
    await expect(journal.approve({ runId: '', toolCallId: 'call-refund', by: 'a' } as never)).rejects.toThrow(/runId/);
    await expect(journal.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'maybe', by: 'a' } as never)).rejects.toThrow(/outcome/);
    expect((await journal.events(runId)).length).toBe(before);
  });

  it('honours needsApproval as a function of the input, the tool-level needsApproval, and the v7 toolApproval call option', async () => {
    // gnlTool's function form: only large refunds need a person.
    const small = refundAgent({ sideEffect: true, needsApproval: (input) => input.amount > 100 });
    expect((await call(small, uniqueRunId())).status).toBe('completed');
    const large = refundAgent({ sideEffect: true, needsApproval: (input) => input.amount > 10 });
    expect((await call(large, uniqueRunId())).status).toBe('waiting-approval');

    // The tool's own (deprecated) needsApproval.
    const scripted = scriptedModel(refundScript);
    const own = tool({ inputSchema: z.object({ orderId: z.string(), amount: z.number() }), needsApproval: true, execute: async () => ({ ok: true }) });
    const viaTool = await runDurable({
      runId: uniqueRunId(),
      journal,
      model: scripted.model,
      tools: { refund: gnlTool(own, { sideEffect: true }) },
      prompt: 'x',
    });
    expect(viaTool.status).toBe('waiting-approval');

    // The v7 call option, per tool (receives the toolCallId) and as one function.
    const seen: string[] = [];
    const perTool = refundAgent({ sideEffect: true });
    const r1 = await call(perTool, uniqueRunId(), {
      toolApproval: {
        refund: (_input: unknown, { toolCallId }: { toolCallId: string }) => {
          seen.push(toolCallId);
          return 'user-approval';
        },
      },
    });
    expect(r1.status).toBe('waiting-approval');
    expect(seen).toEqual(['call-refund']);
    const generic = refundAgent({ sideEffect: true });
    const r2 = await call(generic, uniqueRunId(), { toolApproval: () => ({ type: 'denied', reason: 'policy: no refunds on Sundays' }) });
    expect(r2.status).toBe('completed');
    expect(generic.ledger.total).toBe(0);
    expect(JSON.stringify(generic.scripted.prompts.at(-1))).toContain('policy: no refunds on Sundays');
  });

  it('an approval question may expire: past it, the next resume treats the call as rejected with the reason "expired"', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true, approvalExpiresInMs: 50 });
    const waiting = await call(agent, runId);
    expect(waiting).toMatchObject({ status: 'waiting-approval', pending: [{ toolCallId: 'call-refund', expiresAt: expect.any(Date) }] });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await expect(journal.approve({ runId, toolCallId: 'call-refund', by: 'late@acme' })).rejects.toMatchObject({
      name: 'DecisionConflictError',
      reason: 'expired',
    });
    const result = await call(agent, runId);
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(0);
    expect(JSON.stringify(agent.scripted.prompts.at(-1))).toContain('"reason":"expired"');
    const decision = (await journal.events(runId)).find((e) => e.type === 'tool-approval-response');
    expect(decision).toMatchObject({ approved: false, by: 'gnl', reason: 'expired', expired: true });
    await expect(journal.approve({ runId, toolCallId: 'call-refund', by: 'later@acme' })).rejects.toMatchObject({
      reason: 'already-decided',
      decidedBy: 'gnl',
    });
  });

  it('an approval decided before its expiry stands', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true, approvalExpiresInMs: 60_000 });
    await call(agent, runId);
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    expect((await call(agent, runId)).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
  });
});
