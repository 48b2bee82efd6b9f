/**
 * runWorkflow: one invocation of a workflow run. Like runDurable it holds the run, begins the invocation
 * (beginInvocation: the same start-input check, the same run-resume), and ends it with the same events:
 * `run-complete` (with the workflow's return value as `output`), `run-fail`, or `run-suspend` (`waiting`
 * for a time, an event or child runs; `waiting-approval` or `blocked` for a person). The workflow function
 * runs from the top each time; its primitives answer from the journal (workflow-context.ts).
 *
 * A completed run answers from its record without the hold; a waiting run with nothing due (its sleep not
 * over, no event for it, its children still going) answers without appending anything.
 */
import { JournalDataError, SideEffectRetryBlockedError } from '../errors';
import { beginInvocation } from '../run/begin-invocation';
import { eventLimitOption } from '../journal/event-limit';
import type { PendingItem, RunInput } from '../journal/events';
import { DEFAULT_KEY_SCHEME } from '../identity/idempotency-key';
import { assertValidSubject } from '../identity/run-id';
import type { Journal } from '../journal/journal';
import { RunState } from '../projection/run-state';
import { linkJob, recordFailure } from '../run/run-durable';
import { RunSession } from '../run/run-session';
import { InvocationTrace } from '../telemetry/tracing';
import { RunErasedError } from '../sealing/run-keys';
import { childrenRootOf } from '../tools/job-lock';
import { type ChildStarter, readChild } from './child-runs';
import type { WorkflowMemoryOptions } from './workflow-memory';
import { parseWorkflowInput, type Workflow } from './define-workflow';
import { parseEventPayload } from './event-payload';
import { WorkflowContext, WorkflowSuspended } from './workflow-context';

export interface RunWorkflowOptions {
  workflow: Workflow;
  /** Names the job: every invocation of the run passes the same runId. */
  runId: string;
  /** The workflow's input (checked by its schema; recorded in the run-start, compared on every later call). */
  input: unknown;
  journal: Journal;
  /** Starts child runs (wf.child, wf.all): the executor's (startWorkflow gives it). Without it a child is refused. */
  children?: ChildStarter;
  /** The run is a child of this run's wait (recorded in its start input). */
  parent?: { runId: string; waitId: string };
  /** Who the run's data is about (docs/erasure.md). */
  subject?: string;
  /** Asked before each primitive that does new work: throwing stops the invocation there (the executor's stop). */
  beforeNewWork?: () => void | Promise<void>;
  maxEventsPerRun?: number;
  /** The clock sleeps and deadlines are measured by (tests). Default Date.now. */
  clock?: () => number;
  /** The resource whose memory `wf.memory` reads and writes (docs/memory.md#in-a-workflow). */
  memory?: WorkflowMemoryOptions;
}

/** What one workflow will wait for when it waits. */
export type WaitingFor = { waitId: string; name: string } & (
  | { kind: 'sleep'; until: string }
  | { kind: 'event'; event: string; timeoutAt?: string }
  | { kind: 'children'; runIds: string[] }
);

export type WorkflowResult<OUTPUT = unknown> =
  | { status: 'completed'; runId: string; output: OUTPUT }
  | { status: 'waiting'; runId: string; waitingFor: WaitingFor[] }
  | { status: 'waiting-approval'; runId: string; pending: Extract<PendingItem, { kind: 'approval' }>[] }
  | { status: 'canceled'; runId: string; by: string; reason?: string };

/** The start input a workflow run records. */
export function workflowRunInput(args: { workflow: Workflow; input: unknown; parent?: { runId: string; waitId: string }; subject?: string }): RunInput {
  const { workflow, input, parent, subject } = args;
  return {
    agent: workflow.name,
    agentVersion: workflow.version,
    ...(subject !== undefined ? { subject } : {}),
    modelId: 'workflow',
    provider: 'gnl.workflow',
    toolNames: [],
    ...(DEFAULT_KEY_SCHEME !== 1 ? { keyScheme: DEFAULT_KEY_SCHEME } : {}),
    workflow: { name: workflow.name, version: workflow.version, input },
    ...(parent ? { parent } : {}),
  };
}

export async function runWorkflow<OUTPUT = unknown>(options: RunWorkflowOptions): Promise<WorkflowResult<OUTPUT>> {
  const { workflow, journal, children, beforeNewWork } = options;
  const clock = options.clock ?? Date.now;
  const input = parseWorkflowInput(workflow, options.input);
  assertValidSubject(options.subject);
  const maxEvents = eventLimitOption(options.maxEventsPerRun);
  const runId = await journal.runIdOf(options.runId);
  // The input as given is what the run records (each invocation parses it again, as this one did above).
  const startInput = workflowRunInput({
    workflow,
    input: options.input,
    ...(options.parent ? { parent: options.parent } : {}),
    ...(options.subject ? { subject: options.subject } : {}),
  });

  const before = new RunState(await journal.events(runId));
  if (before.status === 'completed') {
    // An erased run's output reads as erased: refused, as runDurable refuses an erased run (docs/erasure.md).
    const erased = (await journal.getRun(runId))?.erased;
    if (erased) throw new RunErasedError(runId, erased);
    return { status: 'completed', runId, output: before.completedOutput as OUTPUT };
  }
  if (before.status === 'waiting' && !(await somethingDue(before, journal, workflow, clock(), options.children)))
    return { status: 'waiting', runId, waitingFor: waitingFor(before) };

  // This invocation's span (telemetry/tracing.ts), under the run's first recorded trace: steps are tool-call spans under it.
  const startedAt = Date.now();
  let invocation: InvocationTrace | undefined;
  const traceOf = (state: RunState, kind: string): InvocationTrace =>
    (invocation ??= InvocationTrace.start({ runId, agent: workflow.name, recorded: state.trace, startTime: startedAt, kind }));
  const hold = await journal.hold(runId);
  let current: RunSession | undefined;
  const invoke = async (): Promise<WorkflowResult<OUTPUT>> => {
    const traceFor = (state: RunState) => traceOf(state, state.lastSeq === 0 ? 'start' : 'resume').recorded;
    const begun = await beginInvocation({ hold, input: startInput, maxEvents, traceFor });
    if (begun.kind === 'canceled') return { status: 'canceled', runId, by: begun.by, ...(begun.reason ? { reason: begun.reason } : {}) };
    if (begun.kind === 'waiting-approval') return { status: 'waiting-approval', runId, pending: begun.pending };
    if (begun.kind === 'waiting-tool-result') throw new Error(`Run "${runId}" waits for a tool result: a workflow has no tools without execute.`);
    if (begun.state.status === 'completed') return { status: 'completed', runId, output: begun.state.completedOutput as OUTPUT };
    const session = new RunSession(runId, hold, begun.state, false, maxEvents);
    current = session;
    // A step's outcome known here but not recorded (the database away a moment): the hold taken again (run-session.ts).
    session.retake = () => journal.hold(runId);
    session.trace = traceOf(begun.state, 'resume');
    linkJob(session, journal);
    const wf = new WorkflowContext({
      session,
      journal,
      events: workflow.events,
      children,
      // A fork's children are its own, never its parent's (job-lock.ts's childrenRootOf); a restart's are the run's it restarts.
      jobRoot: () => childrenRootOf((id) => journal.events(id), { runId, state: session.state }),
      clock,
      beforeNewWork,
      memory: options.memory,
    });
    let output: unknown;
    try {
      output = await session.trace.within(() => workflow.run(wf, input));
    } catch (error) {
      await wf.idle();
      await session.idle();
      if (session.canceled && session.fatal === undefined) return canceled(session);
      if (error instanceof WorkflowSuspended) return await suspend(session, wf);
      // A stop the run met (the job's work started in another run, a retry-safe side effect out of retries) fails
      // the run as itself, whatever the code threw after catching it.
      const failure = session.fatal ?? session.failure ?? error;
      await recordFailure(session, failure);
      throw failure;
    }
    await wf.idle();
    if (session.canceled && session.fatal === undefined) return canceled(session);
    // A suspend the workflow's code caught (a wait inside try/catch) still suspends the run.
    if (wf.waiting.length > 0 || session.blocked.length > 0 || session.waiting.length > 0) return await suspend(session, wf);
    // A stop the workflow's code caught (the job's work started in another run, a side effect out of retries) never completes the run.
    const stopped = session.failure;
    if (stopped) {
      await recordFailure(session, stopped);
      throw stopped;
    }
    try {
      await session.append({ type: 'run-complete', text: summaryText(output), finishReason: 'workflow', steps: wf.called, output });
    } catch (error) {
      // A return value the journal cannot keep (a function, a cycle, past the size limit) fails the run, once and
      // recorded: taken for a passing journal fault, it was invoked again every few seconds, each time replaying
      // every step to meet the same value, until the run's event limit.
      if (!JournalDataError.isInstance(error)) throw error;
      await recordFailure(session, error);
      throw error;
    }
    return { status: 'completed', runId, output: output as OUTPUT };
  };
  try {
    const result = await invoke();
    invocation?.end({ status: result.status });
    return result;
  } catch (error) {
    invocation?.end({ error });
    throw error;
  } finally {
    // The hold the invocation ended with: a retaken one replaced the first (released already).
    await (current?.hold ?? hold).release();
  }
}

async function suspend<OUTPUT>(session: RunSession, wf: WorkflowContext): Promise<WorkflowResult<OUTPUT>> {
  const { runId } = session;
  const records = wf.waiting.flatMap((w) => (w.record ? [w.record] : []));
  const firstBlocked = session.blocked[0];
  if (firstBlocked) {
    await session.append(...records, { type: 'run-suspend', status: 'blocked', pending: [...session.blocked, ...session.waiting] });
    throw new SideEffectRetryBlockedError({ runId, ...firstBlocked });
  }
  if (session.waiting.length > 0) {
    await session.append(...records, { type: 'run-suspend', status: 'waiting-approval', pending: [...session.waiting] });
    return { status: 'waiting-approval', runId, pending: [...session.waiting] };
  }
  await session.append(...records, { type: 'run-suspend', status: 'waiting', pending: [] });
  return { status: 'waiting', runId, waitingFor: waitingFor(session.state) };
}

function canceled<OUTPUT>(session: RunSession): WorkflowResult<OUTPUT> {
  const { by, reason } = session.state.canceled ?? { by: 'unknown', reason: undefined };
  return { status: 'canceled', runId: session.runId, by, ...(reason ? { reason } : {}) };
}

/** The waits recorded and not ended, as a caller (the Studio, `gnl show`) reads them. */
export function waitingFor(state: RunState): WaitingFor[] {
  const open: WaitingFor[] = [];
  for (const { waitId, name, wait, end } of state.workflowWaits.values()) {
    if (end) continue;
    if (wait.kind === 'sleep') open.push({ waitId, name, kind: 'sleep', until: wait.until });
    else if (wait.kind === 'event') open.push({ waitId, name, kind: 'event', event: wait.event, ...(wait.timeoutAt ? { timeoutAt: wait.timeoutAt } : {}) });
    else open.push({ waitId, name, kind: 'children', runIds: wait.children.map((c) => c.runId) });
  }
  return open;
}

/** Whether invoking a waiting run now can move it: a sleep or deadline is over, an event it waits for was sent, or a child settled. */
async function somethingDue(state: RunState, journal: Journal, workflow: Workflow, now: number, children?: ChildStarter): Promise<boolean> {
  for (const { wait, end } of state.workflowWaits.values()) {
    if (end) continue;
    if (wait.kind === 'sleep' && now >= Date.parse(wait.until)) return true;
    if (wait.kind === 'event') {
      if (wait.timeoutAt !== undefined && now >= Date.parse(wait.timeoutAt)) return true;
      if (
        state.workflowEvents.some(
          (e) => e.name === wait.event && !state.deliveredEvents.has(e.eventId) && parseEventPayload(workflow.events, wait.event, e.payload).ok,
        )
      )
        return true;
    }
    if (wait.kind === 'children') {
      for (const child of wait.children) if ((await readChild(journal, child.runId, children)) !== 'open') return true;
    }
  }
  // Nothing open (a wait that ended before the suspend was written): let the invocation look.
  return waitingFor(state).length === 0;
}

/** run-complete's `text`: the output as one line of JSON (cut), for listings that show a run's answer. */
function summaryText(output: unknown): string {
  if (output === undefined) return '';
  if (typeof output === 'string') return output;
  try {
    const text = JSON.stringify(output) ?? '';
    return text.length > 2000 ? `${text.slice(0, 1999)}…` : text;
  } catch {
    return String(output);
  }
}
