/**
 * Decides, before any tool of a step executes, whether each call may run now. Plugged into the SDK as
 * its `toolApproval` function, so a call that must not run is simply not executed by the loop, which
 * then stops after its siblings settle, and the model never sees it:
 * - a rejected call gets the SDK's own execution-denied output (the model sees the refusal);
 * - a call that needs approval and has none is journaled as a question ('user-approval' stops the loop);
 * - a side effect that started and has no recorded outcome is settled by `check`, retried when
 *   `retrySafe`, or blocked (never run again on a guess).
 */
import type { ToolApprovalStatus, ToolSet } from 'ai';
import { errorInfo } from './events';
import { type CheckResult, gnlToolOptions } from './gnl-tool';
import type { RunSession } from './run-session';
import { operationKey } from './operation-key';

type GateArgs = { toolCall: { toolCallId: string; toolName: string; input: unknown }; messages: unknown; runtimeContext?: unknown; toolsContext?: unknown };
type UserToolApproval = ((args: never) => unknown) | Record<string, unknown> | undefined;

export function toolGate(args: { session: RunSession; tools: ToolSet; userToolApproval: UserToolApproval }) {
  const { session, tools, userToolApproval } = args;
  return async (gateArgs: GateArgs): Promise<ToolApprovalStatus> => {
    const { toolCallId, toolName, input } = gateArgs.toolCall;
    // A canceled run executes no other tool: not executed, and the loop stops.
    if (session.canceled) return { type: 'user-approval' };
    const tool = tools[toolName];
    if (!tool) return { type: 'not-applicable' };
    const options = gnlToolOptions(tool);
    const key = operationKey({ runId: session.runId, toolCallId, toolName, input, options });
    const { state } = session;

    const approval = state.approvals.get(toolCallId);
    if (approval?.decision && !approval.decision.approved) {
      return { type: 'denied', reason: approval.decision.reason ?? `Rejected by ${approval.decision.by}.` };
    }
    const op = state.operations.get(key);
    if (op?.result) return { type: 'not-applicable' }; // recorded: the journaled tool replays it

    if (approval && !approval.decision) {
      if (approval.expiresAt && Date.parse(approval.expiresAt) <= Date.now()) {
        await session.append({ type: 'tool-approval-response', toolCallId, approved: false, by: 'gnl', reason: 'expired', expired: true });
        return { type: 'denied', reason: 'expired' };
      }
      // Asked before and still undecided: keep waiting (the policy is not asked twice).
      const { requestedAt, expiresAt } = approval;
      session.waiting.push({ kind: 'approval', toolCallId, toolName, input, requestedAt, ...(expiresAt ? { expiresAt } : {}) });
      return { type: 'user-approval' };
    }
    if (!approval) {
      const policy = await approvalPolicy({ gateArgs, tool, options, userToolApproval });
      if (policy.type === 'denied' || policy.type === 'approved') return policy;
      if (policy.type === 'user-approval') {
        const now = Date.now();
        const requestedAt = new Date(now).toISOString();
        const expiry = options.approvalExpiresInMs ? { expiresAt: new Date(now + options.approvalExpiresInMs).toISOString() } : {};
        await session.append({ type: 'tool-approval-request', toolCallId, toolName, input, requestedAt, ...expiry });
        session.waiting.push({ kind: 'approval', toolCallId, toolName, input, requestedAt, ...expiry });
        return { type: 'user-approval' };
      }
    }

    if (op?.inFlight && op.sideEffect && op.resolution !== 'not-done') {
      if (options.retrySafe) return { type: 'not-applicable' };
      const checked = options.check ? await runCheck(session, options.check, { toolCallId, input, key, attempt: op.attempts }) : undefined;
      if (checked?.done === true) {
        await session.append({
          type: 'tool-call-end',
          toolCallId,
          toolName,
          idempotencyKey: key,
          attempt: op.attempts,
          output: checked.output,
          durationMs: 0,
          source: 'check',
        });
        return { type: 'not-applicable' };
      }
      if (checked?.done === false) return { type: 'not-applicable' };
      if (session.blocked.some((item) => item.idempotencyKey === key)) return { type: 'user-approval' };
      session.blocked.push({
        kind: 'side-effect',
        toolCallId: op.firstToolCallId,
        toolName,
        input: op.input,
        idempotencyKey: key,
        attempt: op.attempts,
        startedAt: (op.lastStartedAt ?? new Date()).toISOString(),
        reason: checked ? `check: ${checked.reason}` : 'no check and not retrySafe',
      });
      return { type: 'user-approval' };
    }
    return { type: 'not-applicable' };
  };
}

async function runCheck(
  session: RunSession,
  check: NonNullable<ReturnType<typeof gnlToolOptions>['check']>,
  args: { toolCallId: string; input: unknown; key: string; attempt: number },
): Promise<CheckResult> {
  let result: CheckResult;
  try {
    result = await check({ runId: session.runId, toolCallId: args.toolCallId, input: args.input, idempotencyKey: args.key });
  } catch (error) {
    // A check that cannot answer is an unknown answer: block, never guess.
    result = { done: 'unknown', reason: `check threw ${errorInfo(error).name}: ${errorInfo(error).message}` };
  }
  const recorded = result.done === 'unknown' ? { done: 'unknown' as const, reason: result.reason } : { done: result.done };
  await session.append({ type: 'side-effect-check', toolCallId: args.toolCallId, idempotencyKey: args.key, attempt: args.attempt, result: recorded });
  return result;
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
