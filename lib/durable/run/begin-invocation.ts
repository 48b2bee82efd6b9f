/**
 * How an invocation begins: load the run, check it is the same job, answer at once when there is
 * nothing to do (canceled, still waiting with nothing decided), else record `run-resume`.
 *
 * Decisions, cancels and resume requests land from anywhere under the run's row lock, and `run-resume`
 * clears what the run waits for. So the resume is appended only if nothing was recorded after the event
 * this invocation loaded (RunHold.appendAfter): whatever committed before it is seen, because a moved
 * run is loaded and planned again; whatever comes after finds the run executing and is refused as
 * 'run-executing' (decisions.ts). Without this a reject landing in between was cleared unseen, the run
 * asked again, and a later approve executed a call a person had rejected.
 */
import { type Divergence, RunDivergedError, RunMovedError } from '../errors';
import { assertEventRoom } from '../journal/event-limit';
import { errorInfo, type JournalEvent, type PendingItem, type RunInput, type TraceContext } from '../journal/events';
import type { RunHold } from '../journal/journal';
import { markJournaledFailure } from './journaled-failure';
import { runInputDifferences } from './run-input';
import { RunState } from '../projection/run-state';

/**
 * Loads and plans again at most this many times. Each retry means another write committed in the few
 * milliseconds between a load and an append; this many in a row is a run being written to in a loop.
 */
export const MAX_BEGIN_ATTEMPTS = 10;

export type ApprovalItem = Extract<PendingItem, { kind: 'approval' }>;
export type ToolResultItem = Extract<PendingItem, { kind: 'tool-result' }>;

export type Beginning =
  /** Execute (replaying what is recorded): `state` includes this invocation's run-start or run-resume. */
  | { kind: 'execute'; state: RunState }
  | { kind: 'canceled'; by: string; reason?: string; state: RunState }
  /** Waiting for approvals, none decided or expired: nothing was appended. */
  | { kind: 'waiting-approval'; pending: ApprovalItem[]; state: RunState }
  /** Waiting only for results of tools without execute, none provided: nothing was appended. */
  | { kind: 'waiting-tool-result'; pending: ToolResultItem[]; state: RunState };

/**
 * Whether a run whose recorded start input differs from this invocation's may go on with this one
 * (runDurable's `acceptChange`): who and why, journaled as `run-migrate` before the run-resume; undefined refuses.
 */
export type AcceptChange = (change: { differences: Divergence[]; state: RunState; given: RunInput }) => { by: string; reason: string } | undefined;

export async function beginInvocation(args: {
  hold: RunHold;
  /** This invocation's start input, compared with the recorded one (its last run-migrate's, else its run-start's). */
  input: RunInput;
  /** The run's events-per-run limit. */
  maxEvents: number;
  /** Default: a differing input is refused (RunDivergedError). */
  acceptChange?: AcceptChange;
  /** The invocation's span for the run as loaded (tracing.ts), recorded in its run-start or run-resume. */
  traceFor?: (state: RunState) => TraceContext | undefined;
}): Promise<Beginning> {
  const { hold, input, maxEvents, acceptChange, traceFor } = args;
  for (let attempt = 1; ; attempt++) {
    const events = await hold.load();
    const state = new RunState(events);
    if (state.lastSeq === 0) {
      const trace = traceFor?.(state);
      try {
        state.apply(await hold.create(input, trace ? { trace } : {}));
        return { kind: 'execute', state };
      } catch (error) {
        // Created by another invocation after this one read it (RunMovedError): loaded and planned again.
        if (!RunMovedError.isInstance(error) || attempt >= MAX_BEGIN_ATTEMPTS) throw error;
        continue;
      }
    }
    const differences = state.input ? runInputDifferences(state.input, input) : [];
    // A completed run is only replayed: it is never migrated.
    const migrate = differences.length > 0 && state.status !== 'completed' ? migrationEvent(state, input, differences, acceptChange) : undefined;
    if (differences.length > 0 && !migrate) throw new RunDivergedError({ runId: hold.runId, differences });
    if (state.canceled) return { kind: 'canceled', ...state.canceled, state };
    const stillWaiting = undecidedApprovals(state);
    if (stillWaiting) return { kind: 'waiting-approval', pending: stillWaiting, state };
    const resultsAwaited = unprovidedResults(state);
    if (resultsAwaited) return { kind: 'waiting-tool-result', pending: resultsAwaited, state };
    if (state.status === 'completed') return { kind: 'execute', state };
    await refuseResumeAtLimit(hold, state, maxEvents, migrate ? 2 : 1);
    const trace = traceFor?.(state);
    const resume: JournalEvent = { type: 'run-resume', fromStatus: state.status ?? 'running', ...(trace ? { trace } : {}) };
    try {
      for (const event of await hold.appendAfter(state.lastSeq, migrate ? [migrate, resume] : [resume])) state.apply(event);
      return { kind: 'execute', state };
    } catch (error) {
      if (!RunMovedError.isInstance(error) || attempt >= MAX_BEGIN_ATTEMPTS) throw error;
    }
  }
}

/** The run-migrate that lets the run go on with `input`, if acceptChange says so (a waiting run is migrated when it next executes). */
function migrationEvent(state: RunState, input: RunInput, differences: Divergence[], acceptChange: AcceptChange | undefined): JournalEvent | undefined {
  const accepted = acceptChange?.({ differences, state, given: input });
  if (!accepted) return undefined;
  const from = state.agentVersion;
  return {
    type: 'run-migrate',
    input,
    ...(from !== undefined ? { fromVersion: from } : {}),
    ...(input.agentVersion !== undefined ? { toVersion: input.agentVersion } : {}),
    changed: differences.map((d) => d.field),
    by: accepted.by,
    reason: accepted.reason,
  };
}

/**
 * A run with no room for its `run-resume` (and the `run-migrate` before it, when a version takes it over) is not resumed: RunEventLimitError. Its failure is recorded
 * (one event past the limit) unless it is failed already, so it never stays waiting or blocked with no
 * way to go on, and asking again writes nothing.
 */
async function refuseResumeAtLimit(hold: RunHold, state: RunState, limit: number, adding: number): Promise<void> {
  try {
    assertEventRoom({ runId: hold.runId, events: state.lastSeq, adding, limit });
  } catch (error) {
    const [failed] = state.status === 'failed' ? [] : await hold.append([{ type: 'run-fail', error: errorInfo(error) }]);
    const seq = failed?.seq ?? state.failedAt;
    if (seq !== undefined) markJournaledFailure(error, { runId: hold.runId, seq });
    throw error;
  }
}

/**
 * A run waiting for approvals with none decided (and none expired) has nothing to do: answer without
 * replaying or appending. A decision that commits after this load is kept for the next resume.
 */
function undecidedApprovals(state: RunState): ApprovalItem[] | undefined {
  if (state.status !== 'waiting-approval') return undefined;
  const items = state.pending.filter((item) => item.kind === 'approval');
  if (items.length === 0 || items.length !== state.pending.length) return undefined;
  const now = Date.now();
  if (items.some((item) => state.approvals.get(item.toolCallId)?.decision || (item.expiresAt && Date.parse(item.expiresAt) <= now))) return undefined;
  return items;
}

/** A run waiting only for tool results, none provided yet, has nothing to do either. */
function unprovidedResults(state: RunState): ToolResultItem[] | undefined {
  if (state.status !== 'waiting-tool-result') return undefined;
  const items = state.pending.filter((item): item is ToolResultItem => item.kind === 'tool-result');
  if (items.length === 0 || items.length !== state.pending.length) return undefined;
  if (items.some((item) => state.operations.get(item.idempotencyKey)?.result)) return undefined;
  return items;
}
