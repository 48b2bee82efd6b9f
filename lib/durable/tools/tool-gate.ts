/**
 * Decides, before any tool of a step executes, whether each call may run now. Plugged into the SDK as
 * its `toolApproval` function, so a call that must not run is simply not executed by the loop, which
 * then stops after its siblings settle, and the model never sees it:
 * - a rejected call gets the SDK's own execution-denied output (the model sees the refusal);
 * - a call that needs approval and has none is journaled as a question ('user-approval' stops the loop);
 * - a toolApproval policy's approve or deny is journaled as a decision (by 'policy') and replayed;
 * - a call to a tool without execute waits for a result provided through the journal;
 * - a side effect that started and has no recorded outcome follows the unknown-outcome rule
 *   (unknown-outcome.ts): run again when safe, settled by `check`, or blocked (never run on a guess).
 * Arguments and keys come from the recorded call when there is one (call-identity.ts).
 */
import type { ToolApprovalStatus, ToolSet } from 'ai';
import { assertApprovedInput } from '../decisions/approved-input';
import { callIdentity } from '../identity/call-identity';
import { gnlToolOptions, toolDeclaration } from './gnl-tool';
import { approvalVerdict, executionVerdict } from '../projection/run-plan';
import type { RunSession } from '../run/run-session';
import type { ApprovalState } from '../projection/run-state';
import { settleUnknownOutcome } from './unknown-outcome';

type GateArgs = { toolCall: { toolCallId: string; toolName: string; input: unknown }; messages: unknown; runtimeContext?: unknown; toolsContext?: unknown };
type UserToolApproval = ((args: never) => unknown) | Record<string, unknown> | undefined;

export function toolGate(args: { session: RunSession; tools: ToolSet; userToolApproval: UserToolApproval }) {
  const { session, tools, userToolApproval } = args;
  return async (gateArgs: GateArgs): Promise<ToolApprovalStatus> => {
    const { toolCallId, toolName } = gateArgs.toolCall;
    // A canceled run executes no other tool: not executed, and the loop stops.
    if (session.canceled) return { type: 'user-approval' };
    const tool = tools[toolName];
    if (!tool) return { type: 'not-applicable' };
    const options = gnlToolOptions(tool);
    const { state } = session;
    const { key, input } = callIdentity({ runId: session.runId, state, toolCallId, toolName, given: gateArgs.toolCall.input, options });

    let verdict = approvalVerdict({ state, toolCallId, key, canceled: false, now: Date.now() });
    if (verdict.kind === 'denied') {
      const { decision } = verdict;
      // A policy's denial replays exactly as the policy gave it (the model saw that, and the next step's prompt hash holds it).
      if (decision.policy) return { type: 'denied', ...(decision.reason ? { reason: decision.reason } : {}) };
      return { type: 'denied', reason: decision.reason ?? `Rejected by ${decision.by}.` };
    }
    if (verdict.kind === 'replay') return { type: 'not-applicable' }; // recorded: the journaled tool replays it
    if (verdict.kind === 'expired') {
      await session.append({ type: 'tool-approval-response', toolCallId, approved: false, by: 'gnl', reason: 'expired', expired: true });
      return { type: 'denied', reason: 'expired' };
    }
    if (verdict.kind === 'waiting-approval') {
      // Asked before and still undecided: keep waiting (the policy is not asked twice).
      const { requestedAt, expiresAt, rule, votes, proposal } = verdict.approval;
      session.waiting.push({
        kind: 'approval',
        toolCallId,
        toolName,
        input,
        requestedAt,
        ...(expiresAt ? { expiresAt } : {}),
        ...(rule ? { rule } : {}),
        ...(votes?.length ? { votes } : {}),
        ...(proposal ? { proposal } : {}),
      });
      return { type: 'user-approval' };
    }
    if (verdict.kind === 'ask-policy') {
      const policy = await approvalPolicy({ gateArgs, tool, options, userToolApproval });
      if (policy.type === 'denied' || policy.type === 'approved') {
        // A policy's answer is a decision: journaled, and replayed even if the policy later answers otherwise.
        const reason = policy.reason ? { reason: policy.reason } : {};
        await session.append({
          type: 'tool-approval-response',
          toolCallId,
          approved: policy.type === 'approved',
          by: 'policy',
          ...reason,
          policy: { toolName, input },
        });
        if (policy.type === 'denied') return policy;
        verdict = { kind: 'cleared', approval: state.approvals.get(toolCallId) };
      } else if (policy.type === 'user-approval') {
        const now = Date.now();
        const requestedAt = new Date(now).toISOString();
        const expiry = options.approvalExpiresInMs ? { expiresAt: new Date(now + options.approvalExpiresInMs).toISOString() } : {};
        // The rule as the tool declares it now: the question keeps it (a later deploy does not change who may approve).
        const rule = options.approvers ? { rule: options.approvers } : {};
        await session.append({ type: 'tool-approval-request', toolCallId, toolName, input, requestedAt, ...expiry, ...rule });
        session.waiting.push({ kind: 'approval', toolCallId, toolName, input, requestedAt, ...expiry, ...rule });
        return { type: 'user-approval' };
      } else {
        verdict = { kind: 'cleared' };
      }
    }
    if (verdict.kind !== 'cleared') return { type: 'user-approval' }; // canceled (checked above): not executed
    // Edited, then approved: only the arguments the approver approved may run (their hash is in the decision).
    assertApprovedInput({ runId: session.runId, toolCallId, toolName, approval: state.approvals.get(toolCallId), input });

    const execution = executionVerdict({ state, key, declaration: toolDeclaration(tool) });
    if (execution.kind === 'waiting-result') {
      // A client-side tool: nothing here executes it; the run waits for journal.provideToolResult.
      if (!session.waitingResults.some((item) => item.toolCallId === toolCallId)) {
        session.waitingResults.push({ kind: 'tool-result', toolCallId, toolName, input, idempotencyKey: key, requestedAt: new Date().toISOString() });
      }
      return { type: 'user-approval' };
    }
    if (execution.kind === 'unknown-outcome') {
      const settled = await settleUnknownOutcome({ session, op: execution.op, rule: execution.rule, options, tool, toolCallId, toolName });
      if (settled === 'blocked') return { type: 'user-approval' };
    }
    // May execute: the journaled tool applies the rule again if the key moves before it runs (a twin).
    session.cleared.set(key, state.operations.get(key)?.attempts ?? 0);
    return policyApproval(verdict.approval) ?? { type: 'not-applicable' };
  };
}

/** A policy's recorded approval, as the policy gave it (reason included), so replays offer the model the same step. */
function policyApproval(approval: ApprovalState | undefined): ToolApprovalStatus | undefined {
  const decision = approval?.decision;
  if (decision?.approved !== true || !decision.policy) return undefined;
  return { type: 'approved', ...(decision.reason ? { reason: decision.reason } : {}) };
}

/** The SDK's precedence: the call's toolApproval first, then gnlTool's needsApproval, then the tool's own. */
async function approvalPolicy(args: {
  gateArgs: GateArgs;
  tool: ToolSet[string];
  options: ReturnType<typeof gnlToolOptions>;
  userToolApproval: UserToolApproval;
}): Promise<{ type: 'not-applicable' | 'user-approval' } | { type: 'approved' | 'denied'; reason?: string }> {
  const { gateArgs, tool, options, userToolApproval } = args;
  const { toolCall } = gateArgs;
  let status: unknown;
  if (typeof userToolApproval === 'function') {
    status = await (userToolApproval as (a: unknown) => unknown)({ ...gateArgs, tools: undefined });
  } else if (userToolApproval && Object.hasOwn(userToolApproval, toolCall.toolName)) {
    const entry = userToolApproval[toolCall.toolName];
    status =
      typeof entry === 'function'
        ? await entry(toolCall.input, { toolCallId: toolCall.toolCallId, messages: gateArgs.messages, runtimeContext: gateArgs.runtimeContext })
        : entry;
  }
  const normalized = status === undefined ? undefined : typeof status === 'string' ? { type: status } : (status as { type: string; reason?: string });
  if (normalized && normalized.type !== 'not-applicable') return normalized as { type: 'user-approval' | 'approved' | 'denied'; reason?: string };

  const needs = options.needsApproval ?? (tool as { needsApproval?: unknown }).needsApproval;
  const needed =
    typeof needs === 'function'
      ? await (needs as (input: unknown, o: unknown) => unknown)(toolCall.input, { toolCallId: toolCall.toolCallId, messages: gateArgs.messages })
      : needs;
  return { type: needed ? 'user-approval' : 'not-applicable' };
}
