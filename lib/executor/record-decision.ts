/**
 * One decision on one call, recorded through the journal for whoever decides: the Studio's server
 * actions (a person) and the HTTP API (a person's service, with a token). Both check the same things the
 * same way before the journal is asked: an output against the tool's output schema (found through the
 * registry), changed arguments against its input schema. The journal then plans the decision under the
 * run's row lock (DecisionConflictError when someone decided first, the run moved on, or it executes).
 * What happens next (resuming the run) is the caller's.
 */
import { type ApprovalRule, ApprovalRuleError, checkOutputSchema, type Decision, type OutputIssue, type RunSummary } from '@/lib/durable';
import { toolInputSchema, toolOutputSchema } from '@/lib/agents';
import { type ExecutorContext, resolveContext } from './context';

/** A decider's role (lib/accounts' roles), for a call whose approval rule names one. */
export type DeciderRole = 'viewer' | 'approver' | 'admin';

export type DecisionRequest =
  | { kind: 'reject'; runId: string; toolCallId: string; by: string; reason?: string }
  /**
   * `input`: the approver changed the arguments; the call executes with these (checked by the tool's input schema).
   * `role`: the approver's role, checked against the rule of the call (ApprovalRule's `role`); a call whose
   * rule names a role is refused to an approver whose role is not given.
   */
  | { kind: 'approve'; runId: string; toolCallId: string; by: string; reason?: string; input?: unknown; role?: DeciderRole }
  | { kind: 'resolve'; runId: string; toolCallId: string; by: string; reason: string; outcome: 'done' | 'not-done'; output?: unknown }
  | { kind: 'provide'; runId: string; toolCallId: string; by: string; reason?: string; output: unknown };

export type RecordedDecision =
  | { ok: true; decision: Decision }
  /** The output or arguments do not match the tool's schema: `issues` names each field; nothing was recorded. */
  | { ok: false; kind: 'invalid'; message: string; issues?: OutputIssue[] };

const ROLE_RANK: Record<DeciderRole, number> = { viewer: 0, approver: 1, admin: 2 };

/**
 * The role part of a call's approval rule (ApprovalRule's `role`), checked where people decide: the
 * Studio's actions, the HTTP API and the CLI pass the decider's role (undefined: none known). The rest of
 * the rule (four eyes, N of M, no edits) is the journal's, under the run's lock (decisions.ts).
 */
export function assertApproverRole(args: {
  runId: string;
  toolCallId: string;
  toolName: string;
  rule: ApprovalRule | undefined;
  by: string;
  role: DeciderRole | undefined;
}): void {
  const wanted = args.rule?.role;
  if (!wanted || ROLE_RANK[args.role ?? 'viewer'] >= ROLE_RANK[wanted]) return;
  const who = args.role ? `${args.role === 'admin' ? 'an' : 'a'} ${args.role}` : 'not known to have a role (no enabled account of that login)';
  throw new ApprovalRuleError({
    runId: args.runId,
    toolCallId: args.toolCallId,
    reason: 'role',
    detail: `${args.toolName} is approved by ${wanted === 'admin' ? 'an admin' : 'an approver or an admin'}; ${args.by} is ${who}`,
  });
}

/** Records `request` (journal errors are thrown: conflicts, unknown runs, invalid ids; ApprovalRuleError when the call's rule refuses the approver). */
export async function recordDecision(request: DecisionRequest, context: ExecutorContext): Promise<RecordedDecision> {
  const { journal, registry } = resolveContext(context);
  const { runId, toolCallId, by, reason } = request;
  const because = reason ? { reason } : {};
  const pendingCall = async (kind: 'approval' | 'side-effect' | 'tool-result') => {
    const run = await journal.getRun(runId);
    const item = run?.pending.find((p) => p.toolCallId === toolCallId && p.kind === kind);
    return item ? { agent: run?.input.agent, toolName: item.toolName, rule: item.kind === 'approval' ? item.rule : undefined } : undefined;
  };
  // An output is recorded as the tool's schema parses it (unknown keys stripped or refused), never as given.
  const checkedOutput = async (kind: 'side-effect' | 'tool-result', output: unknown) => {
    const call = await pendingCall(kind);
    if (!call) return { ok: true as const, value: output }; // the journal says why it is refused
    return checkOutputSchema({ schema: toolOutputSchema(registry, call.agent, call.toolName), toolName: call.toolName, output });
  };
  if (request.kind === 'provide') {
    const checked = await checkedOutput('tool-result', request.output);
    if (!checked.ok) return { ok: false, kind: 'invalid', message: checked.message, issues: checked.issues };
    return { ok: true, decision: await journal.provideToolResult({ runId, toolCallId, by, output: checked.value as never, ...because }) };
  }
  if (request.kind === 'resolve') {
    const checked = request.outcome === 'done' ? await checkedOutput('side-effect', request.output) : undefined;
    if (checked && !checked.ok) return { ok: false, kind: 'invalid', message: checked.message, issues: checked.issues };
    const output = checked?.ok ? { output: checked.value } : {};
    return { ok: true, decision: await journal.resolveSideEffect({ runId, toolCallId, by, reason: request.reason, outcome: request.outcome, ...output }) };
  }
  if (request.kind === 'approve') {
    // The role the call's rule asks (the journal knows no accounts: this layer checks it, before anything is written).
    const call = await pendingCall('approval');
    if (call) assertApproverRole({ runId, toolCallId, toolName: call.toolName, rule: call.rule, by, role: request.role });
  }
  if (request.kind === 'approve' && request.input !== undefined) {
    const call = await pendingCall('approval');
    const inputSchema = call ? toolInputSchema(registry, call.agent, call.toolName) : undefined;
    return { ok: true, decision: await journal.approve({ runId, toolCallId, by, ...because, input: request.input, ...(inputSchema ? { inputSchema } : {}) }) };
  }
  return { ok: true, decision: await journal[request.kind]({ runId, toolCallId, by, ...because }) };
}

/** Why a run was resumed after a decision left nothing undecided, e.g. "after approving issueRefund (call-2)". */
export function resumeReason(decision: {
  kind: DecisionRequest['kind'];
  toolCallId: string;
  /** The call's tool, when the run still lists it. */
  toolName?: string;
  /** With kind 'resolve'. */
  outcome?: 'done' | 'not-done';
}): string {
  const call = decision.toolName ? `${decision.toolName} (${decision.toolCallId})` : decision.toolCallId;
  if (decision.kind === 'approve') return `after approving ${call}`;
  if (decision.kind === 'reject') return `after rejecting ${call}`;
  if (decision.kind === 'provide') return `after providing the result of ${call}`;
  return `after marking ${call} ${decision.outcome === 'done' ? 'done' : 'not done'}`;
}

/**
 * What follows a recorded decision, from the run as it stands after it: the calls still undecided, or,
 * when none is left, the resume to ask for in the decider's name with the decision as its reason. The
 * caller asks its own executor (the Studio's, the API server's).
 */
export function resumeAfterDecision(
  request: DecisionRequest,
  run: RunSummary | undefined,
): { open: number; resume?: undefined } | { open: 0; resume: { by: string; reason: string } } {
  const open = run?.pending.filter((p) => !p.decision).length ?? 0;
  if (open > 0) return { open };
  const toolName = run?.pending.find((p) => p.toolCallId === request.toolCallId)?.toolName;
  const outcome = request.kind === 'resolve' ? request.outcome : undefined;
  return {
    open: 0,
    resume: {
      by: request.by,
      reason: resumeReason({ kind: request.kind, toolCallId: request.toolCallId, ...(toolName ? { toolName } : {}), ...(outcome ? { outcome } : {}) }),
    },
  };
}
