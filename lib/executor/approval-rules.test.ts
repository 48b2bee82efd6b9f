/**
 * Approval rules (a tool's `approvers`: role, N of M, four eyes) on both journals, with a real executor
 * and the outside service's own refund counter: every refusal writes nothing, approvals before the N-th
 * are counted in the journal and listed on the pending item, two last approvals at once record one, and
 * the refund is sent once, after the N-th; a bulk approve passes such a call by.
 */
import { PassThrough } from 'node:stream';
import { stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { addOperator } from '@/lib/accounts';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { buildProgram } from '@/lib/cli/program';
import { CliSession } from '@/lib/cli/session';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { type ApprovalRule, gnlTool, RunState } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { untilStatus } from '@/tests/support/run-waits';
import { scriptedModel } from '@/tests/support/scripted-model';
import { Executor, previewBulk, recordDecision, resumeAfterDecision } from './index';

const RULE: ApprovalRule = { role: 'admin', approvals: 2, fourEyes: true };

describeEachStorage('approval rules', (holder) => {
  let service: OutsideService;
  let executor: Executor;
  let registry: ReturnType<typeof createAgentRegistry>;
  beforeAll(() => holder.storage.database().then(() => undefined), 300_000);
  beforeAll(() => addOperator({ storage: holder.storage, login: 'ann', name: 'Ann', password: 'correct horse battery', by: 'os:test', role: 'admin' }));
  beforeAll(async () => {
    service = await startOutsideService();
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        execute: async (input, { idempotencyKey }) => {
          const response = await fetch(`${service.url}/refunds`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey as string },
            body: JSON.stringify({ customerId: 'c_42', ...input }),
          });
          return (await response.json()) as unknown;
        },
      }),
      { sideEffect: true, needsApproval: true, approvers: RULE },
    );
    const model = scriptedModel((step) =>
      step === 0 ? { toolCalls: [{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] } : { text: 'Refunded.' },
    );
    registry = createAgentRegistry([defineAgent({ name: 'guarded', model: model.model, tools: { refund }, stopWhen: stepCountIs(3) })]);
    executor = new Executor({ storage: holder.storage, registry, leaseMs: 5_000, pollMs: 25 }).start();
  });
  afterAll(async () => {
    await executor?.stop({ graceMs: 5_000 });
    await service?.close();
  });

  const journal = () => holder.storage.runs;
  /** The command line in this process, on this storage: its stdout. */
  const gnlInProcess = async (args: string[]): Promise<string> => {
    const stdout = new PassThrough();
    let out = '';
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    const io = { stdout, stderr: new PassThrough() } as unknown as ConstructorParameters<typeof CliSession>[0];
    await buildProgram(new CliSession(io, registry).useStorage(holder.storage))
      .exitOverride()
      .parseAsync(['node', 'gnl', ...args]);
    return out;
  };
  const context = () => ({ storage: holder.storage, registry });
  const approve = (runId: string, by: string, role: 'approver' | 'admin', extra: { input?: unknown; reason?: string } = {}) =>
    recordDecision({ kind: 'approve', runId, toolCallId: 'call-refund', by, role, ...extra }, context());

  it('refuses the starter, a lower role and the same person twice; counts the first admin; the second sends the refund once', async () => {
    const refunds = () => service.stats().refunds.performed;
    const before = refunds();
    const { runId } = await executor.startRun({ agent: 'guarded', input: { prompt: 'Refund o_17' }, by: 'sam' });
    await untilStatus(journal(), runId, 'waiting-approval');
    const waiting = (await journal().getRun(runId))?.pending[0];
    expect(waiting).toMatchObject({ kind: 'approval', toolName: 'refund', rule: RULE });
    expect(new RunState(await journal().events(runId)).startedBy).toBe('sam');
    const lastSeq = async () => (await journal().getRun(runId))?.lastSeq;
    const unchanged = await lastSeq();

    await expect(approve(runId, 'sam', 'admin')).rejects.toMatchObject({ name: 'ApprovalRuleError', reason: 'four-eyes' });
    await expect(approve(runId, 'ann', 'approver')).rejects.toMatchObject({ name: 'ApprovalRuleError', reason: 'role' });
    expect(await lastSeq()).toBe(unchanged);

    const first = await approve(runId, 'ann', 'admin');
    expect(first).toMatchObject({ ok: true, decision: { outcome: 'counted', by: 'ann', approvals: { given: 1, needed: 2 } } });
    const counted = await journal().getRun(runId);
    expect(counted?.status).toBe('waiting-approval');
    expect(counted?.pending[0]).toMatchObject({ votes: [{ by: 'ann' }] });
    expect(counted?.pending[0]?.decision).toBeUndefined();
    expect(resumeAfterDecision({ kind: 'approve', runId, toolCallId: 'call-refund', by: 'ann' }, counted)).toEqual({ open: 1 });
    await expect(approve(runId, 'ann', 'admin')).rejects.toMatchObject({ reason: 'approved-already' });
    // A bulk approve passes it by: a call under a rule is approved on its own, where the role is checked.
    const bulk = await previewBulk({ storage: holder.storage, action: 'approve', by: 'ann', filter: { agent: 'guarded', tool: 'refund' } });
    expect(bulk.counts).toMatchObject({ wouldChange: 0, skipped: { 'approval-rule': 1 } });

    // Two last approvals at once: the run's lock orders them; one decides, the other is refused naming it.
    const [bob, cat] = await Promise.allSettled([approve(runId, 'bob', 'admin'), approve(runId, 'cat', 'admin')]);
    const decided = [bob, cat].filter((r) => r.status === 'fulfilled');
    expect(decided).toHaveLength(1);
    const refused = [bob, cat].find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ name: 'DecisionConflictError', reason: 'already-decided' });
    expect((decided[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof approve>>>).value).toMatchObject({
      ok: true,
      decision: { outcome: 'approved', approvals: { given: 2, needed: 2 } },
    });
    expect(refunds()).toBe(before);

    const after = await journal().getRun(runId);
    const next = resumeAfterDecision({ kind: 'approve', runId, toolCallId: 'call-refund', by: 'bob' }, after);
    expect(next.resume).toBeDefined();
    await executor.resumeRun(runId, next.resume as { by: string; reason: string });
    await untilStatus(journal(), runId, 'completed');
    expect(refunds()).toBe(before + 1);
    const types = (await journal().events(runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'tool-approval-vote')).toHaveLength(1);
    expect(types.filter((t) => t === 'tool-approval-response')).toHaveLength(1);
  });

  it('four eyes on changed arguments: one person proposes them, the votes before are void, others approve them as changed, the refund is of the new amount', async () => {
    const refundsSent = async () => (await (await fetch(`${service.url}/refunds`)).json()) as { orderId: string; amount: number }[];
    const before = (await refundsSent()).length;
    const { runId } = await executor.startRun({ agent: 'guarded', input: { prompt: 'Refund o_17' }, by: 'sam' });
    await untilStatus(journal(), runId, 'waiting-approval');
    const changed = { orderId: 'o_17', amount: 10 };
    expect(await approve(runId, 'ann', 'admin')).toMatchObject({ ok: true, decision: { outcome: 'counted', approvals: { given: 1, needed: 2 } } });

    // Bob proposes other arguments: Ann's approval was of the old ones, and under four eyes his own does not count.
    const proposed = await approve(runId, 'bob', 'admin', { input: changed, reason: 'only the damaged item' });
    expect(proposed).toMatchObject({ ok: true, decision: { outcome: 'counted', by: 'bob', editedInput: true, approvals: { given: 0, needed: 2 } } });
    const waiting = (await journal().getRun(runId))?.pending[0];
    expect(waiting).toMatchObject({ kind: 'approval', votes: [], proposal: { by: 'bob', input: changed } });
    expect(waiting?.kind === 'approval' && waiting.input).toEqual({ orderId: 'o_17', amount: 40 });
    // The projection folds the journal to the same pending item the decision wrote.
    expect(new RunState(await journal().events(runId)).approvals.get('call-refund')).toMatchObject({ votes: [], proposal: { by: 'bob', input: changed } });

    const unchanged = (await journal().getRun(runId))?.lastSeq;
    // An approval of the arguments as asked: whoever sends it saw other arguments than those that would run.
    await expect(approve(runId, 'cat', 'admin')).rejects.toMatchObject({ name: 'ApprovalRuleError', reason: 'arguments-changed' });
    await expect(approve(runId, 'bob', 'admin', { input: changed })).rejects.toMatchObject({ name: 'ApprovalRuleError', reason: 'four-eyes' });
    await expect(approve(runId, 'sam', 'admin', { input: changed })).rejects.toMatchObject({ name: 'ApprovalRuleError', reason: 'four-eyes' });
    expect((await journal().getRun(runId))?.lastSeq).toBe(unchanged);

    // On the command line: gnl show lists the rule and the proposal, gnl approve --as-changed approves it.
    const shown = await gnlInProcess(['show', runId]);
    expect(shown).toContain('rule: role admin, 2 approvals, four eyes');
    expect(shown).toContain('args as changed by bob {"amount":10,"orderId":"o_17"} (asked: {"amount":40,"orderId":"o_17"})');
    expect(shown).toContain('--as-changed --by <you>');
    const viaCli = JSON.parse(await gnlInProcess(['approve', runId, 'call-refund', '--as-changed', '--by', 'ann', '--json']));
    expect(viaCli).toMatchObject({ decision: { outcome: 'counted', by: 'ann', approvals: { given: 1, needed: 2 } } });
    const last = await approve(runId, 'cat', 'admin', { input: { amount: 10, orderId: 'o_17' } }); // the same arguments in another key order
    expect(last).toMatchObject({ ok: true, decision: { outcome: 'approved', by: 'cat', editedInput: true, approvals: { given: 2, needed: 2 } } });
    const response = (await journal().events(runId)).find((e) => e.type === 'tool-approval-response');
    expect(response).toMatchObject({ approved: true, by: 'cat', editedBy: 'bob', approvedInput: changed });
    expect((await refundsSent()).length).toBe(before);

    const next = resumeAfterDecision({ kind: 'approve', runId, toolCallId: 'call-refund', by: 'cat' }, await journal().getRun(runId));
    await executor.resumeRun(runId, next.resume as { by: string; reason: string });
    await untilStatus(journal(), runId, 'completed');
    const sent = await refundsSent();
    expect(sent.length).toBe(before + 1);
    expect(sent.at(-1)).toMatchObject({ orderId: 'o_17', amount: 10 });
  });
});

it('gnlTool refuses an approval rule it cannot keep, naming the field', () => {
  const refund = tool({ inputSchema: z.object({}), execute: async () => null });
  expect(() => gnlTool(refund, { needsApproval: true, approvers: { approvals: 0 } })).toThrow(/approvers must be .*approvals/);
  expect(() => gnlTool(refund, { needsApproval: true, approvers: { role: 'viewer' as never } })).toThrow(/approvers must be .*role/);
  expect(() => gnlTool(refund, { needsApproval: true, approvers: { quorum: 2 } as never })).toThrow(/approvers must be/);
});
