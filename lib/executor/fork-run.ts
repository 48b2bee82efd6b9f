/**
 * forkRun: a new run whose history is its parent's up to a model step, asked again from there
 * (optionally with an operator's instruction or an edited tool result), then enqueued like any started
 * run. previewFork says, before anything is written, what the fork keeps and which side effects could
 * act again after the fork point, each with the key it would be sent under. The plan and the write are
 * the journal's (journal.fork, the core's planFork); this layer adds the agent (a fork runs its parent's
 * agent from the registry), the run queue and the preview's view of the agent's tools. docs/fork.md.
 */
import { randomUUID } from 'node:crypto';
import {
  type EditableResult,
  editableResults,
  type ForkEdit,
  ForkRefusedError,
  planFork,
  type RepeatableSideEffect,
  type RunSummary,
  toolDeclaration,
} from '@/lib/durable';
import { type ExecutorContext, resolveContext } from './context';

export interface ForkRunRequest extends ExecutorContext {
  /** The parent run: an agent's, or a workflow's (forked at one of its steps: lib/durable/fork/workflow-fork-plan.ts). */
  runId: string;
  /** The model step asked again, counted from 1 as the Studio's timeline numbers them ("Model step 2"); a workflow's step, from 1. */
  atStep: number;
  /** Who forks: recorded in the fork's run-start (`forkOf.by`) and the parent's run-forked. */
  by: string;
  /** Why: recorded beside `by`. Required. */
  reason: string;
  /** At most one change at the fork point. Default: none (the model is simply asked again; a workflow's code runs again from the step). */
  edit?: ForkEdit;
  /** The fork's run id. Default `<agent>:fork-<uuid>`; give one to make a repeated fork idempotent. */
  newRunId?: string;
}

/** How a key is made for a call the fork makes to one of the agent's side-effecting tools (fork-keys.ts). */
export type ForkKeyScope =
  /** 'args' tools: from the lineage's root run, the tool and the arguments: equal arguments, the key the lineage used. */
  | 'root-args'
  /** 'call' tools: a repeat of one of `repeatable` (same tool, same arguments) takes its key; any other call gets a new key. */
  | 'repeat-or-new';

export interface ForkPreview {
  runId: string;
  atStep: number;
  /** Model steps replayed from the copy, never asked again (atStep - 1). */
  sharedSteps: number;
  /** Events of the parent copied into the fork. */
  copiedEvents: number;
  /** The lineage's root run, whose id 'args' keys are made from. */
  rootRunId: string;
  /** The parent's side effects after the fork point, in order: a fork that repeats one sends its key. */
  repeatable: RepeatableSideEffect[];
  /** Every side-effecting tool of the agent: what a call to it after the fork point is keyed by. */
  sideEffectTools: { toolName: string; idempotency: 'call' | 'args'; needsApproval: boolean | 'per-call'; keyScope: ForkKeyScope }[];
  /** A workflow's fork: the workflow and the version the fork runs (the fork point's, or the one the edit chose). */
  workflow?: { name: string; version?: string };
  /** previewFork only: the calls of step atStep-1 whose recorded output an edit may replace (`edit.toolResult`), with that output. */
  editableResults?: EditableResult[];
}

export interface ForkedRun {
  /** The fork's run id. */
  runId: string;
  forkOf: string;
  /** The agent the fork runs, or the workflow. */
  agent: string;
  /** False when this fork existed already (the same newRunId, parent and step). */
  created: boolean;
  run: RunSummary;
  preview: ForkPreview;
}

export type PreviewForkRequest = Omit<ForkRunRequest, 'by' | 'reason' | 'newRunId'>;

/** What forkRun would do, from the parent's journal; writes nothing. Refusals as forkRun's (ForkRefusedError). */
export async function previewFork(request: PreviewForkRequest): Promise<ForkPreview> {
  const { journal, registry } = resolveContext(request);
  const { runId, atStep, edit } = request;
  const events = await journal.events(runId);
  const plan = planFork({ runId, atStep, by: 'preview', reason: 'preview', ...(edit ? { edit } : {}) }, events);
  if (plan.input.workflow) {
    forkWorkflowOf(registry, plan.input.workflow, { runId, atStep });
    return { ...previewOf({ runId, atStep }, plan, {}), editableResults: editableResults(events, atStep) };
  }
  const agent = registry.getAgent(agentOf(plan.input.agent, runId, atStep));
  const preview = previewOf({ runId, atStep }, plan, agent.tools as Record<string, Parameters<typeof toolDeclaration>[0]>);
  return { ...preview, editableResults: editableResults(events, atStep) };
}

/**
 * Forks the run and enqueues the fork for an executor. Every fork is journaled with `by` and `reason`
 * (the fork's run-start and the parent's run-forked, written together). A repeated call with the same
 * newRunId returns the existing fork (created: false) and enqueues it if an earlier call died first.
 */
export async function forkRun(request: ForkRunRequest): Promise<ForkedRun> {
  const { journal, registry, queue } = resolveContext(request);
  const { atStep, by, reason, edit } = request;
  const runId = await journal.runIdOf(request.runId); // docs/limits.md, "runIds"
  const parent = await journal.getRun(runId);
  if (!parent) throw new ForkRefusedError({ runId, atStep, reason: 'unknown-run', detail: 'no such run' });
  // What runs the fork: the parent's agent, or its workflow at the version the fork runs (planned once here
  // to check that version before anything is written; the journal plans again under its lock).
  const plannedWorkflow = async () => {
    const planned = planFork({ runId, atStep, by, reason, ...(edit ? { edit } : {}) }, await journal.events(runId)).input.workflow;
    return { name: forkWorkflowOf(registry, planned as NonNullable<typeof planned>, { runId, atStep }).name, tools: {} };
  };
  const runs = parent.input.workflow ? await plannedWorkflow() : registry.getAgent(agentOf(parent.input.agent, runId, atStep));
  const childRunId = await journal.runIdOf(request.newRunId ?? `${runs.name}:fork-${randomUUID()}`);
  const { created, plan } = await journal.fork({ runId, childRunId, atStep, by, reason, ...(edit ? { edit } : {}) });
  const before = await journal.getRun(childRunId);
  if (before?.status === 'running') await queue.enqueue({ runId: childRunId, agent: runs.name });
  const run = (await journal.getRun(childRunId)) ?? before;
  if (!run) throw new Error(`Fork "${childRunId}" was created but cannot be read back.`);
  return { runId: childRunId, forkOf: runId, agent: runs.name, created, run, preview: previewOf({ runId, atStep }, plan, runs.tools) };
}

/** The registered workflow (and version) a workflow's fork runs; a version that is not registered is refused before anything is written. */
function forkWorkflowOf(
  registry: ReturnType<typeof resolveContext>['registry'],
  workflow: NonNullable<RunSummary['input']['workflow']>,
  at: { runId: string; atStep: number },
) {
  const known = registry.listWorkflowVersions(workflow.name);
  if (known.length === 0)
    throw new ForkRefusedError({ ...at, reason: 'no-agent', detail: `workflow "${workflow.name}" is not registered here, so no executor could run its fork` });
  if (workflow.version !== undefined && !known.some((w) => w.version === workflow.version)) {
    const listed = known.flatMap((w) => (w.version ? [w.version] : [])).join(', ') || 'none';
    throw new ForkRefusedError({
      ...at,
      reason: 'invalid-edit',
      detail: `workflow "${workflow.name}" has no registered version "${workflow.version}" (registered: ${listed})`,
    });
  }
  return registry.getWorkflow(workflow.name, workflow.version);
}

function agentOf(agent: string | undefined, runId: string, atStep: number): string {
  if (agent) return agent;
  throw new ForkRefusedError({ runId, atStep, reason: 'no-agent', detail: 'it was not started by agent name, so no executor could run its fork' });
}

function previewOf(
  request: { runId: string; atStep: number },
  plan: ReturnType<typeof planFork>,
  tools: Record<string, Parameters<typeof toolDeclaration>[0]>,
): ForkPreview {
  const forkOf = plan.input.forkOf;
  const sideEffectTools = Object.entries(tools)
    .map(([toolName, tool]) => ({ toolName, declaration: toolDeclaration(tool) }))
    .filter(({ declaration }) => declaration.sideEffect)
    .map(({ toolName, declaration }) => ({
      toolName,
      idempotency: declaration.idempotency,
      needsApproval: declaration.needsApproval,
      keyScope: (declaration.idempotency === 'args' ? 'root-args' : 'repeat-or-new') as ForkKeyScope,
    }));
  return {
    runId: request.runId,
    atStep: request.atStep,
    sharedSteps: request.atStep - 1,
    copiedEvents: plan.history.length,
    rootRunId: forkOf?.rootRunId ?? request.runId,
    repeatable: plan.repeatable,
    sideEffectTools,
    ...(plan.input.workflow
      ? { workflow: { name: plan.input.workflow.name, ...(plan.input.workflow.version !== undefined ? { version: plan.input.workflow.version } : {}) } }
      : {}),
  };
}
