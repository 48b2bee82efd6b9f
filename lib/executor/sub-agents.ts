/**
 * Sub-agents in the executor layer (lib/durable/tools/sub-agent.ts): when an agent run waits for the
 * result of a subAgentTool call, its child run is started (idempotent by its id, made from the parent's
 * run and the call), with the parent link; when the child settles, its outcome is given to the parent
 * as the call's result through the journal (provideToolResult, by "run <child>") and the parent is
 * resumed. A child already settled (the parent was resumed meanwhile, or crashed before answering) is
 * answered at once. The child's steps, approvals and side effects are its own: it is a run like any.
 *
 * A restart or a fork of the lead is the same job (related-effects.ts): its call that repeats the work a
 * child of another run of the job was started for (the same sub-agent, the same task) waits for that
 * child and is answered by it, as the door answers a tool's repeat from the job's record; a second child
 * would do the first one's refund again under keys of its own (childrenOfCalls).
 */
import {
  DecisionConflictError,
  jobNeighbours,
  jobRuns,
  type RunSummary,
  RunState,
  readChild,
  type SubAgentOutput,
  subAgentOf,
  subAgentRunId,
} from '@/lib/durable';
import type { Resolved, ResolvedStorage } from './context';
import { startAndEnqueue } from './start-run';

interface SubAgentCall {
  toolCallId: string;
  toolName: string;
  /** The registered agent it runs, where the caller knows its registry. */
  agent?: string;
  task: string;
}

/** The task a sub-agent call gives its child (the child's prompt). */
function taskOf(input: unknown): string {
  const task = (input as { task?: unknown } | undefined)?.task;
  return typeof task === 'string' ? task : JSON.stringify(input ?? null);
}

/** The sub-agent calls a run waits for, with the agent each runs. */
function subAgentCalls(resolved: Pick<Resolved, 'registry'>, run: RunSummary): SubAgentCall[] {
  const agentName = run.input.agent;
  if (run.input.workflow || !agentName || !resolved.registry.hasAgent(agentName)) return [];
  const tools = resolved.registry.getAgent(agentName).tools as Record<string, unknown>;
  const calls: SubAgentCall[] = [];
  for (const item of run.pending) {
    if (item.kind !== 'tool-result' || item.decision) continue;
    const declared = subAgentOf(tools[item.toolName]);
    if (!declared) continue;
    calls.push({ toolCallId: item.toolCallId, toolName: item.toolName, agent: declared.agent, task: taskOf(item.input) });
  }
  return calls;
}

/**
 * The calls a run waits for a result of, read without the registry (a cancel has none): a call that is not
 * a sub-agent's names a tool no child was started for, so it never matches one (childrenOfCalls).
 */
function waitingCalls(run: RunSummary): SubAgentCall[] {
  return run.pending.flatMap((item) =>
    item.kind === 'tool-result' && !item.decision ? [{ toolCallId: item.toolCallId, toolName: item.toolName, task: taskOf(item.input) }] : [],
  );
}

/** Starts the child runs a settled agent run waits for (each once), and answers those that settled already. Returns the children's ids. */
export async function startSubAgents(resolved: Resolved, runId: string): Promise<string[]> {
  const run = await resolved.journal.getRun(runId);
  if (!run || run.status === 'completed' || run.status === 'canceled') return [];
  const calls = subAgentCalls(resolved, run);
  const children = await childrenOfCalls(resolved, run.runId, calls);
  const started: string[] = [];
  for (const call of calls) {
    const childId = children.get(call.toolCallId) ?? subAgentRunId(run.runId, call.toolCallId);
    if (!(await resolved.journal.getRun(childId))) {
      await startAndEnqueue(
        { ...resolved, agent: call.agent as string, runId: childId, input: { prompt: call.task } },
        { parent: { runId: run.runId, waitId: call.toolCallId } },
      );
    }
    started.push(childId);
    await answerCall(resolved, { runId: run.runId, waitId: call.toolCallId }, childId);
  }
  return started;
}

/**
 * The child each of the run's waiting sub-agent calls waits for: its own (`<run>/<call>`), unless the run
 * has other runs in its job (a restart, a fork, their origins) and the call repeats the work a child of one
 * of them was started for: the same sub-agent and the same task (text in NFC). Then that child, nearest
 * runs first; each child answers one call of the run (a second repeat meets the next match), and a child
 * canceled before it started any side effect did no work: no match. Runs with no relatives read one run.
 */
async function childrenOfCalls(resolved: Pick<ResolvedStorage, 'journal'>, runId: string, calls: readonly SubAgentCall[]): Promise<Map<string, string>> {
  const children = new Map<string, string>();
  if (calls.length === 0) return children;
  const read = (id: string) => resolved.journal.events(id);
  const state = new RunState(await read(runId));
  const related = jobNeighbours(state);
  if (related.length === 0) return children;
  // The children that answered this run's calls already are taken; then each repeat takes the next match.
  const taken = new Set(childrenNamedIn(runId, state, { waitedFor: false }).map((named) => named.childId));
  const candidates = (await jobRuns(read, related, [runId])).flatMap((run) => childrenNamedIn(run.runId, run.state, { waitedFor: true }));
  const summaries = new Map<string, RunSummary | undefined>();
  const summary = async (id: string) => {
    if (!summaries.has(id)) summaries.set(id, await resolved.journal.getRun(id));
    return summaries.get(id);
  };
  const nfc = (text: unknown) => (typeof text === 'string' ? text.normalize('NFC') : undefined);
  for (const call of calls) {
    for (const { childId, toolName } of candidates) {
      if (taken.has(childId) || toolName !== call.toolName) continue;
      const child = await summary(childId);
      if (!child?.input.parent || nfc(child.input.prompt) === undefined || nfc(child.input.prompt) !== nfc(call.task)) continue;
      if (call.agent !== undefined && child.input.agent !== call.agent) continue;
      if (child.status === 'canceled' && !startedSideEffects(new RunState(await read(childId)))) continue;
      taken.add(childId);
      children.set(call.toolCallId, childId);
      break;
    }
  }
  return children;
}

/**
 * The sub-agent children a run's record names, in order: with `waitedFor`, the child of every call it
 * waited for a result of (the run that answered it, or else its own `<run>/<call>`: a run canceled or
 * restarted while waiting keeps no pending); without, only the children that answered its calls.
 */
function childrenNamedIn(runId: string, state: RunState, options: { waitedFor: boolean }): { childId: string; toolName: string }[] {
  const named: { childId: string; toolName: string }[] = [];
  for (const call of state.resultCalls) {
    const decision = state.decisionOf(call.toolCallId);
    const answeredBy = decision?.outcome === 'provided' && decision.by.startsWith('run ') ? decision.by.slice('run '.length) : undefined;
    const childId = answeredBy ?? (options.waitedFor ? subAgentRunId(runId, call.toolCallId) : undefined);
    if (childId !== undefined && !named.some((n) => n.childId === childId)) named.push({ childId, toolName: call.toolName });
  }
  return named;
}

function startedSideEffects(state: RunState): boolean {
  for (const op of state.operations.values()) if (op.sideEffect) return true;
  return false;
}

/**
 * A settled child: its outcome recorded as the result of the call it was started for (its parent link)
 * and of every call of the job's other runs that waits for it (childrenOfCalls), each caller resumed.
 * Returns the runs answered: none when nothing waits for it, it is open, or someone answered first.
 */
export async function answerParent(resolved: ResolvedStorage, childRunId: string): Promise<string[]> {
  const child = await resolved.journal.getRun(childRunId);
  const link = child?.input.parent;
  if (!child || !link) return [];
  const answered: string[] = [];
  if (await answerCall(resolved, link, childRunId)) answered.push(link.runId);
  for (const caller of await adoptersOf(resolved, link.runId, childRunId)) if (await answerCall(resolved, caller, childRunId)) answered.push(caller.runId);
  return answered;
}

/** The calls of the job's other runs (the parent's restarts and forks, theirs) that wait for `childRunId`. */
async function adoptersOf(resolved: Pick<ResolvedStorage, 'journal'>, parentRunId: string, childRunId: string): Promise<{ runId: string; waitId: string }[]> {
  const read = (id: string) => resolved.journal.events(id);
  const related = jobNeighbours(new RunState(await read(parentRunId)));
  if (related.length === 0) return [];
  const callers: { runId: string; waitId: string }[] = [];
  for (const run of await jobRuns(read, related, [parentRunId])) {
    if (run.state.status !== 'waiting-tool-result') continue;
    const summary = await resolved.journal.getRun(run.runId);
    if (!summary) continue;
    for (const [waitId, childId] of await childrenOfCalls(resolved, run.runId, waitingCalls(summary)))
      if (childId === childRunId) callers.push({ runId: run.runId, waitId });
  }
  return callers;
}

/**
 * The settled child's outcome as the result of one waiting call, and its run resumed. False when there is
 * nothing to answer (the child is open, the run no longer waits for that call, or someone answered it first).
 */
async function answerCall(resolved: ResolvedStorage, caller: { runId: string; waitId: string }, childRunId: string): Promise<boolean> {
  const parent = await resolved.journal.getRun(caller.runId);
  if (!parent || parent.input.workflow) return false;
  const item = parent.pending.find((pending) => pending.kind === 'tool-result' && pending.toolCallId === caller.waitId);
  const by = `run ${childRunId}`;
  // Answered by this child before, but the run was not resumed then (the resume's request or wake failed):
  // it still waits, so it is resumed now. Answered by anyone else, or not waited for: nothing to do.
  if (item?.decision) {
    if (item.decision.by !== by || parent.status !== 'waiting-tool-result') return false;
    await resumeCaller(resolved, caller.runId, by);
    return true;
  }
  if (!item) return false;
  // A failure its executor may still retry is not the child's answer yet (child-runs.ts).
  const outcome = await readChild(resolved.journal, childRunId, { settling: (runId) => resolved.queue.settling(runId) });
  if (outcome === undefined || outcome === 'open') return false;
  const output: SubAgentOutput =
    outcome.status === 'completed'
      ? { runId: childRunId, status: 'completed', answer: typeof outcome.output === 'string' ? outcome.output : JSON.stringify(outcome.output) }
      : outcome.status === 'failed'
        ? { runId: childRunId, status: 'failed', error: `${outcome.error.name}: ${outcome.error.message}` }
        : {
            runId: childRunId,
            status: 'canceled',
            error: outcome.status === 'canceled' ? `canceled by ${outcome.by}${outcome.reason ? `: ${outcome.reason}` : ''}` : 'not started',
          };
  try {
    await resolved.journal.provideToolResult({ runId: caller.runId, toolCallId: caller.waitId, output, by, reason: 'the sub-agent’s run settled' });
  } catch (error) {
    // Answered first (a person, or another executor that saw the child settle): that answer stands.
    if (DecisionConflictError.isInstance(error)) return false;
    throw error;
  }
  await resumeCaller(resolved, caller.runId, by);
  return true;
}

/** As resumeRun does (run-control.ts), recorded with who: the caller was run by an executor, so it has its queue row. */
async function resumeCaller(resolved: ResolvedStorage, runId: string, by: string): Promise<void> {
  await resolved.journal.requestResume({ runId, by, reason: 'the sub-agent’s run settled' });
  await resolved.queue.wake(runId);
}

/**
 * The open sub-agent children a cancel (or an abandon) of `run` reaches: the child each of its waiting calls
 * waits for (its own `<run>/<call>`, or the child of the job it adopted: childrenOfCalls), and the open
 * children of the runs it was restarted from (a restart leaves them for the new run to adopt, so once the new
 * run is stopped nobody will), save each child another open run of the job still waits for (a fork's parent
 * canceled keeps the child its fork waits for; the fork's cancel then reaches it).
 */
export async function openSubAgentsOf(resolved: Pick<ResolvedStorage, 'journal'>, run: RunSummary): Promise<string[]> {
  const calls = waitingCalls(run);
  const adopted = await childrenOfCalls(resolved, run.runId, calls);
  const candidates = new Set(calls.map((call) => adopted.get(call.toolCallId) ?? subAgentRunId(run.runId, call.toolCallId)));
  for (const origin of await restartOrigins(resolved, run))
    for (const { childId } of childrenNamedIn(origin.runId, origin.state, { waitedFor: true })) candidates.add(childId);
  const open: string[] = [];
  for (const childId of candidates) {
    const child = await resolved.journal.getRun(childId);
    if (!child?.input.parent || (await readChild(resolved.journal, childId)) !== 'open') continue;
    if ((await waitersOf(resolved, child)).some((waiter) => waiter !== run.runId)) continue;
    open.push(childId);
  }
  return open;
}

/** The runs `run` replaced, nearest first: its restart's old run, that run's own, and so on (a new attempt is another job). */
async function restartOrigins(resolved: Pick<ResolvedStorage, 'journal'>, run: RunSummary): Promise<{ runId: string; state: RunState }[]> {
  const origins: { runId: string; state: RunState }[] = [];
  const seen = new Set([run.runId]);
  let link = run.input.restartOf;
  while (link && link.newAttempt !== true && !seen.has(link.runId) && seen.size <= MAX_RESTART_ORIGINS) {
    seen.add(link.runId);
    const state = new RunState(await resolved.journal.events(link.runId));
    origins.push({ runId: link.runId, state });
    link = state.input?.restartOf;
  }
  return origins;
}

/** A restart chain longer than this is read to here (each restart is an operator's act). */
const MAX_RESTART_ORIGINS = 64;

/** The runs that wait for a child now: its parent, while the call it was started for waits, and the job's runs that adopted it. */
async function waitersOf(resolved: Pick<ResolvedStorage, 'journal'>, child: RunSummary): Promise<string[]> {
  const link = child.input.parent;
  if (!link) return [];
  const waiters: string[] = [];
  const parent = await resolved.journal.getRun(link.runId);
  if (parent?.pending.some((item) => item.kind === 'tool-result' && item.toolCallId === link.waitId && !item.decision)) waiters.push(link.runId);
  for (const caller of await adoptersOf(resolved, link.runId, child.runId)) waiters.push(caller.runId);
  return waiters;
}
