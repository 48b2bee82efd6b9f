/**
 * What operators (the CLI, the Studio's server actions) do to runs after they started: make one
 * runnable again, cancel it, or, for a run whose agent changed since it started (RunDivergedError),
 * abandon it (recorded: who and why) and restart its input as a new run.
 */
import { randomUUID } from 'node:crypto';
import { DecisionConflictError, InvalidRunIdError, jobEffects, RunState, type RunSummary, runTimers } from '@/lib/durable';
import { type ExecutorContext, type ResolvedStorage, resolveContext, resolveStorage, type StorageContext } from './context';
import { RunNotResumableError } from './errors';
import type { QueueEntry } from './run-queue';
import { agentInputOf } from './start-input';
import { type StartedRun, startAndEnqueue } from './start-run';
import { openChildrenOf, wakeParentOf } from './workflows';

export interface ControlledRun {
  runId: string;
  run: RunSummary;
  /** The run's executor bookkeeping: runnable, lease, last outcome, abandon record. */
  queue: QueueEntry | undefined;
}

export interface ResumeRunRequest extends StorageContext {
  /** Who asks for the resume (an operator's login, a service name): recorded in the journal as `run-resume-request` with `reason`. */
  by: string;
  reason?: string;
}

/**
 * Makes a run runnable again (after approvals or side-effect resolutions); an executor claims it next.
 * Who asked and why is journaled first (journal.requestResume), after the checks: a refused resume
 * writes nothing, and no resume goes unattributed. `run` is the run as it was before the resume.
 */
export async function resumeRun(given: string, request: ResumeRunRequest): Promise<ControlledRun> {
  const resolved = resolveStorage(request);
  const runId = await resolved.journal.runIdOf(given); // docs/limits.md, "runIds"
  const { queue } = resolved;
  const run = await existingRun(resolved, runId);
  const before = await queue.entry(runId);
  if (before?.abandonedAt) throw new RunNotResumableError({ runId, reason: 'abandoned', detail: `by ${before.abandonedBy}: ${before.abandonReason}` });
  if (run.status === 'completed' || run.status === 'canceled') throw new RunNotResumableError({ runId, reason: run.status });
  const agent = run.input.agent;
  if (!before && !agent) throw new RunNotResumableError({ runId, reason: 'no-agent' });
  await resolved.journal.requestResume({ runId, by: request.by, ...(request.reason !== undefined ? { reason: request.reason } : {}) });
  if (!before) {
    await queue.enqueue({ runId, agent: agent as string });
    return { runId, run, queue: await queue.entry(runId) };
  }
  return { runId, run, queue: await queue.wake(runId) };
}

export interface ScheduleResumeRequest extends ResumeRunRequest {
  /** When: the run's next invocation begins no earlier (a Date, or ISO 8601 with a zone: 2026-12-02T09:00:00Z). */
  at: Date | string;
}

/**
 * Schedules the run's next invocation (a durable timer, kept in the run queue): checked like resumeRun,
 * journaled as a `run-resume-request` with `resumeAt` (who, why, when), then the queue's not-before time
 * is set to the run's earliest timer (runTimers: this one, or an approval deadline that comes first). A
 * resume asked for at once meanwhile replaces it; `run.timers` says what is due.
 */
export async function scheduleResume(given: string, request: ScheduleResumeRequest): Promise<ControlledRun> {
  const resolved = resolveStorage(request);
  const runId = await resolved.journal.runIdOf(given); // docs/limits.md, "runIds"
  const { queue, journal } = resolved;
  const run = await existingRun(resolved, runId);
  const before = await queue.entry(runId);
  if (before?.abandonedAt) throw new RunNotResumableError({ runId, reason: 'abandoned', detail: `by ${before.abandonedBy}: ${before.abandonReason}` });
  if (run.status === 'completed' || run.status === 'canceled') throw new RunNotResumableError({ runId, reason: run.status });
  const agent = run.input.agent;
  if (!before && !agent) throw new RunNotResumableError({ runId, reason: 'no-agent' });
  await journal.requestResume({ runId, by: request.by, resumeAt: request.at, ...(request.reason !== undefined ? { reason: request.reason } : {}) });
  const [due] = runTimers(new RunState(await journal.events(runId)));
  const delayMs = due ? Date.parse(due.dueAt) - Date.now() : 0;
  if (!before) await queue.enqueue({ runId, agent: agent as string });
  return { runId, run, queue: await queue.schedule(runId, delayMs) };
}

export interface OperatorRequest extends StorageContext {
  /** Who decides (recorded). */
  by: string;
  reason?: string;
}

/**
 * Cancels a run through the journal (`journal.cancel`): a run executing now stops at its next step
 * boundary and never executes another tool; a queued one is never invoked again. A finished or already
 * canceled run is the journal's DecisionConflictError.
 */
export async function cancelRun(given: string, request: OperatorRequest): Promise<ControlledRun> {
  const resolved = resolveStorage(request);
  const runId = await resolved.journal.runIdOf(given); // docs/limits.md, "runIds"
  const before = await existingRun(resolved, runId);
  // Read before the cancel too: an agent run's sub-agent calls are in its pending list, which the cancel empties.
  const openBefore = await openChildrenOf(request, runId, before);
  await resolved.journal.cancel({ runId, by: request.by, ...(request.reason !== undefined ? { reason: request.reason } : {}) });
  await resolved.queue.settle(runId, 'canceled');
  const run = await existingRun(resolved, runId);
  // A workflow's (or a sub-agent caller's) cancel reaches its open child runs (each recorded with who and why), and a child's wakes its parent.
  // A workflow's are read after it as well: a child a running invocation started meanwhile is reached too.
  const openAfter = run.input.workflow ? await openChildrenOf(request, runId, run) : [];
  await cancelChildren([...openBefore, ...openAfter], { ...request, reason: `parent run ${runId} was canceled${request.reason ? `: ${request.reason}` : ''}` });
  await wakeParentOf(resolved, runId, run);
  return { runId, run, queue: await resolved.queue.entry(runId) };
}

/** Cancels each child (recorded with who and why); a child that ended meanwhile has nothing to cancel, any other refusal is the caller's to see. */
async function cancelChildren(children: readonly string[], request: OperatorRequest & { reason: string }): Promise<void> {
  for (const child of new Set(children)) {
    await cancelRun(child, request).catch((error: unknown) => {
      if (!DecisionConflictError.isInstance(error)) throw error;
    });
  }
}

/**
 * Gives a run up for good, recording who and why (a run whose agent changed cannot resume): canceled in
 * the journal (reason "abandoned: …") and never invoked again.
 */
export async function abandonRun(given: string, request: OperatorRequest & { reason: string }): Promise<ControlledRun> {
  const resolved = resolveStorage(request);
  const runId = await resolved.journal.runIdOf(given); // docs/limits.md, "runIds"
  const run = await existingRun(resolved, runId);
  if (run.status === 'completed') throw new RunNotResumableError({ runId, reason: 'completed', detail: 'nothing to abandon' });
  return abandon(resolved, run, { by: request.by, reason: request.reason });
}

export interface RestartRequest extends ExecutorContext {
  by: string;
  /** The new run's id. Default `<agent>:<uuid>`; give one to make a repeated restart idempotent. */
  runId?: string;
  /**
   * A new attempt of the old run's side effects: the new run's calls do not answer from the old run's
   * record and run under new keys. Recorded in the new run's `restartOf` with `by`. Default false: a
   * repeat of recorded work answers from its record, and one of unknown outcome stops (previewRestart).
   */
  newAttempt?: boolean;
}

/** A side effect of the old run, and what a restart that repeats it (same tool, same arguments) meets. */
export interface RestartEffect {
  toolName: string;
  input: unknown;
  idempotencyKey: string;
  /** answered: the recorded outcome answers, nothing executes; stops: its outcome is unknown, the restart stops until it is decided; runs-again: known not performed, or a new attempt was asked for. */
  onRepeat: 'answered' | 'stops' | 'runs-again';
}

export interface RestartPreview {
  runId: string;
  agent: string;
  newAttempt: boolean;
  /** Every side effect the old run (and its lineage) started, in order. */
  sideEffects: RestartEffect[];
}

/** What restartRun would do with the old run's side effects; writes nothing. */
export async function previewRestart(runId: string, request: ExecutorContext & { newAttempt?: boolean }): Promise<RestartPreview> {
  const resolved = resolveContext(request);
  const old = await existingRun(resolved, runId);
  const agentName = old.input.agent;
  if (!agentName) throw new RunNotResumableError({ runId, reason: 'no-agent' });
  const newAttempt = request.newAttempt === true;
  const effects = await jobEffects((id) => resolved.journal.events(id), [runId]);
  return {
    runId,
    agent: agentName,
    newAttempt,
    sideEffects: effects.map(({ toolName, input, idempotencyKey, outcome }) => ({
      toolName,
      input,
      idempotencyKey,
      onRepeat: newAttempt || outcome.kind === 'not-performed' ? 'runs-again' : outcome.kind === 'done' ? 'answered' : 'stops',
    })),
  };
}

/**
 * Starts the run's input again as a new run of its agent as it is now, records the restart on the old run
 * (run-restarted) and abandons it (reason "restarted as <new runId>"). The new run is enqueued like any startRun.
 */
export async function restartRun(given: string, request: RestartRequest): Promise<StartedRun & { restartOf: string }> {
  const resolved = resolveContext(request);
  const runId = await resolved.journal.runIdOf(given); // docs/limits.md, "runIds"
  const old = await existingRun(resolved, runId);
  const agentName = old.input.agent;
  if (!agentName) throw new RunNotResumableError({ runId, reason: 'no-agent' });
  // A side effect whose outcome is unknown is the old run's to decide: the restart cancels it, after which nobody
  // could, and the new run's repeat of that work would stop for ever on it (the job's work started elsewhere).
  const undecided = old.status === 'blocked' ? old.pending.filter((item) => item.kind === 'side-effect' && !item.decision) : [];
  if (undecided.length > 0 && request.newAttempt !== true)
    throw new RunNotResumableError({
      runId,
      reason: 'blocked',
      detail: `${undecided.map((item) => `${item.toolName} ${item.toolCallId}`).join(', ')}: decide whether it happened first (gnl resolve, the Studio's inbox), then restart; a new attempt runs every side effect again`,
    });
  const newAttempt = request.newAttempt === true ? { newAttempt: true } : {};
  const newRunId = await resolved.journal.runIdOf(request.runId ?? `${resolved.registry.getAgent(agentName).name}:${randomUUID()}`);
  // The restart is a new run: named as the old one, it would be the old run itself, abandoned and linked to itself.
  if (newRunId === runId) throw new InvalidRunIdError(`A restart is a new run: give it an id other than the run it restarts ("${runId}"), or none.`);
  // The old run names its restart (run-restarted), so the job's other runs (its forks, its parent, the old
  // run resumed) find the restart's work: the door's related-effects.ts walks restarts both ways. Named
  // before the new run exists: a process that dies in between leaves a link to a run with no events (nothing
  // to find), never a new run its old run does not know of (which a resume of the old run would not consult).
  // A run already under the asked id is linked only when it is this restart (else the start below refuses it).
  const taken = request.runId === undefined ? undefined : await resolved.journal.getRun(newRunId);
  const link = { runId, restartedAs: newRunId, by: request.by, ...newAttempt };
  if (taken === undefined || taken.input.restartOf?.runId === runId) await resolved.journal.recordRestart(link);
  // A sub-agent's child restarted answers the call its lead waits for (the same parent link): the lead is never
  // left waiting for the child the restart canceled. A workflow's child is not carried over: its wait names the
  // old child, which the restart cancels, and the workflow is woken to see that (below).
  const parentRun = old.input.parent ? await resolved.journal.getRun(old.input.parent.runId) : undefined;
  const carriesParent = old.input.parent !== undefined && parentRun !== undefined && parentRun.input.workflow === undefined;
  const started = await startAndEnqueue(
    { storage: resolved.storage, registry: resolved.registry, agent: agentName, input: agentInputOf(old.input), runId: newRunId },
    { restartOf: { runId, by: request.by, ...newAttempt }, ...(carriesParent && old.input.parent ? { parent: old.input.parent } : {}) },
  );
  // A repeated restart writes nothing.
  await resolved.journal.recordRestart(link);
  const finished = old.status === 'completed' || old.status === 'canceled';
  await resolved.queue.abandon({
    runId,
    agent: agentName,
    by: request.by,
    reason: `restarted as ${started.runId}`,
    restartedAs: started.runId,
    abandon: !finished,
  });
  // A new attempt is another job: it adopts none of the old run's sub-agent children, so they stop with it.
  // A restart of the same job leaves them open for the new run to adopt (sub-agents.ts; its cancel reaches them).
  const orphans = !finished && request.newAttempt === true ? await openChildrenOf(resolved, runId, old) : [];
  if (!finished) await cancelInJournal(resolved, runId, request.by, `restarted as ${started.runId}`);
  await cancelChildren(orphans, { storage: resolved.storage, by: request.by, reason: `parent run ${runId} was restarted as ${started.runId}, a new attempt` });
  if (!finished && !carriesParent) await wakeParentOf(resolved, runId);
  return { ...started, restartOf: runId };
}

async function abandon(resolved: ResolvedStorage, run: RunSummary, args: { by: string; reason: string }): Promise<ControlledRun> {
  const entry = await resolved.queue.abandon({ runId: run.runId, agent: run.input.agent ?? '', by: args.by, reason: args.reason, abandon: true });
  // Read before the cancel, which empties the pending list the sub-agent calls are in (as cancelRun does).
  const orphans = await openChildrenOf(resolved, run.runId, run);
  await cancelInJournal(resolved, run.runId, args.by, `abandoned: ${args.reason}`);
  await cancelChildren(orphans, { storage: resolved.storage, by: args.by, reason: `parent run ${run.runId} was abandoned: ${args.reason}` });
  // A child given up answers its parent as canceled (as cancelRun does): a lead or workflow never waits for it for ever.
  await wakeParentOf(resolved, run.runId, run);
  return { runId: run.runId, run: (await resolved.journal.getRun(run.runId)) ?? run, queue: entry };
}

/** Stops the run in the journal too (a finished run has nothing to stop). */
async function cancelInJournal(resolved: ResolvedStorage, runId: string, by: string, reason: string): Promise<void> {
  const run = await resolved.journal.getRun(runId);
  if (run && run.status !== 'completed' && run.status !== 'canceled') await resolved.journal.cancel({ runId, by, reason });
}

async function existingRun(resolved: ResolvedStorage, runId: string): Promise<RunSummary> {
  const run = await resolved.journal.getRun(runId);
  if (!run) throw new RunNotResumableError({ runId, reason: 'unknown-run' });
  return run;
}
