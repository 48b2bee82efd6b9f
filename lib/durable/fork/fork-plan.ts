/**
 * A fork, planned from the parent's journal: a pure function of its events (no storage, no clock), so
 * the preview an operator reads and the fork the journal writes are the same plan.
 *
 * Steps count from 1, as the Studio's timeline names them ("Model step 2" is the journal's step 1). A
 * fork at step N keeps the parent's history up to and including step N-1's tool results (every event
 * before the parent's step-N model-step) and asks the model again at step N. The kept history is
 * copied into the fork's own journal, so replaying it calls neither the model nor a tool, and the fork
 * is self-contained (it never reads its parent again). What is not copied: the parent's own run-start
 * (the fork writes its own, `input.forkOf` naming the parent), its forks and restarts, cancels and resume requests
 * (operator acts on the parent, not history the fork replays), its run-fail and run-complete events
 * (an invocation's ending; the fork's invocations record their own) and its replay mismatches.
 *
 * Keys: the copied events keep their idempotency keys; calls the fork makes after the fork point get
 * keys by fork-keys.ts, from `forkOf.rootRunId` and `forkOf.inheritedKeys` (the parent's side effects
 * after the fork point, then those the parent itself inherited), so a repeated refund is sent under the
 * key the outside service already knows.
 */
import { ForkRefusedError } from '../errors';
import type { JournalEvent, RecordedEvent } from '../journal/events';
import type { ForkOrigin, ForkPlan, ForkRequest, RepeatableSideEffect } from './fork-types';
import { RunState } from '../projection/run-state';
import { editableStepResult, planWorkflowFork } from './workflow-fork-plan';

export type { ForkEdit, ForkOrigin, ForkPlan, ForkRequest, InheritedKey, RepeatableSideEffect } from './fork-types';

/** Event types that are the parent's invocations or operator acts, not history a fork replays. */
const NOT_COPIED = new Set<JournalEvent['type']>([
  'run-start',
  'run-forked',
  'run-restarted',
  'run-imported',
  'run-cancel',
  'run-resume-request',
  'run-fail',
  'run-complete',
  'replay-mismatch',
]);

export function planFork(request: ForkRequest, events: readonly RecordedEvent[]): ForkPlan {
  const { runId, atStep, by, reason, edit } = request;
  const refuse = (why: ForkRefusedError['reason'], detail: string): never => {
    throw new ForkRefusedError({ runId, atStep, reason: why, detail });
  };
  const parent = new RunState(events);
  if (!parent.input) return refuse('unknown-run', 'the run has no run-start in the journal');
  // A workflow's steps are its primitives, not model steps (workflow-fork-plan.ts).
  if (parent.input.workflow) return planWorkflowFork(request, events, { notCopied: NOT_COPIED, withoutPlace, refuse });
  if (edit && 'version' in edit)
    return refuse('invalid-edit', "a version is chosen for a workflow's fork; an agent's fork runs its agent as the registry holds it");
  const forkEvent = events.find((event) => event.type === 'model-step' && event.step === atStep - 1);
  if (!forkEvent) return refuse('no-such-step', `it has ${parent.recordedSteps().length} recorded model steps (steps count from 1)`);
  const forkSeq = forkEvent.seq;
  const kept = events.filter((event) => event.seq < forkSeq && !NOT_COPIED.has(event.type));
  const history = kept.map(withoutPlace);
  if (edit && 'toolResult' in edit) editToolResult(history, parent, edit.toolResult, { atStep, by, reason, refuse });
  const repeatable = repeatableAfter(events, forkSeq, parent.input.forkOf);
  const forkOf: ForkOrigin = {
    runId,
    atStep,
    by,
    reason,
    rootRunId: parent.forkRootOf(runId),
    ...(edit && 'instruction' in edit ? { instruction: edit.instruction } : {}),
    ...(edit && 'toolResult' in edit ? { editedToolCallId: edit.toolResult.toolCallId } : {}),
    inheritedKeys: repeatable.map(({ toolName, input, idempotencyKey }) => ({ toolName, input, idempotencyKey })),
    copiedEvents: history.length,
  };
  // The input the parent had at the fork point: the version that asked the kept steps (a parent migrated
  // after the fork point asked them with another prompt or tools; on the later version the fork's replay of
  // its kept steps would not ask what was asked, and journal replay-mismatches for history it never had).
  const atForkPoint = new RunState(events.filter((event) => event.seq < forkSeq)).input ?? parent.input;
  // A fork of a child run is a run of its own: it answers no parent's wait (its settling must not wake or answer one).
  const { parent: _childOf, ...own } = atForkPoint;
  return { input: { ...own, forkOf }, history, forkSeq, repeatable };
}

function withoutPlace(event: RecordedEvent): JournalEvent {
  const { seq: _seq, at: _at, ...rest } = event as RecordedEvent & Record<string, unknown>;
  return rest as unknown as JournalEvent;
}

/**
 * The copied end of a call of step atStep-1 carries the operator's output instead, as a provided result
 * (by, reason): the model at step atStep reads it. Only that step's calls: an earlier call's result is
 * in the prompts of the kept steps after it, which would no longer be what those steps were asked.
 */
/** A call of the last step a fork keeps, whose recorded output a fork may replace (ForkEdit toolResult). */
export interface EditableResult {
  toolCallId: string;
  toolName: string;
  /** The output its end recorded, as the model read it. */
  output: unknown;
}

/**
 * The calls a fork at `atStep` may edit the result of: those of step atStep-1 (the last step kept) that
 * recorded an output, in the step's order. None for atStep 1 (no step is kept).
 */
export function editableResults(events: readonly RecordedEvent[], atStep: number): EditableResult[] {
  const parent = new RunState(events);
  if (parent.input?.workflow) return editableStepResult(events, atStep);
  const forkSeq = events.find((event) => event.type === 'model-step' && event.step === atStep - 1)?.seq ?? Number.POSITIVE_INFINITY;
  const out: EditableResult[] = [];
  for (const toolCallId of callsOfStep(parent, atStep)) {
    const end = events.findLast((event) => event.seq < forkSeq && event.type === 'tool-call-end' && event.toolCallId === toolCallId);
    if (end?.type === 'tool-call-end') out.push({ toolCallId, toolName: end.toolName, output: end.output });
  }
  return out;
}

/** The tool call ids of step atStep-1 (the last step a fork at atStep keeps), in the step's order. */
function callsOfStep(parent: RunState, atStep: number): string[] {
  const lastKept = parent.recordedSteps().find((step) => step.step === atStep - 2);
  return ((lastKept?.result as { content?: { type?: string; toolCallId?: string }[] } | undefined)?.content ?? [])
    .filter((part) => part.type === 'tool-call' && typeof part.toolCallId === 'string')
    .map((part) => part.toolCallId as string);
}

function editToolResult(
  history: JournalEvent[],
  parent: RunState,
  edit: { toolCallId: string; output: unknown },
  args: { atStep: number; by: string; reason: string; refuse: (why: 'invalid-edit', detail: string) => never },
): void {
  if (!callsOfStep(parent, args.atStep).includes(edit.toolCallId))
    args.refuse('invalid-edit', `call ${edit.toolCallId} is not a tool call of step ${args.atStep - 1}, the last step the fork keeps`);
  const index = history.findLastIndex((event) => event.type === 'tool-call-end' && event.toolCallId === edit.toolCallId);
  if (index < 0) args.refuse('invalid-edit', `call ${edit.toolCallId} has no recorded output to replace`);
  const end = history[index] as Extract<JournalEvent, { type: 'tool-call-end' }>;
  history[index] = { ...end, output: edit.output, source: 'provided', by: args.by, reason: args.reason };
}

/** The parent's side effects first started after the fork point, in its order, then those the parent inherited (each key once). */
function repeatableAfter(events: readonly RecordedEvent[], forkSeq: number, parentFork: ForkOrigin | undefined): RepeatableSideEffect[] {
  const state = new RunState(events);
  const startedBefore = new Set<string>();
  const out: RepeatableSideEffect[] = [];
  const seen = new Set<string>();
  let step = 0;
  for (const event of events) {
    if (event.type === 'model-step') step = event.step + 1;
    if (event.type !== 'tool-call-start') continue;
    if (event.seq < forkSeq) startedBefore.add(event.idempotencyKey);
    if (event.seq < forkSeq || !event.sideEffect || startedBefore.has(event.idempotencyKey) || seen.has(event.idempotencyKey)) continue;
    seen.add(event.idempotencyKey);
    const op = state.operations.get(event.idempotencyKey);
    const outcome = op?.result?.kind === 'output' ? 'done' : op?.result?.kind === 'error' ? 'error' : 'unknown';
    out.push({ toolName: event.toolName, input: event.input, idempotencyKey: event.idempotencyKey, toolCallId: event.toolCallId, step, outcome });
  }
  for (const inherited of parentFork?.inheritedKeys ?? []) {
    if (seen.has(inherited.idempotencyKey) || startedBefore.has(inherited.idempotencyKey)) continue;
    seen.add(inherited.idempotencyKey);
    out.push({ ...inherited, outcome: 'inherited' });
  }
  return out;
}
