/**
 * One invocation of a claimed run: its agent found by name, its recorded input given again, the
 * executor's wrapper around it if any, and runAgent (→ runDurable) doing the rest. The result says
 * whether the run is settled for now (completed, waiting for people, failed, diverged…: not runnable
 * until someone resumes it) or given back unfinished (this executor stopped, lost its lease or hold, or
 * the journal failed: another invocation continues it).
 *
 * A stop is honoured at a step boundary only: `prepareStep` runs before every model call, when every
 * tool of the previous step has settled, and throws InvocationStoppedError there.
 */
import { type AgentInput, runAgent, streamAgent, UnknownAgentError } from '@/lib/agents';
import {
  type ChildStarter,
  type DurableResult,
  type ErrorInfo,
  errorInfo,
  HoldLostError,
  journaledFailureOf,
  type LiveJournal,
  type MemoryStore,
  RunBusyError,
  type WorkflowMemoryDeclaration,
  type WorkflowMemoryOptions,
  RunCanceledError,
  RunDivergedError,
  RunErasedError,
  RunState,
  type RunSummary,
  SideEffectRetryBlockedError,
  ToolCallFailedError,
  runWorkflow,
} from '@/lib/durable';
import type { AgentRegistry } from '@/lib/agents';
import type { AroundInvocation } from './around-invocation';
import { InvocationStoppedError } from './errors';
import type { Claim } from './run-queue';
import { runVersion } from './run-version';
import { agentInputOf } from './start-input';
import { currentWorkflowOf } from './workflows';
import { isTransientFailure } from './transient-failure';

export type Invocation =
  /**
   * Not runnable until someone resumes it (or a timer fires). `transient`: this invocation failed (and
   * journaled its run-fail) on an error that may pass if tried later (transient-failure.ts), `failure` that error.
   */
  | { kind: 'settled'; outcome: string; error?: string; transient?: boolean; failure?: ErrorInfo; parent?: ParentLink | null }
  /** Still runnable: this executor gives it back. `busy`: the run's hold is taken elsewhere. */
  | { kind: 'given-back'; outcome: 'stopping' | 'lease-lost' | 'hold-lost' | 'busy' | 'journal-error'; error?: string; localBusy?: boolean };

export type StopReason = 'stopping' | 'lease-lost';

/**
 * The run's parent (a workflow or an agent waiting for it), from its start input, which never changes:
 * null when it has none, absent when this invocation could not read the run. What the executor wakes.
 */
export type ParentLink = NonNullable<RunSummary['input']['parent']>;

export async function invokeRun(args: {
  claim: Claim;
  journal: LiveJournal;
  registry: AgentRegistry;
  owner: string;
  /** Asked at every step boundary: a reason stops the invocation there. */
  stopRequested: () => StopReason | undefined;
  /** Wraps the invocation (ExecutorOptions.aroundInvocation). Default: none. */
  around?: AroundInvocation;
  /** Stream the run and write its stream log (ExecutorOptions.streamRuns). Default: generate. */
  stream?: boolean;
  /** Starts a workflow's child runs (workflows.ts). */
  children?: ChildStarter;
  /** Where agents whose memory names no store remember: the executor's storage's (runAgent's memoryStore). */
  memory?: MemoryStore;
}): Promise<Invocation> {
  const { claim, journal, registry, owner, stopRequested, around, stream, children, memory } = args;
  const { runId } = claim;
  let invoke: () => Promise<DurableResult<any>>;
  let parent: ParentLink | null | undefined;
  const settledWith = (invocation: Invocation): Invocation => (invocation.kind === 'settled' && parent !== undefined ? { ...invocation, parent } : invocation);
  try {
    const run = await journal.getRun(runId);
    parent = run ? (run.input.parent ?? null) : undefined;
    if (!run) return { kind: 'settled', outcome: 'failed', error: `run "${runId}" is not in the journal` };
    if (run.status === 'canceled') return settledWith({ kind: 'settled', outcome: 'canceled' });
    // Completed by an invocation whose lease expired before it could release it: nothing to run. (Invoked
    // again, a replay stopped at a step boundary would journal a run-fail after the run-complete.)
    if (run.status === 'completed') return settledWith({ kind: 'settled', outcome: 'completed' });
    // A workflow's run: its registered version (the one it records, or its last run-migrate's; else the current one), invoked by runWorkflow.
    const recordedWorkflow = await currentWorkflowOf(journal, run);
    if (recordedWorkflow) {
      const workflow = registry.getWorkflow(recordedWorkflow.name, recordedWorkflow.version);
      const beforeNewWork = async () => {
        const why = stopRequested();
        if (why && (await journal.getRun(runId))?.status !== 'completed') throw new InvocationStoppedError({ runId, owner, why });
      };
      invoke = () =>
        runWorkflow({
          workflow,
          runId,
          input: recordedWorkflow.input,
          journal,
          beforeNewWork,
          ...(children ? { children } : {}),
          ...(run.input.parent ? { parent: run.input.parent } : {}),
          ...(run.input.subject !== undefined ? { subject: run.input.subject } : {}),
          // A registered workflow's memory: the run's subject's, in the workflow's store or the executor's.
          ...workflowMemoryOf(workflow.memory, run.input.subject, memory),
        }) as unknown as Promise<DurableResult<any>>;
    } else {
      // The run's own version while it is registered (pinned), or the current one when it takes the run over.
      // Read once: the version's choice here, and runDurable's first load (its hold's, when nothing moved since).
      const knownEvents = await journal.events(runId);
      const { agent } = await runVersion({ registry, state: new RunState(knownEvents), runId });
      const own = (agent.settings as { prepareStep?: (options: unknown) => unknown }).prepareStep;
      const prepareStep = async (options: unknown) => {
        const why = stopRequested();
        // A run completed in the journal is only being replayed here (it completed after the check above,
        // before this invocation took the hold): the replay appends nothing, so it is let through. Stopped,
        // it would journal a run-fail after the run's run-complete.
        if (why && (await journal.getRun(runId))?.status !== 'completed') throw new InvocationStoppedError({ runId, owner, why });
        return own ? own(options) : undefined;
      };
      const input: AgentInput = agentInputOf(run.input);
      const options = { agent, runId, input, journal, prepareStep, knownEvents, ...(memory ? { memoryStore: memory } : {}) } as Parameters<typeof runAgent>[0];
      invoke = stream ? () => streamAgent({ ...options, resumable: true }).durable : () => runAgent(options);
    }
  } catch (error) {
    return settledWith(classify(error, await statusOf(journal, runId, error)));
  }
  try {
    const result = await (around ? around({ runId, agent: claim.agent }, invoke) : invoke());
    return settledWith({ kind: 'settled', outcome: result.status });
  } catch (error) {
    return settledWith(classify(error, await statusOf(journal, runId, error)));
  }
}

function classify(error: unknown, status: string | undefined): Invocation {
  const message = describe(error);
  const stopped = find(error, InvocationStoppedError.isInstance);
  if (stopped) return { kind: 'given-back', outcome: stopped.why, error: message };
  if (find(error, HoldLostError.isInstance)) return { kind: 'given-back', outcome: 'hold-lost', error: message };
  const busy = find(error, RunBusyError.isInstance);
  if (busy) return { kind: 'given-back', outcome: 'busy', error: message, localBusy: busy.holderPid === process.pid };
  if (find(error, RunCanceledError.isInstance) || status === 'canceled') return { kind: 'settled', outcome: 'canceled', error: message };
  if (SideEffectRetryBlockedError.isInstance(error)) return { kind: 'settled', outcome: 'blocked', error: message };
  if (RunDivergedError.isInstance(error)) return { kind: 'settled', outcome: 'diverged', error: message };
  // Erased (docs/erasure.md): it never runs again, so it is settled, not given back to be claimed again.
  if (find(error, RunErasedError.isInstance)) return { kind: 'settled', outcome: 'erased', error: message };
  if (ToolCallFailedError.isInstance(error) || status === 'failed') {
    return { kind: 'settled', outcome: 'failed', error: message, transient: status === 'failed' && isTransientFailure(error), failure: errorInfo(error) };
  }
  if (UnknownAgentError.isInstance(error)) return { kind: 'settled', outcome: 'unknown-agent', error: message };
  // The journal failed (the run's state there is unchanged): another invocation tries again.
  return { kind: 'given-back', outcome: 'journal-error', error: message };
}

/**
 * The run's status after the invocation, as far as this invocation made it: 'failed' counts only if this
 * invocation journaled its failure (runDurable marks the error it recorded as run-fail, with that event's
 * seq: journaled-failure.ts). A run left failed by another invocation (a step-boundary stop is journaled
 * as run-fail) while this one could not even reach the journal (its connection lost) was not failed by
 * it: that is the journal's error, retried.
 */
async function statusOf(journal: LiveJournal, runId: string, error: unknown): Promise<string | undefined> {
  if (find(error, (e): e is unknown => journaledFailureOf(e)?.runId === runId)) return 'failed';
  try {
    const status = (await journal.getRun(runId))?.status;
    return status === 'failed' ? undefined : status;
  } catch {
    return undefined; // the journal is unreachable: classify() treats the error as the journal's
  }
}

/** The error itself, or one inside an AggregateError or a cause chain (a failure that could not be journaled). */
function find<T>(error: unknown, is: (e: unknown) => e is T): T | undefined {
  const seen = new Set<unknown>();
  const queue = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (e === undefined || e === null || seen.has(e)) continue;
    seen.add(e);
    if (is(e)) return e;
    if (e instanceof AggregateError) queue.push(...e.errors);
    if (e instanceof Error) queue.push(e.cause);
  }
  return undefined;
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function workflowMemoryOf(
  declared: WorkflowMemoryDeclaration | undefined,
  subject: string | undefined,
  given: MemoryStore | undefined,
): { memory?: WorkflowMemoryOptions } {
  if (!declared || subject === undefined) return {};
  const store = declared.store === undefined ? given : typeof declared.store === 'function' ? declared.store() : declared.store;
  if (!store) return {};
  return {
    memory: {
      store,
      resource: subject,
      ...(declared.embeddingModel ? { embeddingModel: declared.embeddingModel } : {}),
      ...(declared.topK !== undefined ? { topK: declared.topK } : {}),
    },
  };
}
