/**
 * A tool's output goes to the model as JSON (the AI SDK JSON.stringify's it, unless the tool has
 * toModelOutput). An output JSON.stringify throws on (a bigint, a throwing toJSON) would be journaled
 * and then fail the next model call on every resume, so it is refused first, like an output the journal
 * cannot hold: the call's final tool error, which the model sees.
 */
import { JournalDataError } from '../errors';
import { encodeJson } from '../journal/json-codec';

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
