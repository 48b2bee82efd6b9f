/**
 * Approval rules (a tool's `approvers`: role, N of M, four eyes) on both journals, with a real executor
 * and the outside service's own refund counter: every refusal writes nothing, approvals before the N-th
 * are counted in the journal and listed on the pending item, two last approvals at once record one, and
 * the refund is sent once, after the N-th; a bulk approve passes such a call by.
 */
import { stepCountIs, tool } from 'ai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
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
  const context = () => ({ storage: holder.storage, registry });
  const approve = (runId: string, by: string, role: 'approver' | 'admin', extra: { input?: unknown } = {}) =>
    recordDecision({ kind: 'approve', runId, toolCallId: 'call-refund', by, role, ...extra }, context());

  it('refuses the starter, a lower role, an edit and the same person twice; counts the first admin; the second sends the refund once', async () => {
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
    await expect(approve(runId, 'ann', 'admin', { input: { orderId: 'o_17', amount: 10 } })).rejects.toMatchObject({ reason: 'no-edit' });
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
});

it('gnlTool refuses an approval rule it cannot keep, naming the field', () => {
  const refund = tool({ inputSchema: z.object({}), execute: async () => null });
  expect(() => gnlTool(refund, { needsApproval: true, approvers: { approvals: 0 } })).toThrow(/approvers must be .*approvals/);
  expect(() => gnlTool(refund, { needsApproval: true, approvers: { role: 'viewer' as never } })).toThrow(/approvers must be .*role/);
  expect(() => gnlTool(refund, { needsApproval: true, approvers: { quorum: 2 } as never })).toThrow(/approvers must be/);
});
