/**
 * A workflow run's fork (planFork hands a workflow's run here). A workflow calls its primitives (steps,
 * sleeps, waits, children) in order and each takes the next id, `wf-0`, `wf-1`, …; the Studio and the CLI
 * count them from 1, so a fork "at step N" keeps primitives 1..N-1 and runs the workflow's code again
 * from primitive N. What is kept: every event before primitive N's first one, except the events of
 * primitives N and later (a parallel branch may have begun one before it) and what no fork replays
 * (fork-plan.ts's NOT_COPIED). Every kept primitive must have settled before the fork point: one still
 * open there (a branch running beside primitive N) would be replayed half-done, so such a fork is refused.
 *
 * Edits (at most one): the result of primitive N-1 when it is a step (the code after it reads the
 * replaced value; earlier results stay, since the code that followed them already read them), or the
 * workflow's version the fork runs (the executor checks it is registered). Without an edit the fork runs
 * the same code again from primitive N: read-only steps read afresh; a wait takes an event the parent was
 * sent before the fork point that no kept wait took (it is copied), else one sent to the fork; a side-effecting step that repeats the parent's (the same primitive with the same arguments)
 * takes the parent's key and answers from its record (fork-keys.ts, the door's related-effects.ts).
 *
 * Children after the fork point are the fork's own: their ids are made from the fork's run id
 * (childrenRootOf), never the parent's, whose children wake the parent.
 */
import type { JournalEvent, RecordedEvent } from '../journal/events';
import { RunState } from '../projection/run-state';
import type { ForkOrigin, ForkPlan, ForkRequest, RepeatableSideEffect } from './fork-types';

type Refuse = (why: 'no-such-step' | 'invalid-edit', detail: string) => never;

/** The primitive an event belongs to (its index, from 0), or undefined for an event of the whole run. */
export function primitiveOf(event: RecordedEvent | JournalEvent): number | undefined {
  const id = 'toolCallId' in event ? event.toolCallId : 'waitId' in event ? event.waitId : undefined;
  const match = typeof id === 'string' ? /^wf-(\d+)$/.exec(id) : null;
  return match ? Number(match[1]) : undefined;
}

/** The primitives a workflow run recorded, in id order: each one's id, kind and name. */
export interface RecordedPrimitive {
  id: string;
  kind: 'step' | 'sleep' | 'event' | 'children';
  name: string;
}

export function recordedPrimitives(events: readonly RecordedEvent[]): RecordedPrimitive[] {
  const state = new RunState(events);
  const seen = new Set<number>();
  for (const event of events) {
    const index = primitiveOf(event);
    if (index !== undefined) seen.add(index);
  }
  return [...seen]
    .sort((a, b) => a - b)
    .flatMap((index): RecordedPrimitive[] => {
      const id = `wf-${index}`;
      const wait = state.workflowWaits.get(id);
      if (wait) return [{ id, kind: wait.wait.kind, name: wait.name }];
      const name = state.operationOfCall(id)?.toolName ?? state.approvals.get(id)?.toolName;
      return name ? [{ id, kind: 'step', name }] : [];
    });
}

export function planWorkflowFork(
  request: ForkRequest,
  events: readonly RecordedEvent[],
  args: { notCopied: ReadonlySet<JournalEvent['type']>; withoutPlace: (event: RecordedEvent) => JournalEvent; refuse: Refuse },
): ForkPlan {
  const { runId, atStep, by, reason, edit } = request;
  const { refuse } = args;
  const parent = new RunState(events);
  const first = atStep - 1;
  const forkEvent = events.find((event) => primitiveOf(event) === first);
  if (!forkEvent) return refuse('no-such-step', `it recorded ${recordedPrimitives(events).length} workflow steps (steps count from 1)`);
  const forkSeq = forkEvent.seq;
  const keptEvents = events.filter((event) => {
    if (event.seq >= forkSeq || args.notCopied.has(event.type)) return false;
    const index = primitiveOf(event);
    return index === undefined || index < first;
  });
  const atForkPoint = new RunState(keptEvents);
  for (let index = 0; index < first; index++) {
    if (!settled(atForkPoint, `wf-${index}`)) {
      refuse('invalid-edit', `step ${index + 1} had not finished when step ${atStep} began (a branch beside it): fork at step ${index + 1} or earlier`);
    }
  }
  const history = keptEvents.map(args.withoutPlace);
  if (edit && 'instruction' in edit)
    refuse('invalid-edit', 'a workflow has no model to give an instruction to: edit the result of the step before, or choose a version');
  if (edit && 'toolResult' in edit) editStepResult(history, atForkPoint, edit.toolResult, { atStep, by, reason, refuse });
  const repeatable = repeatableFrom(events, first, parent.input?.forkOf);
  const inputAtFork = atForkPoint.input ?? parent.input;
  if (!inputAtFork?.workflow) return refuse('invalid-edit', 'the run has no workflow input');
  const version = edit && 'version' in edit ? edit.version : undefined;
  const forkOf: ForkOrigin = {
    runId,
    atStep,
    by,
    reason,
    rootRunId: parent.forkRootOf(runId),
    ...(edit && 'toolResult' in edit ? { editedToolCallId: edit.toolResult.toolCallId } : {}),
    ...(version !== undefined ? { version } : {}),
    inheritedKeys: repeatable.map(({ toolName, input, idempotencyKey, toolCallId }) => ({
      toolName,
      input,
      idempotencyKey,
      ...(toolCallId ? { toolCallId } : {}),
    })),
    copiedEvents: history.length,
  };
  // A fork of a child run is a run of its own: it answers no parent's wait.
  const { parent: _childOf, ...own } = inputAtFork;
  const workflow = version !== undefined ? { ...inputAtFork.workflow, version } : inputAtFork.workflow;
  return { input: { ...own, workflow, forkOf }, history, forkSeq, repeatable };
}

/** A primitive that ended before the fork point: a step with a result (or refused), a wait with its end. */
function settled(state: RunState, id: string): boolean {
  const wait = state.workflowWaits.get(id);
  if (wait) return wait.end !== undefined;
  const op = state.operationOfCall(id);
  if (op) return op.result !== undefined && !op.inFlight;
  return state.approvals.get(id)?.decision?.approved === false;
}

/** The kept end of step N-1 carries the operator's output, as a provided result (by, reason). */
function editStepResult(
  history: JournalEvent[],
  state: RunState,
  edit: { toolCallId: string; output: unknown },
  args: { atStep: number; by: string; reason: string; refuse: Refuse },
): void {
  const last = `wf-${args.atStep - 2}`;
  if (edit.toolCallId !== last) {
    args.refuse('invalid-edit', `${edit.toolCallId} is not step ${args.atStep - 1} (${last}), the last step the fork keeps: only its result may change`);
  }
  const index = history.findLastIndex((event) => event.type === 'tool-call-end' && event.toolCallId === edit.toolCallId);
  if (index < 0 || state.workflowWaits.has(last)) args.refuse('invalid-edit', `step ${args.atStep - 1} is not a step with a recorded result`);
  const end = history[index] as Extract<JournalEvent, { type: 'tool-call-end' }>;
  history[index] = { ...end, output: edit.output, source: 'provided', by: args.by, reason: args.reason };
}

/**
 * The parent's side effects of primitive N and later (in the parent's order), each with its call id, then
 * those the parent inherited (each key once). A fork's step that is the same primitive with the same
 * arguments takes its key (fork-keys.ts).
 */
function repeatableFrom(events: readonly RecordedEvent[], first: number, parentFork: ForkOrigin | undefined): RepeatableSideEffect[] {
  const state = new RunState(events);
  const out: RepeatableSideEffect[] = [];
  const seen = new Set<string>();
  const kept = new Set<string>();
  for (const event of events) {
    if (event.type !== 'tool-call-start') continue;
    const index = primitiveOf(event);
    if (index !== undefined && index < first) kept.add(event.idempotencyKey);
  }
  for (const event of events) {
    if (event.type !== 'tool-call-start' || !event.sideEffect) continue;
    const index = primitiveOf(event);
    if (index === undefined || index < first || kept.has(event.idempotencyKey) || seen.has(event.idempotencyKey)) continue;
    seen.add(event.idempotencyKey);
    const op = state.operations.get(event.idempotencyKey);
    const outcome = op?.result?.kind === 'output' ? 'done' : op?.result?.kind === 'error' ? 'error' : 'unknown';
    out.push({ toolName: event.toolName, input: event.input, idempotencyKey: event.idempotencyKey, toolCallId: event.toolCallId, step: index + 1, outcome });
  }
  for (const inherited of parentFork?.inheritedKeys ?? []) {
    if (seen.has(inherited.idempotencyKey) || kept.has(inherited.idempotencyKey)) continue;
    seen.add(inherited.idempotencyKey);
    out.push({ ...inherited, outcome: 'inherited' });
  }
  return out;
}

/** A workflow's fork at `atStep` may replace the result of step atStep-1 when it is a step that recorded an output. */
export function editableStepResult(events: readonly RecordedEvent[], atStep: number): { toolCallId: string; toolName: string; output: unknown }[] {
  const id = `wf-${atStep - 2}`;
  const forkSeq = events.find((event) => primitiveOf(event) === atStep - 1)?.seq ?? Number.POSITIVE_INFINITY;
  const end = events.findLast((event) => event.seq < forkSeq && event.type === 'tool-call-end' && event.toolCallId === id);
  return end?.type === 'tool-call-end' ? [{ toolCallId: id, toolName: end.toolName, output: end.output }] : [];
}
