/**
 * A tool's output goes to the model as JSON (the AI SDK JSON.stringify's it, unless the tool has
 * toModelOutput). An output JSON.stringify throws on (a bigint, a throwing toJSON) would be journaled
 * and then fail the next model call on every resume, so it is refused first, like an output the journal
 * cannot hold. A read-only call's refusal is its final tool error, which the model sees; a side effect
 * that returned acted, so its call is recorded as done with a marker instead (unencodable-output.ts).
 */
import { JournalDataError } from '../errors';
import type { JournalEvent } from '../journal/events';
import { encodeJson } from '../journal/json-codec';
import type { RunSession } from '../run/run-session';

/**
 * Appends a call's end when the model can read its output and the journal can hold it; otherwise
 * nothing is written and the refusal is returned (its size in `tooLarge`), for the caller to record
 * what stands for it.
 */
export async function appendReadableEnd(args: {
  session: RunSession;
  tool: { toModelOutput?: unknown };
  end: Extract<JournalEvent, { type: 'tool-call-end' }>;
}): Promise<InstanceType<typeof JournalDataError> | undefined> {
  const { session, tool, end } = args;
  try {
    assertModelCanRead({ toolName: end.toolName, tool, output: end.output });
  } catch (error) {
    if (!JournalDataError.isInstance(error)) throw error;
    return error;
  }
  try {
    await session.append(end);
    return undefined;
  } catch (error) {
    if (!JournalDataError.isInstance(error)) throw error;
    // The size (tooLarge) stays on the error callers see, not only on its cause.
    return new JournalDataError(`Output of ${end.toolName} cannot be journaled: ${error.message}`, {
      cause: error,
      ...(error.tooLarge ? { tooLarge: error.tooLarge } : {}),
    });
  }
}

export function assertModelCanRead(args: { toolName: string; tool: { toModelOutput?: unknown }; output: unknown }): void {
  const { toolName, tool, output } = args;
  if (typeof tool.toModelOutput === 'function' || typeof output === 'string') return;
  try {
    JSON.stringify(output);
  } catch (error) {
    // What the journal refuses anyway (a cycle) is reported as the journal's refusal, naming the path.
    try {
      encodeJson({ output }, { strict: true });
    } catch (refusal) {
      throw new JournalDataError(`Output of ${toolName} cannot be journaled: ${refusal instanceof Error ? refusal.message : String(refusal)}`, {
        cause: refusal,
      });
    }
    throw new JournalDataError(`Output of ${toolName} cannot be sent to the model as JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
