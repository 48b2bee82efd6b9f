/**
 * Workflows in the executor layer (docs/workflows.md): start one as a run (startWorkflow, idempotent by
 * runId like startRun), send it an event (sendEvent: the payload checked by the workflow's schema, then
 * journal.sendEvent, then the run woken), start its child runs (the ChildStarter the executor gives
 * runWorkflow), wake a parent when a child settles, and cancel a workflow's open children with it.
 * The core runs the workflow (lib/durable/workflow); this layer knows the registry and the queue.
 */
import { randomUUID } from 'node:crypto';
import { agentInputSchema } from '@/lib/agents';
import {
  assertValidSubject,
  type ChildStarter,
  EventRefusedError,
  parseEventPayload,
  parseWorkflowInput,
  RunDivergedError,
  type RunInput,
  RunState,
  type RunSummary,
  readChild,
  runInputDifferences,
  type SendEventRequest,
  type Workflow,
  workflowRunInput,
} from '@/lib/durable';
import { type ExecutorContext, type ResolvedStorage, resolveContext, resolveStorage, type StorageContext } from './context';
import { create, startAndEnqueue } from './start-run';
import { answerParent, openSubAgentsOf } from './sub-agents';

export interface StartWorkflowOptions extends ExecutorContext {
  /** The workflow, or the name it is registered under. */
  workflow: string | Workflow;
  /** Names the job. Default `<workflow>:<uuid>`. */
  runId?: string;
  input: unknown;
  /** Who the run's data is about (docs/erasure.md). */
  subject?: string;
  /** Who starts it (an operator's login, a token's name): recorded on its run-start, as startRun records it. */
  by?: string;
}

export interface StartedWorkflow {
  runId: string;
  workflow: string;
  /** False when the run existed already with this input. */
  created: boolean;
  run: RunSummary;
}

/** Records a workflow run (its run-start) and enqueues it; the same runId with the same input is the run that exists, another input is RunDivergedError. */
export function startWorkflow(options: StartWorkflowOptions): Promise<StartedWorkflow> {
  return startWorkflowRun(options);
}

async function startWorkflowRun(options: StartWorkflowOptions, parent?: NonNullable<RunInput['parent']>): Promise<StartedWorkflow> {
  const { journal, registry, queue } = resolveContext(options);
  const workflow = typeof options.workflow === 'string' ? registry.getWorkflow(options.workflow) : options.workflow;
  // Refused here, before anything is written: recorded, a subject runWorkflow refuses would fail every invocation.
  assertValidSubject(options.subject);
  // Checked here, before anything is written; recorded as given: every invocation parses it again (runWorkflow),
  // so a schema that transforms its input is not asked to accept its own output.
  parseWorkflowInput(workflow, options.input);
  const runId = await journal.runIdOf(options.runId ?? `${workflow.name}:${randomUUID()}`);
  const startInput = workflowRunInput({
    workflow,
    input: options.input,
    ...(parent ? { parent } : {}),
    ...(options.subject ? { subject: options.subject } : {}),
  });
  // The create says whether the run exists (nothing written then): read it only then, to compare.
  const created = await create(journal, runId, startInput, options.by);
  let existing: RunSummary | undefined;
  if (!created) {
    existing = await journal.getRun(runId);
    const differences = existing ? runInputDifferences(existing.input, startInput) : [];
    if (differences.length > 0) throw new RunDivergedError({ runId, differences });
  }
  if (created || existing?.status === 'running') await queue.enqueue({ runId, agent: workflow.name });
  const run = await journal.getRun(runId);
  if (!run) throw new Error(`Run "${runId}" was created but cannot be read back.`);
  return { runId, workflow: workflow.name, created, run };
}

/** The starter of a workflow's children: an agent's run (startRun) or a workflow's, with the parent link, each enqueued. */
export function workflowChildren(context: ExecutorContext): ChildStarter {
  const { queue } = resolveContext(context);
  return {
    // A failed child whose executor may still journal its retry is not settled (child-runs.ts).
    settling: (runId) => queue.settling(runId),
    async start(child) {
      if (child.kind === 'workflow') {
        await startWorkflowRun({ ...context, workflow: child.name, runId: child.runId, input: child.input }, child.parent);
        return;
      }
      const input = agentInputSchema.parse(child.input);
      await startAndEnqueue({ ...context, agent: child.name, runId: child.runId, input: input as never }, { parent: child.parent });
    },
  };
}

export interface SendEventOptions extends ExecutorContext {
  runId: string;
  name: string;
  payload?: unknown;
  /** Delivered once per id (default: a new one). */
  eventId?: string;
  by: string;
}

/**
 * Sends an event to a workflow run: the payload is checked by the schema the run's workflow declares for
 * the event (EventRefusedError 'invalid-payload', nothing written), journaled (workflow-event; the same
 * eventId again writes nothing), and the run is woken so that a wait for it goes on.
 */
export async function sendEvent(options: SendEventOptions): Promise<{ runId: string; eventId: string; recorded: boolean }> {
  const { journal, registry, queue } = resolveContext(options);
  const runId = await journal.runIdOf(options.runId);
  const run = await journal.getRun(runId);
  if (!run) throw new EventRefusedError({ runId, reason: 'unknown-run', detail: 'no such run' });
  const name = run.input.workflow?.name;
  if (!name) throw new EventRefusedError({ runId, reason: 'not-a-workflow', detail: 'the run is an agent run; only a workflow waits for events' });
  const payload: unknown = options.payload ?? null;
  // Checked, and recorded as sent: the wait parses it again and gives the workflow the parsed value (a schema
  // that transforms its payload is not asked to accept its own output).
  if (registry.hasWorkflow(name)) {
    const version = (await currentWorkflowOf(journal, run))?.version;
    const parsed = parseEventPayload(registry.getWorkflow(name, version).events, options.name, payload);
    if (!parsed.ok) throw new EventRefusedError({ runId, reason: 'invalid-payload', detail: `event "${options.name}": ${parsed.problems.join('; ')}` });
  }
  const request: SendEventRequest = {
    runId,
    name: options.name,
    payload: payload as SendEventRequest['payload'],
    by: options.by,
    ...(options.eventId !== undefined ? { eventId: options.eventId } : {}),
  };
  const sent = await journal.sendEvent(request);
  if (sent.recorded) await queue.wake(runId);
  return { runId, ...sent };
}

/**
 * A workflow run's name, version and typed input as it goes on: its last run-migrate's, else what it started
 * with (undefined for an agent run). What the executor invokes it with, and what checks an event sent to it.
 */
export async function currentWorkflowOf(journal: Pick<ResolvedStorage['journal'], 'events'>, run: RunSummary): Promise<RunInput['workflow']> {
  if (!run.input.workflow) return undefined;
  return new RunState(await journal.events(run.runId)).input?.workflow ?? run.input.workflow;
}

/** A run that settled wakes its parent (a workflow waiting for its children, or an agent waiting for its sub-agent call), so the parent looks again. */
export async function wakeParentOf(
  resolved: ResolvedStorage,
  runId: string,
  known?: { input: Pick<RunSummary['input'], 'parent'> },
): Promise<string | undefined> {
  // A run's parent link is in its start input, which never changes: a caller that read the run passes it.
  const parent = (known ?? (await resolved.journal.getRun(runId)))?.input.parent;
  if (!parent) return undefined;
  const parentRun = await resolved.journal.getRun(parent.runId);
  if (parentRun === undefined) return undefined;
  // An agent's sub-agent call: the child's outcome is the call's result (sub-agents.ts), then the parent resumes;
  // so are the calls of the parent's restarts and forks that wait for this child, even when the parent ended.
  if (!parentRun.input.workflow) return (await answerParent(resolved, runId))[0];
  if (parentRun.status === 'completed' || parentRun.status === 'canceled') return undefined;
  await resolved.queue.wake(parent.runId);
  return parent.runId;
}

/**
 * The child runs a workflow run started and that have not settled, every wait's: what a cancel of the
 * parent reaches. Read from the parent's projection and each child's summary.
 */
export async function openChildrenOf(context: StorageContext, runId: string, known?: RunSummary): Promise<string[]> {
  const { journal } = resolveStorage(context);
  const run = known ?? (await journal.getRun(runId));
  if (run && !run.input.workflow) return openSubAgentsOf({ journal }, run);
  const state = new RunState(await journal.events(runId));
  const open: string[] = [];
  for (const { wait } of state.workflowWaits.values()) {
    if (wait.kind !== 'children') continue;
    for (const child of wait.children) if ((await readChild(journal, child.runId)) === 'open') open.push(child.runId);
  }
  return open;
}
