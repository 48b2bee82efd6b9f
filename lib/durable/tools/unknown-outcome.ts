/**
 * The unknown-outcome rule, in one place: a side effect that started and has no recorded outcome (the
 * process died inside it, or it threw: it may have acted) runs again only when that is known to be
 * safe. In order: `retrySafe` (the outside system deduplicates by the key) → run again; `check` asks
 * the outside system → done: its output is recorded as the call's result; not done → run again;
 * unknown, or neither option → blocked: a person decides (journal.resolveSideEffect). Never a guess.
 * The tool gate applies it before a step's calls execute; the journaled tool applies it again when a
 * call's twin (equal arguments under 'args') left the shared key unknown while this call waited.
 */
import { errorInfo } from '../journal/events';
import type { CheckResult, gnlToolOptions } from './gnl-tool';
import { unknownOutcomeRule } from '../projection/run-plan';
import type { RunSession } from '../run/run-session';
import type { ToolOperation } from '../projection/run-state';
import { appendPerformedEnd } from './unencodable-output';

export type UnknownOutcomeVerdict = 'run' | 'settled' | 'blocked';

export async function settleUnknownOutcome(args: {
  session: RunSession;
  op: ToolOperation;
  /** The rule's answer for this tool, when the caller has it (run-plan.ts); else read from the options. */
  rule?: 'run-again' | 'check' | 'block';
  options: ReturnType<typeof gnlToolOptions>;
  /** The tool (its toModelOutput decides whether the model can read a checked output). */
  tool: { toModelOutput?: unknown };
  toolCallId: string;
  toolName: string;
}): Promise<UnknownOutcomeVerdict> {
  const { session, op, options, toolCallId, toolName } = args;
  const key = op.idempotencyKey;
  const rule = args.rule ?? unknownOutcomeRule({ retrySafe: options.retrySafe === true, check: typeof options.check === 'function' });
  if (rule === 'run-again') return 'run';
  const checked =
    rule === 'check' && options.check ? await runCheck(session, options.check, { toolCallId, input: op.input, key, attempt: op.attempts }) : undefined;
  if (checked?.done === true) {
    // Done is done: an output the model cannot read or the journal cannot hold is recorded as a marker (unencodable-output.ts).
    const end = {
      type: 'tool-call-end',
      toolCallId,
      toolName,
      idempotencyKey: key,
      attempt: op.attempts,
      output: checked.output,
      durationMs: 0,
      source: 'check',
    } as const;
    await appendPerformedEnd({ session, tool: args.tool, end });
    return 'settled';
  }
  if (checked?.done === false) return 'run';
  if (!session.blocked.some((item) => item.idempotencyKey === key)) {
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
  }
  return 'blocked';
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
