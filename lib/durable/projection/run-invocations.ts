/**
 * Part of the run projection: a run's invocations, each with how it began and how it ended, read from
 * the journal alone. An invocation begins with its `run-resume` (or, for a run runDurable created itself,
 * with `run-start`); a `run-resume` recorded after `run-start` with nothing done in between is the run's
 * first invocation (startRun journals the start, an executor then invokes it), not a resume. One that
 * finds the run still `running` after an invocation did work means that invocation stopped without
 * recording an end: its process died, or its executor gave it back or lost its lease. The gap between
 * its last event and the next begin is the interruption. A resumable fold (`throughSeq`), like
 * run-totals.ts: the server folds the whole journal once, the browser adds what arrives live.
 * Pure and browser-safe; takes recorded events or their wire form alike.
 */
import type { JournalEvent } from '../journal/events';
import type { RunStatus } from '../journal/run-status';

export type SeqAtEvent = JournalEvent & { seq: number; at: Date | string };

export type InvocationBegin =
  /** runDurable created the run and went on in the same call. */
  | 'created'
  /** The first invocation of a run queued by startRun (its first run-resume). */
  | 'first'
  /** The previous invocation stopped without an end (a crash, a lapsed lease, an executor that stopped). */
  | 'after-interruption'
  /** The run waited for people (approval, an uncertain side effect, a tool result) and was resumed. */
  | 'after-wait'
  /** The run failed and was resumed: by a person, or by the executor's automatic retry (`retry`). */
  | 'after-failure';

export type InvocationEnd =
  /** `text`: the run's answer, as its run-complete recorded it. */
  | { how: 'completed'; text: string; seq: number; at: number }
  | { how: 'suspended'; status: Extract<RunStatus, 'waiting-approval' | 'waiting-tool-result' | 'waiting' | 'blocked'>; seq: number; at: number }
  | { how: 'failed'; error: { name: string; message: string }; seq: number; at: number }
  | { how: 'canceled'; by: string; seq: number; at: number }
  /** No end recorded: the next invocation found the run still running. `at` is the last event it recorded. */
  | { how: 'interrupted'; seq: number; at: number };

export interface Invocation {
  /** The event that began it (run-resume, or run-start for `created`). */
  seq: number;
  /** When it began (epoch ms). */
  at: number;
  began: InvocationBegin;
  /** For `after-failure`: the executor's automatic retry that led to it (attempt of attempts), if it was one. */
  retry?: { by: string; attempt: number; attempts: number };
  /** For `after-wait`: who decided last before it (the person whose decision let it go on). */
  decidedBy?: string;
  /** Absent while it runs (or nothing has recorded its end yet). */
  end?: InvocationEnd;
}

export interface RunInvocations {
  /** The last event folded. */
  throughSeq: number;
  invocations: Invocation[];
  /** Fold state: the run was created (run-start) and no invocation has done any work since. */
  startedIdle: boolean;
  /** Fold state: a fork's run-start's instant. Events written in its transaction (its copy of its parent's history) are no invocation of this run. */
  createdAt?: number;
  /** Fold state: the last event's instant and seq (an interruption's stop). */
  last?: { seq: number; at: number };
  /** Fold state: the last automatic retry and decision since the last end. */
  pendingRetry?: { by: string; attempt: number; attempts: number };
  pendingDecisionBy?: string;
  /**
   * A person asked the run to go on now (`run-resume-request` without `resumeAt`) and no invocation has
   * begun since: who and when. The run is resuming, not waiting for anyone (the Studio shows one state).
   */
  resumeRequested?: { by: string; at: number; seq: number };
}

export const NO_INVOCATIONS: RunInvocations = { throughSeq: 0, invocations: [], startedIdle: false };

export const epochMs = (at: Date | string): number => new Date(at).getTime();

/** `folded` plus the events after its `throughSeq`. Never mutates `folded`. */
export function addToInvocations(folded: RunInvocations, events: readonly SeqAtEvent[]): RunInvocations {
  let next: RunInvocations | undefined;
  for (const e of events) {
    if (e.seq <= (next ?? folded).throughSeq) continue;
    next ??= { ...folded, invocations: folded.invocations.map((i) => ({ ...i })) };
    foldOne(next, e);
    next.throughSeq = e.seq;
  }
  return next ?? folded;
}

function foldOne(state: RunInvocations, e: SeqAtEvent): void {
  const at = epochMs(e.at);
  const current = state.invocations.at(-1);
  const open = current && !current.end ? current : undefined;
  if (e.type !== 'run-start' && state.createdAt === at) {
    // Written with the run-start, in its transaction: a fork's copy of its parent's history (fork-plan.ts),
    // the parent's invocations and waits, not this run's. Its first invocation comes after.
    state.last = { seq: e.seq, at };
    return;
  }
  const ended = (end: InvocationEnd) => {
    if (open) open.end = end;
    state.pendingRetry = undefined;
    state.pendingDecisionBy = undefined;
  };
  switch (e.type) {
    case 'run-start':
      state.invocations.push({ seq: e.seq, at, began: 'created' });
      state.startedIdle = true;
      // A fork's run-start comes with its copy of the parent's history, in one transaction (journal.fork).
      state.createdAt = (e.input as { forkOf?: unknown } | undefined)?.forkOf ? at : undefined;
      break;
    case 'run-resume-request':
      if (!e.resumeAt) state.resumeRequested = { by: e.by, at, seq: e.seq };
      break;
    case 'run-resume': {
      state.resumeRequested = undefined;
      const began = beginOf(state, e.fromStatus, open);
      if (open && began === 'after-interruption' && state.last) open.end = { how: 'interrupted', ...state.last };
      if (began === 'first') state.invocations.pop(); // the run-start only queued the run: no invocation began there
      state.invocations.push({
        seq: e.seq,
        at,
        began,
        ...(began === 'after-failure' && state.pendingRetry ? { retry: state.pendingRetry } : {}),
        ...(began === 'after-wait' && state.pendingDecisionBy ? { decidedBy: state.pendingDecisionBy } : {}),
      });
      state.startedIdle = false;
      state.pendingRetry = undefined;
      state.pendingDecisionBy = undefined;
      break;
    }
    case 'model-step':
    case 'tool-call-start':
    case 'tool-call-end':
    case 'tool-call-error':
    case 'tool-call-repair':
    case 'side-effect-check':
    case 'replay-mismatch':
    case 'workflow-wait':
    case 'workflow-wait-end':
      state.startedIdle = false;
      break;
    case 'run-suspend':
      ended({ how: 'suspended', status: e.status, seq: e.seq, at });
      break;
    case 'run-complete':
      ended({ how: 'completed', text: e.text, seq: e.seq, at });
      break;
    case 'run-fail':
      ended({ how: 'failed', error: e.error, seq: e.seq, at });
      break;
    case 'run-cancel':
      state.resumeRequested = undefined;
      if (open) open.end = { how: 'canceled', by: e.by, seq: e.seq, at };
      break;
    case 'run-retry':
      state.pendingRetry = { by: e.by, attempt: e.attempt + 1, attempts: e.attempts };
      if (!e.retryAt) state.pendingRetry = undefined;
      break;
    case 'tool-approval-response':
    case 'side-effect-resolution':
      state.pendingDecisionBy = e.by;
      break;
    default:
      break;
  }
  state.last = { seq: e.seq, at };
}

function beginOf(state: RunInvocations, fromStatus: RunStatus, open: Invocation | undefined): InvocationBegin {
  if (fromStatus === 'running') return state.startedIdle && open?.began === 'created' && state.invocations.length === 1 ? 'first' : 'after-interruption';
  if (fromStatus === 'failed') return 'after-failure';
  return 'after-wait';
}
