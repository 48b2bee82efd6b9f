/**
 * Bulk actions on real journals (embedded PGlite and a fresh Postgres database): a dry run, then the
 * action limited to it, each run's change journaled in that run with the operator and the reason; a
 * bulk approve whose refunds the outside service counts exactly once each; runs that change between the
 * dry run and the action, reported per run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { BulkStore } from './bulk-store';
import { applyBulk, BulkActionError, bulkPreviewRecord, cancelRun, Executor, previewBulk, queueEntry, startRun } from '../index';

const REFUND = (n: number) => ({ prompt: `Customer c_42 wants a refund of ${n} for order o_17` });
const QUESTION = (n: number) => ({ prompt: `Customer c_7 has question ${n} about order o_21` });
const OPS = 'ops@example.com';
// Five pages and a part each way (the dry run's and the apply's): the paging, not the scale, is what a test
// checks here; `npx tsx bench/bulk.ts` measures 2,000 runs (docs/bulk-actions.md).
const RUNS = 240;
const PAGE = 50;

describeEachStorage('bulk actions', (holder) => {
  let service: OutsideService;
  let registry: ReturnType<typeof createAgentRegistry>;
  beforeAll(async () => {
    service = await startOutsideService();
    registry = createAgentRegistry([supportAgent({ serviceUrl: service.url }), { ...supportAgent({ serviceUrl: service.url }), name: 'billing' }]);
  });
  afterAll(() => service.close());
  const storage = () => holder.storage;

  it('cancels 240 queued runs of one agent, 50 a page: the dry run counts them, the action cancels each, journaled with who and why', async () => {
    const runIds = new Set<string>();
    for (let n = 0; n < RUNS; n++) runIds.add((await startRun({ storage: storage(), registry, agent: 'support', input: QUESTION(n) })).runId);
    const other = await startRun({ storage: storage(), registry, agent: 'billing', input: QUESTION(0) });

    const none = await previewBulk({ storage: storage(), action: 'cancel', by: OPS, filter: { agent: 'support', olderThan: '1h' } });
    expect(none.counts).toEqual({ matched: 0, wouldChange: 0, skipped: {} });

    const preview = await previewBulk({
      storage: storage(),
      action: 'cancel',
      by: OPS,
      filter: { status: 'running', agent: 'support', newerThan: '1h' },
      pageSize: PAGE,
    });
    expect(preview.counts).toEqual({ matched: RUNS, wouldChange: RUNS, skipped: {} });
    expect(preview.wouldChange).toHaveLength(50);
    expect(preview.wouldChange.every((r) => runIds.has(r.runId))).toBe(true);
    // A dry run changes nothing.
    expect((await storage().runs.getRun([...runIds][0] as string))?.status).toBe('running');

    const applied = await applyBulk({
      storage: storage(),
      previewId: preview.previewId,
      action: 'cancel',
      by: OPS,
      reason: 'duplicate import',
      pageSize: PAGE,
    });
    expect(applied.counts).toEqual({ changed: RUNS, skipped: 0, failed: 0 });
    expect(applied.sincePreview).toEqual({ noLongerQualified: 0, newlyMatching: 0 });
    expect(new Set(applied.results.map((r) => r.runId))).toEqual(runIds);
    for (const runId of runIds) {
      expect((await storage().runs.getRun(runId))?.status).toBe('canceled');
      const cancels = (await storage().runs.events(runId)).filter((e) => e.type === 'run-cancel');
      expect(cancels).toMatchObject([{ by: OPS, reason: 'duplicate import' }]);
    }
    expect(await queueEntry([...runIds][1] as string, { storage: storage() })).toMatchObject({ runnable: false, outcome: 'canceled' });
    expect((await storage().runs.getRun(other.runId))?.status).toBe('running');
    expect(await bulkPreviewRecord(preview.previewId, { storage: storage() })).toMatchObject({
      appliedBy: OPS,
      applyReason: 'duplicate import',
      applyCounts: { changed: RUNS, skipped: 0, failed: 0 },
      counts: { wouldChange: RUNS },
    });

    // A preview is acted on once.
    const again = await applyBulk({ storage: storage(), previewId: preview.previewId, action: 'cancel', by: OPS, reason: 'again' }).catch((e: unknown) => e);
    expect(again).toMatchObject({ name: 'BulkActionError', reason: 'applied-already' });
    expect((again as Error).message).toContain(`applied already, by ${OPS}`);
    // A new dry run finds them canceled: skipped, with the reason.
    const after = await previewBulk({ storage: storage(), action: 'cancel', by: OPS, filter: { agent: 'support' } });
    expect(after.counts).toMatchObject({ wouldChange: 0, skipped: { canceled: RUNS } });
    await cancelRun(other.runId, { storage: storage(), by: OPS, reason: 'cleanup' });
  }, 600_000);

  it('bulk approve: runs canceled after the dry run are skipped per run, the rest each refund exactly once (the service counts), a new run is counted, not touched', async () => {
    const executor = new Executor({ storage: storage(), registry, concurrency: 4, leaseMs: 10_000, pollMs: 100 }).start();
    try {
      const waitFor = async (runId: string, status: string) => {
        for (let i = 0; i < 600; i++) {
          const entry = await queueEntry(runId, { storage: storage() });
          const run = await storage().runs.getRun(runId);
          if (entry && !entry.runnable && entry.leaseOwner === null && run?.status === status) return run;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        throw new Error(`run ${runId} did not become ${status}: ${JSON.stringify(await storage().runs.getRun(runId))}`);
      };
      const started = [];
      for (let n = 1; n <= 12; n++) started.push((await executor.startRun({ agent: 'support', input: REFUND(n) })).runId);
      for (const runId of started) await waitFor(runId, 'waiting-approval');
      // One was approved by hand already (not resumed): the dry run skips it, naming why.
      const decided = started[11] as string;
      const decidedCall = (await storage().runs.getRun(decided))?.pending[0]?.toolCallId as string;
      await storage().runs.approve({ runId: decided, toolCallId: decidedCall, by: 'alice@example.com' });

      const before = service.stats().refunds;
      const preview = await previewBulk({ storage: storage(), action: 'approve', by: OPS, filter: { agent: 'support', tool: 'issueRefund' } });
      expect(preview.counts).toEqual({ matched: 12, wouldChange: 11, skipped: { 'no-approval': 1 } });
      expect(preview.skipped).toMatchObject([{ runId: decided, reason: 'no-approval', message: 'no undecided approval of issueRefund' }]);

      // Between the dry run and the action: two are canceled, a new one starts waiting.
      const canceled = started.slice(0, 2);
      for (const runId of canceled) await cancelRun(runId, { storage: storage(), by: 'bob@example.com', reason: 'customer withdrew' });
      const late = (await executor.startRun({ agent: 'support', input: REFUND(13) })).runId;
      await waitFor(late, 'waiting-approval');

      const applied = await applyBulk({
        storage: storage(),
        previewId: preview.previewId,
        action: 'approve',
        by: OPS,
        reason: 'refunds under 50 approved',
        resume: (runId, request) => executor.resumeRun(runId, request),
      });
      expect(applied.counts).toEqual({ changed: 9, skipped: 2, failed: 0 });
      expect(applied.sincePreview).toEqual({ noLongerQualified: 2, newlyMatching: 1 });
      for (const runId of canceled) {
        expect(applied.results.find((r) => r.runId === runId)).toEqual({ runId, outcome: 'skipped', reason: 'canceled', message: 'it was canceled' });
      }
      const approved = started.slice(2, 11);
      for (const runId of approved) {
        const run = await waitFor(runId, 'completed');
        const events = await storage().runs.events(run.runId);
        expect(events.filter((e) => e.type === 'tool-approval-response')).toMatchObject([{ approved: true, by: OPS, reason: 'refunds under 50 approved' }]);
        expect(events.filter((e) => e.type === 'run-resume-request')).toMatchObject([
          { by: OPS, reason: 'bulk approve of issueRefund: refunds under 50 approved' },
        ]);
      }
      // The outside service's own counter: one refund per approved run, none for the canceled ones or the late one.
      expect(service.stats().refunds.performed - before.performed).toBe(9);
      expect(service.stats().refunds.requests - before.requests).toBe(9);
      expect((await storage().runs.getRun(late))?.status).toBe('waiting-approval');
      expect((await storage().runs.getRun(decided))?.status).toBe('waiting-approval');

      // Bulk resume: the run approved by hand (all decided) resumes; the late one still waits for a decision.
      const resumePreview = await previewBulk({ storage: storage(), action: 'resume', by: OPS, filter: { agent: 'support', status: 'waiting-approval' } });
      expect(resumePreview.counts).toEqual({ matched: 2, wouldChange: 1, skipped: { undecided: 1 } });
      expect(resumePreview.skipped).toMatchObject([{ runId: late, reason: 'undecided' }]);
      const resumed = await applyBulk({
        storage: storage(),
        previewId: resumePreview.previewId,
        action: 'resume',
        by: OPS,
        reason: 'approved by alice',
        resume: (runId, request) => executor.resumeRun(runId, request),
      });
      expect(resumed.results).toEqual([{ runId: decided, outcome: 'changed', detail: 'resumed (was waiting-approval)' }]);
      await waitFor(decided, 'completed');
      expect((await storage().runs.events(decided)).filter((e) => e.type === 'run-resume-request')).toMatchObject([{ by: OPS, reason: 'approved by alice' }]);
      expect(service.stats().refunds.performed - before.performed).toBe(10);
    } finally {
      await executor.stop({ graceMs: 5_000 });
    }
  }, 600_000);

  it('a failure on one run is reported with its error and does not stop the others', async () => {
    const runIds = [];
    for (let n = 0; n < 6; n++) {
      const { runId } = await startRun({ storage: storage(), registry, agent: 'billing', input: QUESTION(n) });
      const hold = await storage().runs.hold(runId);
      await hold.append([{ type: 'run-fail', error: { name: 'APICallError', message: 'provider down' } }]);
      await hold.release();
      runIds.push(runId);
    }
    const preview = await previewBulk({ storage: storage(), action: 'retry', by: OPS, filter: { agent: 'billing', status: 'failed' } });
    expect(preview.counts).toEqual({ matched: 6, wouldChange: 6, skipped: {} });
    const broken = runIds[3] as string;
    const applied = await applyBulk({
      storage: storage(),
      previewId: preview.previewId,
      action: 'retry',
      by: OPS,
      reason: 'provider is back',
      concurrency: 2,
      // The resume path of this apply refuses one run, as an executor that cannot take it would.
      resume: async (runId, request) => {
        if (runId === broken) throw new Error('executor refused the run');
        const { resumeRun } = await import('../run-control');
        return resumeRun(runId, { ...request, storage: storage() });
      },
    });
    expect(applied.counts).toEqual({ changed: 5, skipped: 0, failed: 1 });
    expect(applied.results.find((r) => r.runId === broken)).toEqual({
      runId: broken,
      outcome: 'failed',
      error: { name: 'Error', message: 'executor refused the run' },
    });
    for (const runId of runIds.filter((id) => id !== broken)) {
      expect((await storage().runs.events(runId)).filter((e) => e.type === 'run-resume-request')).toMatchObject([{ by: OPS, reason: 'provider is back' }]);
      expect(await queueEntry(runId, { storage: storage() })).toMatchObject({ runnable: true });
    }
    expect((await storage().runs.events(broken)).some((e) => e.type === 'run-resume-request')).toBe(false);
    for (const runId of runIds) await cancelRun(runId, { storage: storage(), by: OPS, reason: 'cleanup' });
  }, 120_000);

  it('refuses bad requests before changing anything: an unknown filter, a bad age, approve without a tool, another action, an unknown preview, no reason', async () => {
    const refused = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (e: unknown) => e,
      );
    const unknown = await refused(previewBulk({ storage: storage(), action: 'cancel', by: OPS, filter: { colour: 'red' } as never }));
    expect(BulkActionError.isInstance(unknown) && unknown.reason).toBe('invalid');
    expect((unknown as Error).cause).toBeDefined();
    const age = await refused(previewBulk({ storage: storage(), action: 'cancel', by: OPS, filter: { olderThan: 'two hours' } }));
    expect((age as Error).message).toContain('olderThan: a duration like 90s, 30m, 2h or 7d');
    const approve = await refused(previewBulk({ storage: storage(), action: 'approve', by: OPS, filter: { status: 'waiting-approval' } }));
    expect((approve as Error).message).toContain('approve needs the tool');
    const preview = await previewBulk({ storage: storage(), action: 'resume', by: OPS, filter: { agent: 'nobody' } });
    expect(preview.counts.matched).toBe(0);
    const other = await refused(applyBulk({ storage: storage(), previewId: preview.previewId, action: 'cancel', by: OPS, reason: 'x' }));
    expect(other).toMatchObject({ name: 'BulkActionError', reason: 'other-action' });
    const missing = await refused(applyBulk({ storage: storage(), previewId: crypto.randomUUID(), action: 'cancel', by: OPS, reason: 'x' }));
    expect(missing).toMatchObject({ name: 'BulkActionError', reason: 'unknown-preview' });
    const noReason = await refused(applyBulk({ storage: storage(), previewId: preview.previewId, action: 'resume', by: OPS, reason: ' ' }));
    expect((noReason as Error).message).toContain('reason: say why');
    // A dry run that stopped halfway (its counts never written) is never applied.
    const store = new BulkStore(() => storage().database());
    const halfway = crypto.randomUUID();
    await store.createPreview({ id: halfway, action: 'cancel', filter: {}, by: OPS });
    const incomplete = await refused(applyBulk({ storage: storage(), previewId: halfway, action: 'cancel', by: OPS, reason: 'x' }));
    expect(incomplete).toMatchObject({ name: 'BulkActionError', reason: 'incomplete' });
    expect((await store.preview(halfway))?.appliedAt).toBeNull();
    // None of the refused applies claimed the preview.
    expect((await bulkPreviewRecord(preview.previewId, { storage: storage() }))?.appliedAt).toBeNull();
  });
});
