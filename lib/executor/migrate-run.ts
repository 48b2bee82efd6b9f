/**
 * Migrating a run on purpose: move a run to another registered version of its agent (a run stranded by
 * a deploy, or one pinned to a version you want to retire). `previewMigration` says what would happen
 * (migration-plan.ts: what is kept, what runs again, what would be unsafe) and writes nothing;
 * `migrateRun` takes the run's hold, plans again from what is recorded then, and journals `run-migrate`
 * (who, why, the new start input, any refusal overridden with `force`). From there the run is compared
 * with the new version's input and continues on it from its first unrecorded step: finished calls keep
 * their outputs and keys and never execute again. The run is then woken for an executor.
 *
 * A run executing elsewhere is not migrated (its hold is taken: RunBusyError); migrate it between steps,
 * when it waits, is blocked, or has stopped.
 */
import { type Agent, AgentInputError, type AgentRegistry, type MigrationPlan, planMigration } from '@/lib/agents';
import { type RecordedEvent, RunMovedError, RunState, type RunStatus, type RunSummary } from '@/lib/durable';
import { z } from 'zod';
import { type ExecutorContext, type Resolved, resolveContext } from './context';
import { MigrationRefusedError } from './errors';
import type { QueueEntry } from './run-queue';
import { differencesFrom } from './run-version';
import { versionStartInput } from './start-input';

export interface MigrationRequest extends ExecutorContext {
  /** The version to move the run to (as the registry, `gnl agents` and the run page show it). Default: its agent's current version. */
  to?: string;
}

export interface MigrateRunRequest extends MigrationRequest {
  /** Who migrates (an operator's login, a service name): journaled. */
  by: string;
  /** Why: journaled with the migration, required. */
  reason: string;
  /** Migrate although the preview found refusals: they are journaled as overridden. Default false. */
  force?: boolean;
}

export interface MigrationPreview extends MigrationPlan {
  runId: string;
  agent: string;
  /** The version the run is on (its start's, or its last migration's). */
  from: string | undefined;
  to: string;
  status: RunStatus;
  /** migrateRun would do it without force. */
  safe: boolean;
}

export interface MigratedRun {
  preview: MigrationPreview;
  /** The journaled run-migrate. */
  event: RecordedEvent;
  run: RunSummary;
  queue: QueueEntry | undefined;
}

const printable = (value: string) => !/[\p{Cc}\p{Cs}]/u.test(value);
const requestSchema = z.object({
  // An agent's version is 16 hex characters; a workflow's is the string its definition gives (1 to 64 characters).
  to: z
    .string()
    .min(1, 'to: a version')
    .max(64, 'to: a version is at most 64 characters')
    .refine(printable, 'to must contain only printable characters')
    .optional(),
  by: z.string().trim().min(1, 'by: say who migrates').max(200).refine(printable, 'by must contain only printable characters'),
  reason: z.string().trim().min(1, 'reason: say why the run moves to another version').max(4000),
  force: z.boolean().optional(),
});

/** What migrating the run to `to` would do; writes nothing. MigrationRefusedError for a run or version it cannot move between. */
export async function previewMigration(runId: string, request: MigrationRequest): Promise<MigrationPreview> {
  const to = requestSchema.shape.to.safeParse(request.to);
  if (!to.success) throw new AgentInputError({ what: 'previewMigration refused the request', problems: to.error.issues.map((i) => i.message) });
  const resolved = resolveContext(request);
  return previewOf(runId, new RunState(await resolved.journal.events(runId)), resolved.registry, request.to);
}

/** Journals the migration after planning it again under the run's hold; refuses an unsafe one unless forced. */
export async function migrateRun(given: string, request: MigrateRunRequest): Promise<MigratedRun> {
  const parsed = requestSchema.safeParse(request);
  if (!parsed.success) throw new AgentInputError({ what: 'migrateRun refused the request', problems: parsed.error.issues.map((i) => i.message) });
  const { by, reason, force } = parsed.data;
  const resolved = resolveContext(request);
  const runId = await resolved.journal.runIdOf(given); // docs/limits.md, "runIds"
  const hold = await resolved.journal.hold(runId);
  let preview: MigrationPreview;
  let event: RecordedEvent;
  try {
    for (let attempt = 1; ; attempt++) {
      const state = new RunState(await hold.load());
      preview = await previewOf(runId, state, resolved.registry, parsed.data.to);
      if (!preview.safe && !force) throw new MigrationRefusedError({ runId, reason: 'unsafe', refusals: preview.refusals });
      const recorded = state.input as NonNullable<RunState['input']>;
      // A workflow run keeps its input and moves to the other version's code; an agent run's input is made anew by the agent.
      const input = recorded.workflow
        ? { ...recorded, agentVersion: preview.to, workflow: { ...recorded.workflow, version: preview.to } }
        : await versionStartInput(resolved.registry.findVersion(preview.agent, preview.to) as Agent, recorded);
      try {
        [event] = (await hold.appendAfter(state.lastSeq, [
          {
            type: 'run-migrate',
            input,
            ...(preview.from !== undefined ? { fromVersion: preview.from } : {}),
            toVersion: preview.to,
            changed: preview.changed.map((d) => d.field),
            by,
            reason,
            ...(preview.refusals.length > 0 ? { overridden: preview.refusals } : {}),
          },
        ])) as [RecordedEvent];
        break;
      } catch (error) {
        // A decision landed between the load and the append: plan again from what is recorded now.
        if (!RunMovedError.isInstance(error) || attempt >= 5) throw error;
      }
    }
  } finally {
    await hold.release();
  }
  const queue = await wake(resolved, runId, preview.agent);
  const run = await resolved.journal.getRun(runId);
  if (!run) throw new Error(`Run "${runId}" was migrated but cannot be read back.`);
  return { preview, event, run, queue };
}

async function previewOf(runId: string, state: RunState, registry: AgentRegistry, to: string | undefined): Promise<MigrationPreview> {
  const recorded = state.input;
  if (!recorded || state.status === undefined) throw new MigrationRefusedError({ runId, reason: 'unknown-run' });
  if (!recorded.agent) throw new MigrationRefusedError({ runId, reason: 'no-agent' });
  if (state.status === 'completed' || state.status === 'canceled') throw new MigrationRefusedError({ runId, reason: 'finished', detail: state.status });
  if (recorded.workflow) return previewWorkflow(runId, state, registry, to);
  const target = to === undefined ? registry.getAgent(recorded.agent) : registry.findVersion(recorded.agent, to);
  if (!target) {
    const known = registry.listVersions(recorded.agent).map((a) => a.version);
    throw new MigrationRefusedError({ runId, reason: 'unknown-version', detail: `${recorded.agent} ${to}; registered: ${known.join(', ') || 'none'}` });
  }
  const differences = await differencesFrom(recorded, target);
  if (differences.length === 0) throw new MigrationRefusedError({ runId, reason: 'same-version', detail: target.version });
  const plan = await planMigration({ state, agent: target, differences });
  return { runId, agent: recorded.agent, from: state.agentVersion, to: target.version, status: state.status, ...plan, safe: plan.refusals.length === 0 };
}

/**
 * A workflow run moved to another registered version of its workflow: its recorded steps, waits and
 * events are kept and replayed by the new version's code, which must call them in the same order (a
 * replay that meets another step stops the run with RunDivergedError naming it, as on any deploy).
 * That is checked when the run continues, not here: the preview lists what is kept and refuses nothing.
 */
function previewWorkflow(runId: string, state: RunState, registry: AgentRegistry, to: string | undefined): MigrationPreview {
  const recorded = state.input?.workflow as NonNullable<NonNullable<RunState['input']>['workflow']>;
  const versions = registry.listWorkflowVersions(recorded.name);
  const target = to === undefined ? versions.at(-1) : versions.find((w) => w.version === to);
  if (!target)
    throw new MigrationRefusedError({
      runId,
      reason: 'unknown-version',
      detail: `${recorded.name} ${to ?? ''}; registered: ${versions.map((w) => w.version).join(', ') || 'none'}`.replace('  ', ' '),
    });
  if (target.version === recorded.version) throw new MigrationRefusedError({ runId, reason: 'same-version', detail: target.version });
  const kept = [...state.operations.values()].flatMap((op) =>
    op.result
      ? [...op.toolCallIds].map((toolCallId) => ({ toolCallId, toolName: op.toolName, idempotencyKey: op.idempotencyKey, outcome: op.result?.kind }))
      : [],
  ) as MigrationPlan['kept'];
  return {
    runId,
    agent: recorded.name,
    from: recorded.version,
    to: target.version,
    status: state.status as RunStatus,
    changed: [{ field: 'workflow version', recorded: recorded.version, given: target.version }],
    kept,
    reruns: [],
    // The workflow's next primitive (wf-<n>): every one before it replays as recorded.
    nextStep: state.operations.size + state.workflowWaits.size,
    refusals: [],
    safe: true,
  };
}

/** Makes the migrated run runnable: an executor invokes it on the new version (a run still waiting for people answers at once). */
async function wake(resolved: Resolved, runId: string, agent: string): Promise<QueueEntry | undefined> {
  if (await resolved.queue.entry(runId)) return resolved.queue.wake(runId);
  await resolved.queue.enqueue({ runId, agent });
  return resolved.queue.entry(runId);
}
