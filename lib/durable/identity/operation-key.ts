import type { GnlToolOptions } from '../tools/gnl-tool';
import { idempotencyKey, type KeyScheme } from './idempotency-key';

/** The idempotency key of one tool call, by the tool's idempotency option, in the run's recorded key scheme. */
export function operationKey(args: {
  runId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  options: GnlToolOptions;
  scheme: KeyScheme;
}): string {
  const { runId, toolCallId, toolName, input, options, scheme } = args;
  return options.idempotency === 'args'
    ? idempotencyKey({ kind: 'args', runId, toolName, input }, scheme)
    : idempotencyKey({ kind: 'call', runId, toolCallId, toolName }, scheme);
}
