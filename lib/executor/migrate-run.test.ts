/**
 * Agent versions across a deploy, on real journals, with the demo agent and its real outside service,
 * judged by the service's own counters. A "deploy" is a new executor with a new registry on the same
 * storage: a run waiting for approval on version 1 continues on the version that declares 'continue',
 * finishes on its own version while a 'pinned' change is registered beside it, and is migrated on
 * purpose, after a preview, when no deployed version matches it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { SUPPORT_SYSTEM, supportAgent } from '@/agents/support';
import { type Agent, AgentInputError, createAgentRegistry, defineAgent } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { issueRefundInput, supportTools } from '@/lib/demo/support-tools';
import { type RecordedEvent, RunState } from '@/lib/durable';
import { describeEachStorage } from '@/tests/support/executor-storages';
import {
  applyBulk,
  BulkActionError,
  Executor,
  MigrationRefusedError,
  migrateRun,
  previewBulk,
  previewMigration,
  queueEntry,
  resumeRun,
  runVersion,
  startRun,
} from './index';

const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };
/** Real executors on a loaded machine: PGlite's first start alone can take a minute (a bound, never a timing assertion). */
const TEST_TIMEOUT_MS = 240_000;

describeEachStorage('agent versions and migration', (holder) => {
  let service: OutsideService;
  let executor: Executor | undefined;
  beforeAll(async () => {
    service = await startOutsideService();
  });
  afterAll(async () => {
    await executor?.stop({ graceMs: 5_000 });
    await service.close();
  });

  /** Version 1, as deployed first. */
  const v1 = () => supportAgent({ serviceUrl: service.url });
  /** A reworded system prompt, declared to take over open runs. */
  const reworded = () => variant({ system: `${SUPPORT_SYSTEM}\n6. Sign every email "The support team".`, onChange: 'continue' });
  /** issueRefund takes a new optional field: its input schema changed, so open runs stay on their version. */
  const newRefundSchema = () => variant({ refundSchema: issueRefundInput.extend({ note: z.string().optional() }) });
  const variant = (change: { system?: string; onChange?: 'continue' | 'pinned'; refundSchema?: z.ZodType; without?: string }) => {
    const tools: Record<string, unknown> = { ...supportTools({ serviceUrl: service.url }) };
    if (change.refundSchema) tools.issueRefund = { ...(tools.issueRefund as object), inputSchema: change.refundSchema };
    if (change.without) delete tools[change.without];
    const base = v1();
    return defineAgent({
      name: 'support',
      model: base.model,
      tools: tools as ReturnType<typeof supportTools>,
      system: change.system ?? SUPPORT_SYSTEM,
      stopWhen: base.settings.stopWhen,
      // It remembers as version 1 does (a run with a subject and a conversation keeps its memory record).
      ...(base.memory ? { memory: base.memory } : {}),
      ...(change.onChange ? { onChange: change.onChange } : {}),
    });
  };

  /** Deploys `agents` as the only executor on the storage (the previous one stopped). */
  const deploy = async (...agents: Agent[]) => {
    await executor?.stop({ graceMs: 5_000 });
    const registry = createAgentRegistry(agents);
    executor = new Executor({ storage: holder.storage, registry, concurrency: 2, leaseMs: 5_000, pollMs: 100 }).start();
    return registry;
  };
  const settled = async (runId: string, outcome: string) => {
    for (let i = 0; i < 400; i++) {
      const entry = await queueEntry(runId, { storage: holder.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return entry;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} did not settle as ${outcome}: ${JSON.stringify(await queueEntry(runId, { storage: holder.storage }))}`);
  };
  /** A run of version 1 waiting for its refund's approval, approved by ops (the executor that ran it is replaced next). */
  const approvedRefundOnV1 = async () => {
    const registry = await deploy(v1());
    const { runId } = await startRun({ storage: holder.storage, registry, agent: 'support', input: REFUND });
    await settled(runId, 'waiting-approval');
    const run = await holder.storage.runs.getRun(runId);
    expect(run?.pending.map((p) => p.toolName)).toEqual(['issueRefund']);
    await holder.storage.runs.approve({ runId, toolCallId: run?.pending[0]?.toolCallId as string, by: 'ops@example.com' });
    return runId;
  };
  const events = (runId: string) => holder.storage.runs.events(runId);
  const starts = (all: RecordedEvent[], toolName: string) => all.filter((e) => e.type === 'tool-call-start' && e.toolName === toolName);
  const performed = () => {
    const s = service.stats();
    return { tickets: s.tickets.performed, refunds: s.refunds.performed, emails: s.emails.performed };
  };
  const delta = (before: ReturnType<typeof performed>) => {
    const now = performed();
    return { tickets: now.tickets - before.tickets, refunds: now.refunds - before.refunds, emails: now.emails - before.emails };
  };

  it(
    "a run waiting for approval across a deploy of a reworded prompt (onChange 'continue') continues on the new version: one ticket, one refund, one email",
    async () => {
      const before = performed();
      const runId = await approvedRefundOnV1();
      const ticketKey = (starts(await events(runId), 'createTicket')[0] as { idempotencyKey: string }).idempotencyKey;
      const next = reworded();
      const registry = await deploy(next);
      expect(next.version).not.toBe(v1().version);
      expect(await runVersion({ registry, state: new RunState(await events(runId)), runId })).toMatchObject({
        kind: 'continues',
        agent: { version: next.version },
      });
      await resumeRun(runId, { storage: holder.storage, by: 'ops@example.com', reason: 'refund approved' });
      await settled(runId, 'completed');

      expect(delta(before)).toEqual({ tickets: 1, refunds: 1, emails: 1 });
      const all = await events(runId);
      const migrations = all.filter((e) => e.type === 'run-migrate');
      expect(migrations).toMatchObject([{ by: 'gnl', changed: ['system'], fromVersion: v1().version, toVersion: next.version }]);
      // Taken over at its next step: the migration comes right before the resume that executed the approved refund.
      expect(all[all.indexOf(migrations[0] as RecordedEvent) + 1]?.type).toBe('run-resume');
      expect(new RunState(all).agentVersion).toBe(next.version);
      expect(starts(all, 'createTicket').map((e) => (e as { idempotencyKey: string }).idempotencyKey)).toEqual([ticketKey]);
      // The steps recorded under the old prompt replay as recorded, not as mismatches.
      expect(all.filter((e) => e.type === 'replay-mismatch')).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "a changed tool schema (onChange 'pinned') leaves the open run on its own version while both are registered; new runs start on the new one",
    async () => {
      const before = performed();
      const runId = await approvedRefundOnV1();
      const next = newRefundSchema();
      const registry = await deploy(v1(), next);
      expect(registry.getAgent('support').version).toBe(next.version);
      expect(await runVersion({ registry, state: new RunState(await events(runId)), runId })).toMatchObject({
        kind: 'pinned',
        agent: { version: v1().version },
      });
      await resumeRun(runId, { storage: holder.storage, by: 'ops@example.com' });
      await settled(runId, 'completed');

      expect(delta(before)).toEqual({ tickets: 1, refunds: 1, emails: 1 });
      const all = await events(runId);
      expect(all.filter((e) => e.type === 'run-migrate')).toEqual([]);
      expect(new RunState(all).agentVersion).toBe(v1().version);
      const fresh = await startRun({ storage: holder.storage, registry, agent: 'support', input: { prompt: 'Customer c_7 asks about order o_21' } });
      expect(fresh.run.input.agentVersion).toBe(next.version);
      await settled(fresh.runId, 'completed');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a run stranded by a deploy is migrated after a preview: nothing that finished executes again, keys unchanged',
    async () => {
      const before = performed();
      const runId = await approvedRefundOnV1();
      const beforeMigration = await events(runId);
      const keysBefore = beforeMigration.flatMap((e) =>
        e.type === 'tool-call-start' || e.type === 'tool-call-end' ? [`${e.toolName}:${e.idempotencyKey}`] : [],
      );
      const next = newRefundSchema();
      const registry = await deploy(next);
      await resumeRun(runId, { storage: holder.storage, by: 'ops@example.com' });
      await settled(runId, 'diverged'); // no deployed version matches it: it stops, nothing runs
      expect(delta(before)).toEqual({ tickets: 1, refunds: 0, emails: 0 });
      const stranded = await runVersion({ registry, state: new RunState(await events(runId)), runId });
      expect(stranded).toMatchObject({ kind: 'stranded', differences: [{ field: 'tool schema: issueRefund' }] });

      const recorded = (await events(runId)).length;
      const preview = await previewMigration(runId, { storage: holder.storage, registry, to: next.version });
      expect(preview).toMatchObject({ safe: true, refusals: [], from: v1().version, to: next.version, status: 'waiting-approval' });
      expect(preview.changed.map((d) => d.field)).toEqual(['tool schema: issueRefund']);
      expect(preview.kept.map((c) => c.toolName).sort()).toEqual(['createTicket', 'lookupCustomer']);
      for (const kept of preview.kept) expect(keysBefore).toContain(`${kept.toolName}:${kept.idempotencyKey}`);
      expect(preview.reruns).toMatchObject([{ toolName: 'issueRefund', action: 'executes', toolChanged: true }]);
      expect(preview.nextStep).toBe(new RunState(beforeMigration).modelSteps.length);
      expect((await events(runId)).length).toBe(recorded); // a preview writes nothing

      const migrated = await migrateRun(runId, {
        storage: holder.storage,
        registry,
        to: next.version,
        by: 'ops@example.com',
        reason: 'refund tool takes a note now',
      });
      expect(migrated.event).toMatchObject({ type: 'run-migrate', by: 'ops@example.com', reason: 'refund tool takes a note now', toVersion: next.version });
      expect(migrated.queue).toMatchObject({ runnable: true });
      await settled(runId, 'completed');

      expect(delta(before)).toEqual({ tickets: 1, refunds: 1, emails: 1 });
      const all = await events(runId);
      expect(starts(all, 'createTicket')).toHaveLength(1);
      const keysAfter = all.flatMap((e) => (e.type === 'tool-call-start' || e.type === 'tool-call-end' ? [`${e.toolName}:${e.idempotencyKey}`] : []));
      expect(keysAfter.slice(0, keysBefore.length)).toEqual(keysBefore);
      expect(new RunState(all).agentVersion).toBe(next.version);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a run with memory stays pinned to its own version beside a pinned change, and migrated on purpose keeps its memory and completes',
    async () => {
      const before = performed();
      const subject = `customer:c_42-${crypto.randomUUID().slice(0, 8)}`;
      const remembering = { ...REFUND, subject, conversationId: `conv-${crypto.randomUUID().slice(0, 8)}` };
      const first = await deploy(v1());
      const { runId } = await startRun({ storage: holder.storage, registry: first, agent: 'support', input: remembering });
      await settled(runId, 'waiting-approval');
      expect((await holder.storage.runs.getRun(runId))?.input.memory).toMatchObject({ resource: subject });
      const next = newRefundSchema();
      const registry = await deploy(v1(), next);
      // What belongs to the run (its memory record) is not a difference between versions.
      expect(await runVersion({ registry, state: new RunState(await events(runId)), runId })).toMatchObject({
        kind: 'pinned',
        agent: { version: v1().version },
      });
      const migrated = await migrateRun(runId, {
        storage: holder.storage,
        registry,
        to: next.version,
        by: 'ops@example.com',
        reason: 'refund tool takes a note',
      });
      expect(migrated.event).toMatchObject({ type: 'run-migrate', changed: ['tool schema: issueRefund'], input: { memory: { resource: subject } } });
      const run = await holder.storage.runs.getRun(runId);
      await holder.storage.runs.approve({ runId, toolCallId: run?.pending[0]?.toolCallId as string, by: 'ops@example.com' });
      await resumeRun(runId, { storage: holder.storage, by: 'ops@example.com' });
      await settled(runId, 'completed');
      const all = await events(runId);
      expect(new RunState(all)).toMatchObject({ agentVersion: next.version, input: { memory: { resource: subject } } });
      expect(delta(before)).toEqual({ tickets: 1, refunds: 1, emails: 1 });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses a migration that would read the history differently unless forced with a reason, and bad requests, writing nothing',
    async () => {
      const runId = await approvedRefundOnV1();
      const withoutLookup = variant({ without: 'lookupCustomer' });
      const registry = createAgentRegistry([v1(), withoutLookup]);
      const count = (await events(runId)).length;

      const preview = await previewMigration(runId, { storage: holder.storage, registry });
      expect(preview.safe).toBe(false);
      expect(preview.refusals).toEqual([expect.stringMatching(/is to lookupCustomer, which version [0-9a-f]{16} does not have$/)]);
      const refused = await migrateRun(runId, { storage: holder.storage, registry, by: 'ops@example.com', reason: 'drop lookups' }).catch((e: unknown) => e);
      expect(MigrationRefusedError.isInstance(refused) && refused.reason).toBe('unsafe');
      await expect(migrateRun(runId, { storage: holder.storage, registry, by: 'ops@example.com', reason: ' ' })).rejects.toThrow(AgentInputError);
      await expect(previewMigration(runId, { storage: holder.storage, registry, to: 'f'.repeat(16) })).rejects.toMatchObject({ reason: 'unknown-version' });
      await expect(previewMigration(runId, { storage: holder.storage, registry, to: v1().version })).rejects.toMatchObject({ reason: 'same-version' });
      expect((await events(runId)).length).toBe(count);

      const forced = await migrateRun(runId, { storage: holder.storage, registry, by: 'ops@example.com', reason: 'lookups are retired', force: true });
      expect(forced.event).toMatchObject({ type: 'run-migrate', overridden: preview.refusals, toVersion: withoutLookup.version });
      await holder.storage.runs.cancel({ runId, by: 'ops@example.com', reason: 'test done' });
      await expect(previewMigration(runId, { storage: holder.storage, registry })).rejects.toMatchObject({ reason: 'finished' });
    },
    TEST_TIMEOUT_MS,
  );
  it(
    'bulk migrate: a dry run lists the stranded runs, the action moves each through migrateRun with who and why; a run on the current version is left alone; each refund once',
    async () => {
      const before = performed();
      const stranded = [await approvedRefundOnV1(), await approvedRefundOnV1()];
      const next = newRefundSchema();
      const registry = await deploy(next);
      const current = await startRun({
        storage: holder.storage,
        registry,
        agent: 'support',
        input: REFUND,
      });
      await settled(current.runId, 'waiting-approval');
      const filter = { agent: 'support', status: 'waiting-approval' as const };

      // Without the deployment's agents there are no versions to move between: refused, nothing recorded.
      const refused = await previewBulk({ storage: holder.storage, action: 'migrate', filter, by: 'ops@example.com' }).catch((e: unknown) => e);
      expect(BulkActionError.isInstance(refused) && refused.reason).toBe('invalid');

      const preview = await previewBulk({ storage: holder.storage, registry, action: 'migrate', filter, by: 'ops@example.com' });
      expect(preview.counts).toEqual({ matched: 3, wouldChange: 2, skipped: { 'same-version': 1 } });
      expect(preview.wouldChange.map((r) => r.runId).sort()).toEqual([...stranded].sort());
      expect(preview.skipped.map((r) => r.runId)).toEqual([current.runId]);
      for (const runId of stranded) expect((await events(runId)).some((e) => e.type === 'run-migrate')).toBe(false); // a dry run writes nothing

      const applied = await applyBulk({
        storage: holder.storage,
        registry,
        previewId: preview.previewId,
        action: 'migrate',
        by: 'ops@example.com',
        reason: 'refund tool takes a note now',
      });
      expect(applied.counts).toEqual({ changed: 2, skipped: 0, failed: 0 });
      for (const runId of stranded) {
        await settled(runId, 'completed');
        const all = await events(runId);
        expect(all.filter((e) => e.type === 'run-migrate')).toMatchObject([
          { by: 'ops@example.com', reason: 'refund tool takes a note now', fromVersion: v1().version, toVersion: next.version },
        ]);
        expect(starts(all, 'createTicket')).toHaveLength(1);
      }
      expect((await events(current.runId)).some((e) => e.type === 'run-migrate')).toBe(false);
      // Judged by the outside service: one ticket per run, one refund and one email per migrated run, nothing twice.
      expect(delta(before)).toEqual({ tickets: 3, refunds: 2, emails: 2 });
      await holder.storage.runs.cancel({ runId: current.runId, by: 'ops@example.com', reason: 'test done' });
    },
    TEST_TIMEOUT_MS,
  );
});
