/**
 * Operator decisions: approve, reject, resolve a side effect of unknown outcome, provide the result of a
 * tool without execute. One path for code,
 * the CLI and the Studio: the journal validates the request here (zod, at the edge), plans the event
 * and the new pending list (pure), and writes both in one transaction under the run's row lock.
 * Decisions are keyed by toolCallId: the SDK's approval ids are random per call and do not survive a resume.
 */
import type { FlexibleSchema } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import { type ApprovalRuleRefusal, ApprovalRuleError, DecisionConflictError } from '../errors';
import type { Decision, JournalEvent, PendingItem } from '../journal/events';
import { assertValidRunId } from '../identity/run-id';

const base = {
  runId: z.string().superRefine((value, ctx) => {
    try {
      assertValidRunId(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
    }
  }),
  toolCallId: z.string().min(1).max(1000).refine(printable, 'toolCallId must contain only printable characters'),
  by: z.string().trim().min(1, 'by: say who decides').max(200).refine(printable, 'by must contain only printable characters (no control characters)'),
  reason: z.string().max(4000).optional(),
};

/** Names and ids are shown, logged and matched in SQL as text: no control characters, no lone surrogates. */
function printable(value: string): boolean {
  return !/[\p{Cc}\p{Cs}]/u.test(value);
}

/** The tool's output schema: an output that does not match it is refused before anything is written (output-check.ts). */
const outputSchema = z
  .custom<FlexibleSchema<unknown>>((value) => value === undefined || (value !== null && ['object', 'function'].includes(typeof value)), {
    message: 'outputSchema must be a schema (zod, valibot or jsonSchema())',
  })
  .optional();

export const approvalDecisionSchema = z.object(base);
/** An approval; with `input`, the approver changed the call's arguments and the call executes with these (approved-input.ts). */
export const approveRequestSchema = z.object({
  ...base,
  /** The arguments the call executes with, when the approver changed them. Absent: as the model asked. */
  input: z.unknown().optional(),
  /** The tool's input schema: changed arguments that do not match it are refused before anything is written. */
  inputSchema: outputSchema,
});
export const sideEffectResolutionSchema = z.object({
  ...base,
  outcome: z.enum(['done', 'not-done']),
  output: z.unknown().optional(),
  /** With outcome 'done'. */
  outputSchema,
});
export const toolResultSchema = z.object({
  ...base,
  /** What the tool returned; the model sees it as the call's result. Any value the journal can hold. */
  output: z.unknown().refine((value) => value !== undefined, 'output: give the tool result (any JSON value; null for none)'),
  outputSchema,
});

/** What a cancel and a resume request carry: the run, who asks, why. */
const runRequestSchema = z.object({ runId: base.runId, by: base.by, reason: base.reason });
export const cancelRequestSchema = runRequestSchema;
/** A restart recorded on the run it restarts (journal.recordRestart): the new run, who restarted, whether as a new attempt. */
export const restartLinkRequestSchema = z.object({ runId: base.runId, restartedAs: base.runId, by: base.by, newAttempt: z.boolean().optional() });
export type RestartLinkRequest = z.input<typeof restartLinkRequestSchema>;
const isoInstant = z.iso.datetime({ offset: true });
/** How far ahead a resume may be scheduled: a year and a day. */
export const MAX_RESUME_AHEAD_DAYS = 366;
const MAX_RESUME_AHEAD_MS = MAX_RESUME_AHEAD_DAYS * 86_400_000;

export const resumeRequestSchema = runRequestSchema.extend({
  /** A scheduled resume: the instant (ISO 8601 with a zone, or a Date) before which no executor invokes the run. Absent: at once. */
  resumeAt: z
    .custom<Date | string>(
      (value) => (value instanceof Date ? !Number.isNaN(value.getTime()) : typeof value === 'string' && isoInstant.safeParse(value).success),
      'resumeAt: an ISO 8601 date-time with a zone (2026-12-02T09:00:00Z) or a valid Date',
    )
    .transform((value) => new Date(value).toISOString())
    // A timer far beyond any wait a run should have (9999-12-31) is a typo or an attack on the queue's ordering: refused.
    .refine((iso) => Date.parse(iso) <= Date.now() + MAX_RESUME_AHEAD_MS, `resumeAt: at most ${MAX_RESUME_AHEAD_DAYS} days ahead`)
    .optional(),
});

export type ApprovalDecisionRequest = z.input<typeof approvalDecisionSchema>;
export type ApproveRequest = z.input<typeof approveRequestSchema>;
export type SideEffectResolutionRequest = z.input<typeof sideEffectResolutionSchema>;
export type ToolResultRequest = Omit<z.input<typeof toolResultSchema>, 'output'> & { output: unknown };

export type DecisionRequest =
  | ({ kind: 'reject' } & z.output<typeof approvalDecisionSchema>)
  /** `inputHash`: of `input`, made by the journal (approved-input.ts) when the approver changed the arguments. */
  | ({ kind: 'approve'; inputHash?: string } & z.output<typeof approveRequestSchema>)
  | ({ kind: 'resolve' } & z.output<typeof sideEffectResolutionSchema>)
  | ({ kind: 'provide' } & z.output<typeof toolResultSchema>);

/** The pending item each kind of decision answers. */
const ANSWERS = { approve: 'approval', reject: 'approval', resolve: 'side-effect', provide: 'tool-result' } as const;
const NOT_WAITING = {
  approval: 'no approval is requested for it',
  'side-effect': 'it is not a blocked side effect',
  'tool-result': 'it does not wait for a tool result',
} as const;

export interface PriorDecision {
  by: string;
  at: Date;
}

export interface PlannedDecision {
  event: JournalEvent;
  pending: PendingItem[];
  decision: Decision;
  /** The approval item whose arguments this decision changed under its rule (its `proposal` is new, in clear: the journal seals it). */
  proposed?: PendingItem;
}

/**
 * Plans one decision against what the run currently waits for.
 * `prior` is the latest decision already recorded for this call (to name who decided first).
 */
export function planDecision(args: {
  request: DecisionRequest;
  pending: readonly PendingItem[] | undefined;
  prior: PriorDecision | undefined;
  /** Who canceled the run, when it is canceled: a decision it no longer waits for names them. */
  canceled?: PriorDecision;
  /**
   * When the invocation now executing began, when the run's status is 'running': it waits for nothing
   * until it suspends again, so a decision now is refused as 'run-executing' (never kept for later).
   */
  executingSince?: Date;
  /** Who started the run (its run-start's `by`), for a four-eyes rule. */
  startedBy?: string;
  now: Date;
}): PlannedDecision {
  const { request, pending, prior, canceled, executingSince, startedBy, now } = args;
  const { runId, toolCallId } = request;
  if (pending === undefined) throw new DecisionConflictError({ runId, toolCallId, reason: 'unknown-run' });
  const wantedKind = ANSWERS[request.kind];
  const index = pending.findIndex((item) => item.toolCallId === toolCallId && item.kind === wantedKind);
  const item = pending[index];
  if (!item) {
    if (prior) throw new DecisionConflictError({ runId, toolCallId, reason: 'already-decided', decidedBy: prior.by, decidedAt: prior.at });
    if (canceled) {
      const detail = `canceled by ${canceled.by} at ${canceled.at.toISOString()}`;
      throw new DecisionConflictError({ runId, toolCallId, reason: 'run-finished', decidedBy: canceled.by, decidedAt: canceled.at, detail });
    }
    if (executingSince) throw new DecisionConflictError({ runId, toolCallId, reason: 'run-executing', executingSince });
    throw new DecisionConflictError({ runId, toolCallId, reason: 'unknown-call', detail: NOT_WAITING[wantedKind] });
  }
  if (request.kind === 'approve' && item.kind === 'approval' && item.expiresAt && Date.parse(item.expiresAt) <= now.getTime()) {
    throw new DecisionConflictError({ runId, toolCallId, reason: 'expired', detail: item.expiresAt });
  }
  if (item.decision) {
    throw new DecisionConflictError({ runId, toolCallId, reason: 'already-decided', decidedBy: item.decision.by, decidedAt: new Date(item.decision.at) });
  }
  let editedBy: string | undefined;
  if (request.kind === 'approve' && item.kind === 'approval' && item.rule) {
    const counted = countApproval({ request, item, rule: item.rule, startedBy, now });
    if (counted) {
      const next = pending.map((p, i) => (i === index ? counted.item : p));
      return { event: counted.event, decision: counted.decision, pending: next, ...(counted.proposed ? { proposed: counted.item } : {}) };
    }
    if (item.proposal && item.proposal.by !== request.by) editedBy = item.proposal.by;
  }
  const outcome = request.kind === 'resolve' ? request.outcome : request.kind === 'provide' ? 'provided' : request.kind === 'approve' ? 'approved' : 'rejected';
  const edited = request.kind === 'approve' && request.input !== undefined ? { editedInput: true } : {};
  const needed = item.kind === 'approval' && request.kind === 'approve' ? (item.rule?.approvals ?? 1) : 1;
  const approvals = needed > 1 ? { approvals: { given: needed, needed } } : {};
  const decision: Decision = { outcome, by: request.by, at: now.toISOString(), ...(request.reason ? { reason: request.reason } : {}), ...edited, ...approvals };
  const nextPending = pending.map((p, i) => (i === index ? { ...p, decision } : p));
  return { event: decisionEvent(request, item, editedBy), pending: nextPending, decision };
}

type ApprovalItem = Extract<PendingItem, { kind: 'approval' }>;

/**
 * An approval under the call's rule (ApprovalRule): refused when it breaks the rule (ApprovalRuleError;
 * the decider's role is the executor layer's to check: the journal knows no accounts), counted as a
 * `tool-approval-vote` while it is not the N-th, and undefined when it is the approval that decides.
 *
 * Changed arguments under a rule asking four eyes or more than one approval are a proposal: a vote that
 * carries them, voiding the approvals before it; the call then waits for approvals that name the same
 * arguments (their hash), and under four eyes the proposer's own approval does not count (so who started
 * the run may propose, though never approve). An approval
 * of the arguments as asked, once they were changed, is refused: the approver saw other arguments.
 */
function countApproval(args: {
  request: Extract<DecisionRequest, { kind: 'approve' }>;
  item: ApprovalItem;
  rule: NonNullable<ApprovalItem['rule']>;
  startedBy: string | undefined;
  now: Date;
}): { event: JournalEvent; item: ApprovalItem; decision: Decision; proposed?: true } | undefined {
  const { request, item, rule, startedBy, now } = args;
  const { runId, toolCallId, by } = request;
  const needed = rule.approvals ?? 1;
  const refuse = (reason: ApprovalRuleRefusal, detail: string): never => {
    throw new ApprovalRuleError({ runId, toolCallId, reason, detail });
  };
  const { proposal } = item;
  const asProposed = proposal !== undefined && request.input !== undefined && request.inputHash === proposal.inputHash;
  const at = now.toISOString();
  const because = request.reason ? { reason: request.reason } : {};
  if (request.input !== undefined && !asProposed && (rule.fourEyes || needed > 1)) {
    // A proposal: the votes so far approved other arguments. Under four eyes it is not an approval itself.
    const votes = rule.fourEyes ? [] : [{ by, at, ...because, proposed: true }];
    const inputHash = request.inputHash;
    if (inputHash === undefined) throw new TypeError('planDecision: changed arguments come with their hash (journal.approve makes it)');
    return {
      event: { type: 'tool-approval-vote', toolCallId, by, ...because, proposedInput: request.input, proposedInputHash: inputHash },
      item: { ...item, votes, proposal: { input: request.input, inputHash, by, at } },
      decision: { outcome: 'counted', by, at, ...because, editedInput: true, approvals: { given: votes.length, needed } },
      proposed: true,
    };
  }
  // Who started the run may propose arguments (under four eyes a proposal approves nothing), never approve.
  if (rule.fourEyes && startedBy !== undefined && by === startedBy) refuse('four-eyes', `${by} started this run; four eyes: another person approves its calls`);
  if (proposal && !asProposed) {
    refuse(
      'arguments-changed',
      `${proposal.by} changed its arguments at ${proposal.at}; approve them as changed (send them as the input) or change them again`,
    );
  }
  if (proposal && rule.fourEyes && by === proposal.by) refuse('four-eyes', `${by} changed its arguments; four eyes: another person approves them`);
  const votes = item.votes ?? [];
  if (votes.some((vote) => vote.by === by)) {
    refuse('approved-already', `${by} has approved it already (${votes.length} of ${needed}); the next approval must be another person's`);
  }
  if (votes.length + 1 >= needed) return undefined;
  const given = votes.length + 1;
  return {
    event: { type: 'tool-approval-vote', toolCallId, by, ...because },
    item: { ...item, votes: [...votes, { by, at, ...because }] },
    decision: { outcome: 'counted', by, at, ...because, approvals: { given, needed } },
  };
}

/** `editedBy`: who proposed the changed arguments an approval approves, when another person (countApproval). */
function decisionEvent(request: DecisionRequest, item: PendingItem, editedBy?: string): JournalEvent {
  const reason = request.reason ? { reason: request.reason } : {};
  if (request.kind === 'provide') {
    // The call's own end, as if execute had returned it: replay hands it to the model like any recorded result.
    const idempotencyKey = item.kind === 'tool-result' ? item.idempotencyKey : '';
    const { toolCallId, output, by } = request;
    return { type: 'tool-call-end', toolCallId, toolName: item.toolName, idempotencyKey, attempt: 1, output, durationMs: 0, source: 'provided', by, ...reason };
  }
  if (request.kind === 'approve' && request.input !== undefined) {
    // The original arguments stay in the request; these are the ones the call executes with.
    const { toolCallId, by, input, inputHash } = request;
    return {
      type: 'tool-approval-response',
      toolCallId,
      approved: true,
      by,
      ...reason,
      approvedInput: input,
      approvedInputHash: inputHash,
      ...(editedBy ? { editedBy } : {}),
    };
  }
  if (request.kind !== 'resolve') {
    return { type: 'tool-approval-response', toolCallId: request.toolCallId, approved: request.kind === 'approve', by: request.by, ...reason };
  }
  const idempotencyKey = item.kind === 'side-effect' ? item.idempotencyKey : '';
  return {
    type: 'side-effect-resolution',
    toolCallId: request.toolCallId,
    idempotencyKey,
    outcome: request.outcome,
    ...(request.outcome === 'done' ? { output: request.output } : {}),
    by: request.by,
    ...reason,
  };
}

/** A cancel is refused for an unknown run, a finished one, or one canceled already (naming by whom). */
export function planCancel(args: {
  request: z.output<typeof cancelRequestSchema>;
  status: string | undefined;
  priorCancel: PriorDecision | undefined;
}): JournalEvent {
  const { request, status, priorCancel } = args;
  refuseEndedRun({ runId: request.runId, status, canceled: priorCancel });
  return { type: 'run-cancel', by: request.by, ...(request.reason ? { reason: request.reason } : {}) };
}

/**
 * A resume request is refused for an unknown run, a completed one, or a canceled one (naming who canceled
 * and when). Any other run may be asked to continue: waiting, blocked, failed, or running (a lapsed lease).
 */
export function planResumeRequest(args: {
  request: z.output<typeof resumeRequestSchema>;
  status: string | undefined;
  /** Who canceled the run, when it is canceled. */
  canceled: PriorDecision | undefined;
}): JournalEvent {
  const { request, status, canceled } = args;
  refuseEndedRun({ runId: request.runId, status, canceled });
  return {
    type: 'run-resume-request',
    by: request.by,
    ...(request.reason ? { reason: request.reason } : {}),
    ...(request.resumeAt ? { resumeAt: request.resumeAt } : {}),
  };
}

/**
 * The run-restarted a restart appends to the run it restarts: any run that exists, finished or not (a
 * completed run is restarted too). Undefined when the run names that restart already (a repeated
 * restartRun with the same new run id): nothing to write.
 */
export function planRestartLink(args: {
  request: z.output<typeof restartLinkRequestSchema>;
  status: string | undefined;
  /** The new runs the run's run-restarted events name already. */
  restartedAs: readonly string[];
}): JournalEvent | undefined {
  const { request, status, restartedAs } = args;
  if (status === undefined) throw new DecisionConflictError({ runId: request.runId, toolCallId: '', reason: 'unknown-run' });
  if (restartedAs.includes(request.restartedAs)) return undefined;
  return { type: 'run-restarted', restartedAs: request.restartedAs, by: request.by, ...(request.newAttempt === true ? { newAttempt: true } : {}) };
}

/** A request about a whole run needs one that exists and has not ended: DecisionConflictError otherwise (a canceled one names who canceled it). */
function refuseEndedRun({ runId, status, canceled }: { runId: string; status: string | undefined; canceled: PriorDecision | undefined }): void {
  if (status === undefined) throw new DecisionConflictError({ runId, toolCallId: '', reason: 'unknown-run' });
  if (status === 'canceled') {
    throw new DecisionConflictError({ runId, toolCallId: '', reason: 'already-decided', decidedBy: canceled?.by, decidedAt: canceled?.at, detail: 'canceled' });
  }
  if (status === 'completed') throw new DecisionConflictError({ runId, toolCallId: '', reason: 'run-finished', detail: status });
}
