import type { GnlToolOptions } from './gnl-tool';
import { idempotencyKey } from './idempotency-key';

/** The idempotency key of one tool call, by the tool's idempotency option. */
export function operationKey(args: { runId: string; toolCallId: string; toolName: string; input: unknown; options: GnlToolOptions }): string {
  const { runId, toolCallId, toolName, input, options } = args;
  return options.idempotency === 'args' ? idempotencyKey({ kind: 'args', runId, toolName, input }) : idempotencyKey({ kind: 'call', runId, toolCallId });
}
