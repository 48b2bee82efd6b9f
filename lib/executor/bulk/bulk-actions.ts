/**
 * The bulk actions: cancel, resume, retry, approve, migrate. Each verdict reads the run's summary
 * (status, pending items: the journal's projection) and queue row, and migrate's also the migration
 * preview (writes nothing); each apply is one per-run operation of the executor layer or the journal, so
 * a bulk change is journaled in each run exactly as a single one is.
 */
import type { PendingItem } from '@/lib/durable';
import { MigrationRefusedError } from '../errors';
import { type MigrationPreview, migrateRun, previewMigration } from '../migrate-run';
import { cancelRun } from '../run-control';
import { type BulkAction, type BulkTarget, qualifies, skip, type Verdict, type VerdictContext } from './bulk-action';

/** Ended runs and abandoned ones are left alone by every action. */
function ended({ run, queue }: BulkTarget): Verdict | undefined {
  if (run.status === 'completed') return skip('completed', 'it completed');
  if (run.status === 'canceled') return skip('canceled', queue?.abandonedAt ? `it was abandoned by ${queue.abandonedBy}` : 'it was canceled');
  if (queue?.abandonedAt) return skip('abandoned', `it was abandoned by ${queue.abandonedBy}`);
  return undefined;
}

/** An executor can continue it: a queue row, or an agent it was started by. */
function resumable(target: BulkTarget): Verdict | undefined {
  return !target.queue && !target.run.input.agent ? skip('no-agent', 'it was not started by a registered agent, so no executor can resume it') : undefined;
}

const open = (pending: readonly PendingItem[]) => pending.filter((item) => !item.decision);

export const cancelAction: BulkAction = {
  name: 'cancel',
  summary: 'cancel (a run executing stops at its next step boundary)',
  verdict: (target) => ended(target) ?? qualifies,
  async apply({ run }, { storage, by, reason }) {
    const canceled = await cancelRun(run.runId, { storage, by, reason });
    return { outcome: 'changed', detail: `canceled (was ${run.status})${canceled.run.status === 'canceled' ? '' : `; now ${canceled.run.status}`}` };
  },
};

const WAITING = new Set(['waiting-approval', 'waiting-tool-result', 'blocked']);

export const resumeAction: BulkAction = {
  name: 'resume',
  summary: 'resume a waiting or blocked run whose calls are all decided',
  verdict(target) {
    const stop = ended(target) ?? resumable(target);
    if (stop) return stop;
    const { run } = target;
    if (run.status === 'failed') return skip('failed', 'it failed: retry resumes failed runs');
    if (!WAITING.has(run.status)) return skip('not-waiting', `it is ${run.status}`);
    const undecided = open(run.pending);
    if (undecided.length > 0)
      return skip('undecided', `${undecided.length} call(s) still wait for a decision (${undecided.map((p) => p.toolName).join(', ')})`);
    return qualifies;
  },
  async apply({ run }, { by, reason, resume }) {
    await resume(run.runId, { by, reason });
    return { outcome: 'changed', detail: `resumed (was ${run.status})` };
  },
};

export const retryAction: BulkAction = {
  name: 'retry',
  summary: 'resume a failed run (its next invocation replays the journal and continues)',
  verdict(target) {
    const stop = ended(target) ?? resumable(target);
    if (stop) return stop;
    return target.run.status === 'failed' ? qualifies : skip('not-failed', `it is ${target.run.status}`);
  },
  async apply({ run }, { by, reason, resume }) {
    await resume(run.runId, { by, reason });
    return { outcome: 'changed', detail: 'resumed after its failure' };
  },
};

/** The run's undecided, unexpired approval requests for the tool. */
/**
 * The undecided, unexpired approvals of `tool` a bulk approve may give. Not those under an approval rule
 * (a tool's `approvers`: who may approve, how many, four eyes): each of those is approved on its own,
 * where the decider's role is checked (record-decision.ts), never in bulk.
 */
function approvable(pending: readonly PendingItem[], tool: string, now: number) {
  return pending.filter((p) => p.kind === 'approval' && p.toolName === tool && !p.decision && !p.rule && !(p.expiresAt && Date.parse(p.expiresAt) <= now));
}

export const approveAction: BulkAction = {
  name: 'approve',
  summary: 'approve the waiting calls of one tool, then resume the run once nothing else waits',
  needs: (filter) => (filter.tool ? undefined : 'approve needs the tool whose calls it approves (--tool, the Studio’s “Tool” field)'),
  verdict(target, filter) {
    const stop = ended(target);
    if (stop) return stop;
    const { run } = target;
    if (run.status !== 'waiting-approval') return skip('not-waiting', `it is ${run.status}`);
    const tool = filter.tool as string;
    if (approvable(run.pending, tool, Date.now()).length > 0) return qualifies;
    const undecided = run.pending.filter((p) => p.kind === 'approval' && p.toolName === tool && !p.decision);
    if (undecided.some((p) => p.kind === 'approval' && p.rule)) {
      return skip('approval-rule', `its approval of ${tool} has a rule (who may approve, how many): approve it on its own, not in bulk`);
    }
    const expired = undecided.some((p) => p.kind === 'approval' && p.expiresAt);
    return expired ? skip('expired', `its approval of ${tool} expired`) : skip('no-approval', `no undecided approval of ${tool}`);
  },
  async apply({ run }, { storage, by, reason, filter, resume }) {
    const tool = filter.tool as string;
    const calls = approvable(run.pending, tool, Date.now());
    for (const call of calls) await storage.runs.approve({ runId: run.runId, toolCallId: call.toolCallId, by, reason });
    const left = open((await storage.runs.getRun(run.runId))?.pending ?? []);
    const approved = `approved ${calls.map((c) => c.toolCallId).join(', ')}`;
    if (left.length > 0)
      return { outcome: 'changed', detail: `${approved}; it still waits for ${left.map((p) => `${p.toolName} (${p.toolCallId})`).join(', ')}` };
    await resume(run.runId, { by, reason: `bulk approve of ${tool}: ${reason}` });
    return { outcome: 'changed', detail: `${approved}; resumed` };
  },
};

/**
 * The migration preview of the run to its agent's current version, or why it is left alone: it runs on
 * that version already, its agent has no such version here, or the preview finds the move unsafe (a bulk
 * migrate never forces: an unsafe run is migrated one by one, with the override and a reason of its own).
 */
async function migrationOf(runId: string, context: VerdictContext): Promise<MigrationPreview | Verdict> {
  const { storage, registry } = context;
  if (!registry) throw new TypeError('migrate needs the deployment’s agents (their versions): pass registry');
  try {
    const preview = await previewMigration(runId, { storage, registry });
    return preview.safe ? preview : skip('unsafe', `migrating it would need an override: ${preview.refusals.join('; ')}`);
  } catch (error) {
    if (!MigrationRefusedError.isInstance(error)) throw error;
    if (error.reason === 'same-version') return skip('same-version', 'it runs on its agent’s current version already');
    return skip(error.reason, error.message);
  }
}

const isVerdict = (value: MigrationPreview | Verdict): value is Verdict => 'qualifies' in value;

export const migrateAction: BulkAction = {
  name: 'migrate',
  summary: 'move a run to its agent’s current version (finished calls stay recorded; unsafe moves are left for one by one)',
  needs: (_filter, context) => (context.registry ? undefined : 'migrate needs the deployment’s agents (their versions): pass registry'),
  async verdict(target, _filter, context) {
    const stop = ended(target) ?? resumable(target);
    if (stop) return stop;
    if (!target.run.input.agent) return skip('no-agent', 'it was not started by a registered agent, so it has no versions');
    const migration = await migrationOf(target.run.runId, context);
    return isVerdict(migration) ? migration : qualifies;
  },
  async apply({ run }, { storage, registry, by, reason }) {
    if (!registry) throw new TypeError('migrate needs the deployment’s agents (their versions): pass registry');
    try {
      const migrated = await migrateRun(run.runId, { storage, registry, by, reason });
      const { preview } = migrated;
      return {
        outcome: 'changed',
        detail: `migrated from ${preview.from ?? '?'} to ${preview.to} (${preview.changed.map((d) => d.field).join(', ') || 'no field'} changed); ${preview.kept.length} finished call(s) kept`,
      };
    } catch (error) {
      // Planned again under the run's hold: a decision or a step since the verdict may have made it unsafe or needless.
      if (MigrationRefusedError.isInstance(error)) return skip(error.reason, error.message);
      throw error;
    }
  },
};

/** Every bulk action, by name. */
export const BULK_ACTIONS = {
  cancel: cancelAction,
  resume: resumeAction,
  retry: retryAction,
  approve: approveAction,
  migrate: migrateAction,
} as const satisfies Record<string, BulkAction>;

export type BulkActionName = keyof typeof BULK_ACTIONS;
export const BULK_ACTION_NAMES = Object.keys(BULK_ACTIONS) as BulkActionName[];
