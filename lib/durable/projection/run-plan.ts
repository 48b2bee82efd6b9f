/**
 * What happens to a tool call, decided from the run projection (run-state.ts) and the tool's
 * declaration, in one decision tree that both the tool gate (which acts on it while the run executes)
 * and `planResume` (which says, before a person resumes a run, what the next invocation will do with
 * each call) read, so a preview can never follow other rules than the resume. Pure and browser-safe.
 *
 * The tree, in order: a canceled run runs nothing; a rejected call is denied (the model sees the
 * refusal); a call with a recorded result is replayed; an undecided approval waits, or expires; a call
 * with no approval recorded asks the approval policy (user code: only the gate can run it); a tool
 * without execute waits for its result; a side effect that started with no recorded outcome follows the
 * unknown-outcome rule (`unknownOutcomeRule`); anything else executes (again, if it was tried before).
 */
import type { Decision, JournalEvent } from '../journal/events';
import type { ApprovalState, RunState, ToolOperation } from './run-state';
import type { RunStatus } from '../journal/run-status';

/** How a tool is declared, as far as deciding a call needs (gnlTool's options and whether it has execute). */
export interface ToolDeclaration {
  sideEffect: boolean;
  idempotency: 'call' | 'args';
  retrySafe: boolean;
  /** It has a check that asks the outside system by key after an unknown outcome. */
  check: boolean;
  /** It has execute (a tool without one is answered through journal.provideToolResult). */
  executes: boolean;
  /** Whether a call needs a person's approval: 'per-call' when a function decides it for each input. */
  needsApproval: boolean | 'per-call';
}

/** The unknown-outcome rule (unknown-outcome.ts applies it): run again when the outside system deduplicates, else ask its check, else block. */
export function unknownOutcomeRule(declaration: Pick<ToolDeclaration, 'retrySafe' | 'check'>): 'run-again' | 'check' | 'block' {
  if (declaration.retrySafe) return 'run-again';
  return declaration.check ? 'check' : 'block';
}

/** What the approval part of the tree says about a call. */
export type ApprovalVerdict =
  | { kind: 'canceled' }
  | { kind: 'denied'; decision: NonNullable<ApprovalState['decision']> }
  | { kind: 'replay' }
  | { kind: 'expired'; approval: ApprovalState }
  | { kind: 'waiting-approval'; approval: ApprovalState }
  | { kind: 'ask-policy' }
  /** Approved (by a person or a policy), or no approval was asked: the execution part decides. */
  | { kind: 'cleared'; approval?: ApprovalState };

export function approvalVerdict(args: { state: RunState; toolCallId: string; key: string; canceled: boolean; now: number }): ApprovalVerdict {
  const { state, toolCallId, key, canceled, now } = args;
  if (canceled) return { kind: 'canceled' };
  const approval = state.approvals.get(toolCallId);
  if (approval?.decision && !approval.decision.approved) return { kind: 'denied', decision: approval.decision };
  if (state.operations.get(key)?.result) return { kind: 'replay' };
  if (approval && !approval.decision) {
    if (approval.expiresAt && Date.parse(approval.expiresAt) <= now) return { kind: 'expired', approval };
    return { kind: 'waiting-approval', approval };
  }
  if (!approval) return { kind: 'ask-policy' };
  return { kind: 'cleared', approval };
}

/** What the execution part of the tree says about a call that is cleared to run. */
export type ExecutionVerdict =
  | { kind: 'waiting-result' }
  | { kind: 'unknown-outcome'; op: ToolOperation; rule: 'run-again' | 'check' | 'block' }
  /** `again`: it was tried before (its outcome marked not done, or a read-only call that threw). */
  | { kind: 'execute'; again: boolean };

export function executionVerdict(args: {
  state: RunState;
  key: string;
  declaration: Pick<ToolDeclaration, 'executes' | 'retrySafe' | 'check'>;
}): ExecutionVerdict {
  const { state, key, declaration } = args;
  if (!declaration.executes) return { kind: 'waiting-result' };
  const op = state.operations.get(key);
  if (op?.inFlight && op.sideEffect && op.resolution !== 'not-done') return { kind: 'unknown-outcome', op, rule: unknownOutcomeRule(declaration) };
  return { kind: 'execute', again: op !== undefined && op.attempts > 0 };
}

export type PlannedAction =
  /** Its recorded result is given to the model again; nothing runs. */
  | 'replays'
  | 'executes'
  | 'executes-again'
  /** A side effect with no recorded outcome: its check asks the outside system first. */
  | 'checked-first'
  /** A side effect with no recorded outcome, neither retrySafe nor checkable: the run blocks for a person. */
  | 'blocks'
  /** Rejected, expired or canceled: it does not run. */
  | 'not-run'
  /** It waits: for an approval, or for a provided result. */
  | 'waits'
  /** No approval is recorded: the approval policy decides first (then it executes if approved or not needed). */
  | 'asks-policy'
  /** The tool's declaration is not known here (no registered agent declares it): what it does depends on it. */
  | 'depends-on-declaration';

export interface PlannedCall {
  toolCallId: string;
  toolName: string;
  /** The idempotency key it runs (or ran) under, when the journal holds it; computed at execution otherwise. */
  idempotencyKey?: string;
  action: PlannedAction;
  /** Why, in a sentence fragment: the decision, or the journal's state. */
  why: string;
  /** The call's latest decision (a person's or a policy's), when it has one. */
  decision?: Decision;
}

/**
 * The part of a journal planResume reads: from its last model step on. Given the part kept so far and the
 * next page of events, the part to keep; a reader pages through a journal holding only this much.
 */
export function fromLastModelStep<E extends { type: string }>(kept: readonly E[], page: readonly E[]): E[] {
  const last = page.findLastIndex((event) => event.type === 'model-step');
  return last < 0 ? [...kept, ...page] : page.slice(last);
}

/**
 * What the next invocation of the run does with each tool call it meets. It replays the recorded model
 * steps; the calls of the last one are the ones the tool gate decides again (every earlier step's calls
 * have results), so the plan reads only the last model step and what follows it: a tail of the journal
 * that holds the last model step plans the same as the whole journal. A run that is canceled or
 * completed plans nothing; a last step whose calls all have results means the model is asked next.
 * `declarations`: each tool's, by name (undefined: none known). `keyOf`: the key of a call that never
 * started (server side, where keys can be computed); without it such a call's key is left out.
 */
export function planResume(args: {
  state: RunState;
  declarations: Record<string, ToolDeclaration> | undefined;
  now: number;
  keyOf?: (call: { toolCallId: string; toolName: string; input: unknown }) => string;
  /** The run's status when `state` was folded from a tail that may hold no status event (the summary's). */
  status?: RunStatus;
}): PlannedCall[] {
  const { state, declarations, now, keyOf } = args;
  const status = args.status ?? state.status;
  if (status === 'canceled' || status === 'completed') return [];
  const out: PlannedCall[] = [];
  for (const call of state.lastStepCalls()) {
    const key = state.keyOfCall.get(call.toolCallId) ?? keyOf?.(call);
    const decision = state.decisionOf(call.toolCallId);
    const base = { toolCallId: call.toolCallId, toolName: call.toolName, ...(key ? { idempotencyKey: key } : {}), ...(decision ? { decision } : {}) };
    out.push({ ...base, ...planCall(state, call.toolCallId, key, declarations?.[call.toolName], declarations !== undefined, now) });
  }
  return out;
}

function planCall(
  state: RunState,
  toolCallId: string,
  key: string | undefined,
  declaration: ToolDeclaration | undefined,
  declarationsKnown: boolean,
  now: number,
): Pick<PlannedCall, 'action' | 'why'> {
  const approval = approvalVerdict({ state, toolCallId, key: key ?? '', canceled: false, now });
  const decided = state.decisionOf(toolCallId);
  switch (approval.kind) {
    case 'canceled':
      return { action: 'not-run', why: 'the run is canceled' };
    case 'denied':
      return approval.decision.policy
        ? {
            action: 'not-run',
            why: `denied by its approval policy${approval.decision.reason ? `: ${approval.decision.reason}` : ''}; the model sees the refusal`,
          }
        : { action: 'not-run', why: `rejected by ${approval.decision.by}; the model sees the refusal` };
    case 'replay':
      if (decided?.outcome === 'done') return { action: 'replays', why: `marked done by ${decided.by}; the output given is its result` };
      if (decided?.outcome === 'provided') return { action: 'replays', why: `its result was provided by ${decided.by}` };
      return { action: 'replays', why: 'its result is recorded' };
    case 'expired':
      return { action: 'not-run', why: `its approval expired at ${approval.approval.expiresAt}; the model sees it as rejected` };
    case 'waiting-approval':
      return { action: 'waits', why: 'it waits for a person to approve or reject it' };
    case 'ask-policy':
      if (!declarationsKnown)
        return { action: 'depends-on-declaration', why: 'no approval is recorded; whether it needs one depends on how the tool is declared' };
      if (!declaration) return { action: 'not-run', why: 'the agent declares no tool of this name: the model is told so' };
      if (declaration.needsApproval === true) return { action: 'waits', why: 'it needs approval: the run asks a person again' };
      if (declaration.needsApproval === 'per-call') return { action: 'asks-policy', why: 'no approval is recorded: its approval policy decides first' };
      break;
    case 'cleared':
      if (declarationsKnown && !declaration) return { action: 'not-run', why: 'the agent declares no tool of this name: the model is told so' };
      break;
  }
  if (!declaration) {
    return {
      action: 'depends-on-declaration',
      why: 'what happens depends on how the tool is declared (a side effect with no outcome is retried if retrySafe, else its check, else the run blocks)',
    };
  }
  const approvedBy = approval.kind === 'cleared' && approval.approval?.decision ? approval.approval.decision : undefined;
  const execution = executionVerdict({ state, key: key ?? '', declaration });
  switch (execution.kind) {
    case 'waiting-result':
      return { action: 'waits', why: 'the tool has no execute: the run waits for its result to be provided' };
    case 'unknown-outcome':
      if (execution.rule === 'run-again') return { action: 'executes-again', why: 'started with no outcome recorded; the tool is retrySafe, so it runs again' };
      if (execution.rule === 'check') {
        return {
          action: 'checked-first',
          why: 'started with no outcome recorded; its check asks the service by key first: done takes its output, not done runs it again, unknown blocks the run',
        };
      }
      return {
        action: 'blocks',
        why: 'started with no outcome recorded, no check and not retrySafe: not run on a guess; the run blocks for a person to mark it done or not done',
      };
    case 'execute': {
      if (decided?.outcome === 'not-done') return { action: 'executes-again', why: `marked not done by ${decided.by}` };
      if (execution.again) return { action: 'executes-again', why: 'its last attempt threw (read-only: tried again)' };
      if (approvedBy?.policy) return { action: 'executes', why: 'approved by its approval policy' };
      if (approvedBy) return { action: 'executes', why: `approved by ${approvedBy.by}` };
      return { action: 'executes', why: 'it needs no approval' };
    }
  }
}

/**
 * What an append does to the side effects waiting for an outcome, by key: the starts it records and the
 * outcomes (an end or an error) it records. The run keeps room under its event limit for each waiting
 * one, so a side effect never executes with nowhere to record that it did (run-session.ts).
 */
export function outcomeChanges(events: readonly JournalEvent[]): { starts: string[]; outcomes: string[] } {
  const starts: string[] = [];
  const outcomes: string[] = [];
  for (const event of events) {
    if (event.type === 'tool-call-start' && event.sideEffect) starts.push(event.idempotencyKey);
    else if (event.type === 'tool-call-end' || event.type === 'tool-call-error') outcomes.push(event.idempotencyKey);
  }
  return { starts, outcomes };
}
