/**
 * Wraps a tool's execute so that every call is journaled and nothing recorded runs twice:
 * - a recorded result (or error) is returned (or thrown) as recorded, and execute is not called;
 * - otherwise, for a side effect, `tool-call-start` is made durable BEFORE execute begins (so a crash
 *   at any later point leaves evidence that the work may have happened), then the output or error is
 *   recorded. A read-only call is safe to run again, so it records only its end (or error), carrying
 *   its input and start time: one append per read-only call.
 * Whether a call may run at all (approvals, unknown outcomes) was decided by the tool gate.
 */
import type { Tool, ToolExecutionOptions } from 'ai';
import { JournalDataError, RunCanceledError, ToolCallFailedError } from './errors';
import { errorInfo } from './events';
import { gnlToolOptions } from './gnl-tool';
import { assertModelCanRead } from './model-json';
import { operationKey } from './operation-key';
import type { RunSession } from './run-session';
import type { ToolOperation } from './run-state';

type AnyTool = Tool<any, any>;

export function journaledTool(args: { session: RunSession; toolName: string; tool: AnyTool }): AnyTool {
  const { session, toolName, tool } = args;
  const options = gnlToolOptions(tool);
  const { needsApproval: _ownApproval, ...rest } = tool as AnyTool & { needsApproval?: unknown };
  if (!tool.execute) return rest as AnyTool;
  const execute = tool.execute.bind(tool);

  return {
    ...rest,
    execute: async (input: unknown, callOptions: ToolExecutionOptions<unknown>) => {
      session.throwIfFatal();
      const { toolCallId } = callOptions;
      const key = operationKey({ runId: session.runId, toolCallId, toolName, input, options });
      const running = session.inFlight.get(key);
      if (running) await running.catch(() => undefined);
      const op = session.state.operations.get(key);
      if (op) await session.compareArguments({ toolCallId, toolName, recorded: op.input, given: input });
      if (op?.result) return replay({ session, op, toolCallId, toolName });

      if (session.canceled) throw new RunCanceledError({ runId: session.runId });
      const attempt = (op?.attempts ?? 0) + 1;
      const sideEffect = options.sideEffect === true;
      const work = (async () => {
        if (sideEffect) await session.append({ type: 'tool-call-start', toolCallId, toolName, input, idempotencyKey: key, attempt, sideEffect });
        // Canceled while this call was being recorded: its start is journaled, its work is not done.
        if (sideEffect && session.canceled) throw new RunCanceledError({ runId: session.runId });
        const unstarted = sideEffect ? {} : { input, startedAt: new Date().toISOString() };
        const errorEvent = (error: unknown, durationMs: number, retryable: boolean) =>
          ({
            type: 'tool-call-error',
            ...unstarted,
            toolCallId,
            toolName,
            idempotencyKey: key,
            attempt,
            error: errorInfo(error),
            durationMs,
            retryable,
          }) as const;
        const startedAt = performance.now();
        const elapsed = () => Math.round((performance.now() - startedAt) * 10) / 10;
        let output: unknown;
        try {
          output = await execute(input, { ...callOptions, idempotencyKey: key });
        } catch (error) {
          // A tool that throws fails the run (resumable): the loop stops before the next model call, a
          // read-only tool is run again on resume, a side effect follows the unknown-outcome rule.
          await session.append(errorEvent(error, elapsed(), true));
          session.failure ??= new ToolCallFailedError({ runId: session.runId, toolCallId, toolName, attempt, cause: error });
          throw error;
        }
        const end = { ...unstarted, toolCallId, toolName, idempotencyKey: key, attempt, output, durationMs: elapsed(), source: 'executed' as const };
        try {
          assertModelCanRead({ toolName, tool, output });
          await session.append({ type: 'tool-call-end', ...end });
        } catch (error) {
          if (!JournalDataError.isInstance(error)) throw error;
          // The output cannot be journaled (a cycle, say) or sent to the model (a bigint): record that as
          // the call's final error, keep the cause.
          const cause = error.message.startsWith(`Output of ${toolName} `)
            ? error
            : new JournalDataError(`Output of ${toolName} cannot be journaled: ${errorInfo(error).message}`, { cause: error });
          await session.append(errorEvent(cause, end.durationMs, false));
          throw cause;
        }
        return output;
      })();
      session.inFlight.set(key, work);
      try {
        return await work;
      } finally {
        if (session.inFlight.get(key) === work) session.inFlight.delete(key);
      }
    },
  } as AnyTool;
}

async function replay(args: { session: RunSession; op: ToolOperation; toolCallId: string; toolName: string }): Promise<unknown> {
  const { session, op, toolCallId, toolName } = args;
  const result = op.result as NonNullable<ToolOperation['result']>;
  if (!op.toolCallIds.has(toolCallId) && result.kind === 'output') {
    // A re-planned call with equal arguments ('args'): it gets the first call's result, and the journal says so.
    await session.append({
      type: 'tool-call-end',
      toolCallId,
      toolName,
      idempotencyKey: op.idempotencyKey,
      attempt: op.attempts,
      output: result.output,
      durationMs: 0,
      source: 'deduplicated',
    });
  }
  if (result.kind === 'error') throw Object.assign(new Error(result.error.message), { name: result.error.name });
  return result.output;
}
