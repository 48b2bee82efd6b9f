/**
 * What an operator does from the Studio, each one call into the runtime: approve, reject, settle a side
 * effect, provide the result of a tool without execute (journal.approve / reject / resolveSideEffect /
 * provideToolResult), resume (the in-process executor's resumeRun,
 * which journals who asked and why), cancel (cancelRun), start a demo run (the executor's startRun).
 * Server-only. The server actions in app/(studio)/actions.ts authenticate and parse, then call exactly
 * one of these.
 *
 * After a decision, the run is resumed by this server's executor once nothing it waits for is left
 * undecided (on the embedded journal it is the only executor), in the deciding operator's name with the
 * decision as the reason. Conflicts (someone decided first, the run finished) are results, never
 * thrown, so the page can say who decided and when.
 */
import 'server-only';
import { ZodError } from 'zod';
import { AgentInputError } from '@/lib/agents';
import type { CrashPoint } from '@/lib/demo';
import {
  type Decision,
  ApprovalRuleError,
  DecisionConflictError,
  type DecisionConflictReason,
  InvalidRunIdError,
  JournalDataError,
  type OutputIssue,
  type PendingItem,
  RunErasedError,
  RunRetiredError,
  RunState,
} from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { registry } from '@/agents';
import { cancelRun, type DecisionRequest, getExecutor, RunNotResumableError, recordDecision, resumeAfterDecision, scheduleResume } from '@/lib/executor';
import { demoCrashPoints, startSupportRun } from '../demo';

export type Refusal =
  /** `forbidden`: the operator's role does not allow it (lib/accounts/authorize.ts). */
  | { ok: false; kind: 'unauthenticated' | 'forbidden' | 'error'; message: string }
  /** Bad input; `issues`: each field the tool's schema refused (all at once), for the form to show beside its fields. */
  | { ok: false; kind: 'invalid'; message: string; issues?: OutputIssue[] }
  /** Someone decided first (or the run finished, is executing, or the question expired): `reason` says which. */
  | {
      ok: false;
      kind: 'conflict';
      reason: DecisionConflictReason;
      message: string;
      decidedBy?: string;
      decidedAt?: string;
      outcome?: Decision['outcome'] | 'canceled';
      /** The first decision was this operator's own (a double click, a second tab): recorded, nothing was refused them. */
      yours?: boolean;
    }
  | { ok: false; kind: 'not-resumable'; message: string };

export type ActionResult<T extends object = object> = ({ ok: true } & T) | Refusal;

export interface ResumeNote {
  /** `failed`: the decision stands; resuming the run failed (the server's log says why), to be resumed from its page. */
  state: 'resumed' | 'waiting' | 'not-resumable' | 'failed';
  message: string;
}

export type { DecisionRequest } from '@/lib/executor';

/** Records one decision through the journal (the executor layer's recordDecision, as the HTTP API does), then resumes the run here when nothing else is left to decide. */
export async function decide(request: DecisionRequest): Promise<ActionResult<{ decision: Decision; resume: ResumeNote }>> {
  const { runId, toolCallId } = request;
  let decision: Decision;
  try {
    const recorded = await recordDecision(request, { registry });
    if (!recorded.ok) return recorded;
    decision = recorded.decision;
  } catch (error) {
    const refused = await refusal(error, runId, toolCallId);
    return refused.kind === 'conflict' && refused.reason === 'already-decided' && refused.decidedBy === request.by ? { ...refused, yours: true } : refused;
  }
  // Recorded: whatever the resume meets now, the decision stands and is said so (a failure here once read as
  // "the journal could not record this", and the operator's second click met their own decision).
  try {
    return { ok: true, decision, resume: await resumeWhenDecided(request, decision) };
  } catch (error) {
    console.error(`studio: the decision on ${runId} is recorded; resuming the run failed:`, error);
    return {
      ok: true,
      decision,
      resume: { state: 'failed', message: 'Recorded. Resuming the run failed (the Studio’s server log says why): resume it from its page.' },
    };
  }
}

/** After the last open decision, the deciding operator resumes the run, the decision its reason. */
async function resumeWhenDecided(request: DecisionRequest, decision?: Decision): Promise<ResumeNote> {
  if (decision?.outcome === 'counted' && decision.approvals) {
    const left = decision.approvals.needed - decision.approvals.given;
    return {
      state: 'waiting',
      message: `Your approval is counted: ${decision.approvals.given} of ${decision.approvals.needed}. ${left === 1 ? 'One more person approves' : `${left} more people approve`} before it runs.`,
    };
  }
  const next = resumeAfterDecision(request, await storageFromEnv().runs.getRun(request.runId));
  if (!next.resume)
    return {
      state: 'waiting',
      message: `Recorded. The run resumes once ${next.open === 1 ? 'the other call is' : `${next.open} other calls are`} decided.`,
    };
  return resumeNote(request.runId, next.resume);
}

async function resumeNote(runId: string, request: { by: string; reason: string }): Promise<ResumeNote> {
  try {
    await getExecutor().resumeRun(runId, request);
    return { state: 'resumed', message: 'Resuming in the Studio’s executor.' };
  } catch (error) {
    // The journal refuses the resume request of a run that finished meanwhile: not resumable either.
    if (RunNotResumableError.isInstance(error) || DecisionConflictError.isInstance(error) || RunErasedError.isInstance(error))
      return { state: 'not-resumable', message: error.message };
    throw error;
  }
}

/**
 * Makes the run runnable again, journaling who asked and why (`run-resume-request`); this server's
 * executor picks it up (a run executing elsewhere keeps its one executor).
 */
export async function resume(request: { runId: string; by: string; reason: string }): Promise<ActionResult<{ resume: ResumeNote }>> {
  const { runId, by, reason } = request;
  try {
    const note = await resumeNote(runId, { by, reason });
    return note.state === 'not-resumable' ? { ok: false, kind: 'not-resumable', message: note.message } : { ok: true, resume: note };
  } catch (error) {
    return refusal(error, runId, '');
  }
}

/**
 * Schedules the run's next invocation at `at` (scheduleResume: checked like a resume, journaled as a
 * `run-resume-request` with `resumeAt`, who and why); a later one replaces it, a resume now cancels it.
 * The executor that claims it then may be this server's or any worker.
 */
export async function scheduleResumeAt(request: { runId: string; at: string; by: string; reason: string }): Promise<ActionResult<{ resumeAt: string }>> {
  const { runId, at, by, reason } = request;
  try {
    await scheduleResume(runId, { at, by, reason });
    return { ok: true, resumeAt: new Date(at).toISOString() };
  } catch (error) {
    return refusal(error, runId, '');
  }
}

export async function cancel(request: { runId: string; by: string; reason: string }): Promise<ActionResult<{ canceledBy: string }>> {
  try {
    await cancelRun(request.runId, { by: request.by, reason: request.reason });
    return { ok: true, canceledBy: request.by };
  } catch (error) {
    return refusal(error, request.runId, '');
  }
}

/**
 * Starts the demo support agent on `prompt`, executed by this server's executor. A crash point is
 * refused where this Studio does not allow them (demo.ts demoCrashPoints: off on Postgres by default).
 */
export async function startDemoRun(request: {
  prompt: string;
  crashAt?: CrashPoint;
  checks?: boolean;
  fourEyes?: boolean;
  by?: string;
  requestId?: string;
}): Promise<ActionResult<{ runId: string }>> {
  if (request.fourEyes && request.checks === false) {
    return { ok: false, kind: 'invalid', message: 'Four eyes on refunds runs on the support agent with check: untick one of the two.' };
  }
  if (request.crashAt) {
    const policy = demoCrashPoints();
    if (!policy.allowed) return { ok: false, kind: 'invalid', message: `${policy.why} Start the run without one.` };
  }
  try {
    const started = await startSupportRun(request);
    return { ok: true, runId: started.runId };
  } catch (error) {
    return refusal(error, '', '');
  }
}

async function refusal(error: unknown, runId: string, toolCallId: string): Promise<Refusal> {
  if (DecisionConflictError.isInstance(error)) {
    const outcome = error.reason === 'already-decided' ? await priorOutcome(runId, toolCallId) : undefined;
    return {
      ok: false,
      kind: 'conflict',
      reason: error.reason,
      message: error.message,
      ...(error.decidedBy ? { decidedBy: error.decidedBy } : {}),
      ...(error.decidedAt ? { decidedAt: error.decidedAt.toISOString() } : {}),
      ...(outcome ? { outcome } : {}),
    };
  }
  // The call's approval rule (its tool's `approvers`): said as it is, like a role the Studio refuses.
  if (ApprovalRuleError.isInstance(error)) return { ok: false, kind: 'forbidden', message: error.message };
  // An erased run never runs again; a dropped run's id is not a new job (docs/erasure.md, docs/operations.md#retention).
  if (RunNotResumableError.isInstance(error) || RunErasedError.isInstance(error) || RunRetiredError.isInstance(error))
    return { ok: false, kind: 'not-resumable', message: error.message };
  if (JournalDataError.isInstance(error) && error.inputMismatch)
    return { ok: false, kind: 'invalid', message: error.message, issues: error.inputMismatch.issues };
  if (InvalidRunIdError.isInstance(error) || AgentInputError.isInstance(error) || error instanceof ZodError)
    return { ok: false, kind: 'invalid', message: error.message };
  console.error('studio: operator action failed:', error);
  return { ok: false, kind: 'error', message: 'The journal could not record this; the Studio’s server log says why.' };
}

/** How a call was decided first, when the run still lists it; otherwise from its journal. */
async function priorOutcome(runId: string, toolCallId: string): Promise<Decision['outcome'] | 'canceled' | undefined> {
  const journal = storageFromEnv().runs;
  if (!toolCallId) return 'canceled';
  const pending: PendingItem[] = (await journal.getRun(runId))?.pending ?? [];
  const listed = pending.find((p) => p.toolCallId === toolCallId)?.decision?.outcome;
  if (listed) return listed;
  return new RunState(await journal.events(runId)).decisionOf(toolCallId)?.outcome;
}
