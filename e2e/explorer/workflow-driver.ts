/**
 * How the explorer's child (child.ts) runs a workflow scenario (workflow-scenarios.ts): with runWorkflow on
 * the boundary journal, doing in its one process what an executor's queue would do for the run:
 *   - child runs are started as the executor's starter does (their run-start recorded, start-run.ts
 *     `create`), on the same journal wrapped so their boundaries are labelled `child/…` (a kill there kills
 *     the whole process);
 *   - a parent that waits for children gets the open ones run (started, or killed mid-run) with
 *     runWorkflow, then is invoked again, as a child that settles wakes its parent;
 *   - a run that waits for a time (a sleep's end, an event's deadline, within a few seconds) is invoked
 *     again once that time passed, as the queue's timer would;
 *   - a run that waits for an event it does not have yet is handed back (`waiting`): the schedule sends it.
 * A run that waits for what it already had when the invocation began (an event sent and not taken, its
 * children settled) is `stuck`: a violation, reported by the schedule.
 */
import {
  type ChildStarter,
  type Journal,
  parseWorkflowInput,
  RunState,
  readChild,
  runWorkflow,
  type WaitingFor,
  type Workflow,
  workflowRunInput,
} from '@/lib/durable';
import { create } from '@/lib/executor/start-run';
import type { RunOutcome } from './protocol';
import type { Scenario } from './scenarios';

/** Waits for a time this far ahead at most in the process; a later one is handed back. */
const WAIT_THROUGH_MS = 5_000;
/** Past the time, so the run's own clock has passed it too. */
const PAST_MS = 20;
const MAX_ROUNDS = 20;

export async function driveWorkflow(args: {
  scenario: Scenario;
  runId: string;
  /** The run's journal (boundary-labelled), the children's (`child/…`), and the real one for reads. */
  journal: Journal;
  childJournal: Journal;
  plain: Journal;
  workflows: Record<string, Workflow>;
}): Promise<RunOutcome> {
  const { scenario, runId, journal, childJournal, plain, workflows } = args;
  const shape = scenario.workflow;
  if (!shape) throw new Error(`scenario ${scenario.name} is not a workflow`);
  const workflowOf = (name: string) => {
    const found = workflows[name];
    if (!found) throw new Error(`no workflow "${name}" in the explorer's workflows`);
    return found;
  };
  // As an executor starts a child: its run-start recorded (start-run.ts `create`, idempotent by runId), run later by the loop below.
  const starter: ChildStarter = {
    async start(child) {
      const workflow = workflowOf(child.name);
      await create(childJournal, child.runId, workflowRunInput({ workflow, input: parseWorkflowInput(workflow, child.input), parent: child.parent }));
    },
  };
  /** Resumes a child run from its own record (its workflow, input and parent link), as a worker would. */
  const resumeChild = async (childRunId: string) => {
    const state = new RunState(await plain.events(childRunId));
    const recorded = state.input?.workflow;
    if (!recorded) throw new Error(`child run ${childRunId} records no workflow`);
    await runWorkflow({
      workflow: workflowOf(recorded.name),
      runId: childRunId,
      input: recorded.input,
      ...(state.input?.parent ? { parent: state.input.parent } : {}),
      journal: childJournal,
      children: starter,
    });
  };

  for (let round = 0; round < MAX_ROUNDS; round++) {
    const had = await whatTheRunHas(plain, runId);
    const result = await runWorkflow({ workflow: workflowOf(shape.name), runId, input: shape.input, journal, children: starter });
    if (result.status === 'completed') return { outcome: 'completed', text: JSON.stringify(result.output) };
    if (result.status === 'canceled') return { outcome: 'canceled' };
    if (result.status === 'waiting-approval')
      return { outcome: 'waiting-approval', pending: result.pending.map(({ toolCallId, toolName }) => ({ toolCallId, toolName })) };
    const waits = result.waitingFor;
    const has = waits.some((w) => w.kind === 'event') ? await whatTheRunHas(plain, runId) : had;
    for (const wait of waits) {
      // An event in the journal before the invocation, of the name it waits for, and still not taken: the wait should have taken it.
      const missed = wait.kind === 'event' ? had.undelivered.get(wait.event) : undefined;
      if (wait.kind === 'event' && missed !== undefined && has.undelivered.get(wait.event) === missed)
        return { outcome: 'stuck', detail: `${describe(wait)} though event ${missed} was in its journal, not taken, before the invocation` };
      if (wait.kind === 'children' && wait.runIds.every((id) => had.settledChildren.has(id)))
        return { outcome: 'stuck', detail: `${describe(wait)} though every one of them had settled before the invocation` };
    }
    const open: string[] = [];
    for (const wait of waits) if (wait.kind === 'children') for (const id of wait.runIds) if ((await readChild(plain, id)) === 'open') open.push(id);
    if (open.length > 0) {
      for (const id of open) await resumeChild(id);
      continue;
    }
    if (waits.some((w) => w.kind === 'children')) continue; // settled since: the parent looks again
    const times = waits.flatMap((w) => (w.kind === 'sleep' ? [Date.parse(w.until)] : w.kind === 'event' && w.timeoutAt ? [Date.parse(w.timeoutAt)] : []));
    const due = times.length > 0 ? Math.min(...times) : undefined;
    if (due !== undefined && due - Date.now() <= WAIT_THROUGH_MS) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + PAST_MS));
      continue;
    }
    return { outcome: 'waiting', waitingFor: waits.map((w) => ({ kind: w.kind, name: w.name, ...(w.kind === 'event' ? { event: w.event } : {}) })) };
  }
  return { outcome: 'stuck', detail: `still waiting after ${MAX_ROUNDS} invocations in one process` };
}

/** What the run held before an invocation: events sent and not taken (by name: an event id), children that had settled. */
async function whatTheRunHas(journal: Journal, runId: string): Promise<{ undelivered: Map<string, string>; settledChildren: Set<string> }> {
  const state = new RunState(await journal.events(runId));
  const undelivered = new Map<string, string>();
  for (const event of state.workflowEvents)
    if (!state.deliveredEvents.has(event.eventId) && !undelivered.has(event.name)) undelivered.set(event.name, event.eventId);
  const settledChildren = new Set<string>();
  for (const { wait } of state.workflowWaits.values()) {
    if (wait.kind !== 'children') continue;
    for (const child of wait.children) {
      const outcome = await readChild(journal, child.runId);
      if (outcome !== undefined && outcome !== 'open') settledChildren.add(child.runId);
    }
  }
  return { undelivered, settledChildren };
}

function describe(wait: WaitingFor): string {
  return `the run waits for ${wait.kind} "${wait.name}"`;
}
