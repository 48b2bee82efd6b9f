/**
 * Which work a tool call names, and with which arguments. The recorded call is the truth: once the
 * journal holds a call's arguments (its approval request, its start, its end) and its key, every replay
 * uses those, not the arguments the SDK derives again from the replayed model step (a zod computed
 * default, a transform or a repair can derive other ones each time, and an 'args' key computed from
 * them would name other work). Only a call the journal has never seen takes the given arguments.
 * When the given arguments equal the recorded ones (as canonical JSON), the given object is used: the
 * journal's jsonb does not keep key order, and an outside service that compares request bodies for an
 * idempotency key must see the same body again.
 * A fork's calls after its fork point take their keys by fork-keys.ts.
 */
import { canonicalJson } from './canonical-json';
import type { GnlToolOptions } from '../tools/gnl-tool';
import { forkCallKey } from '../fork/fork-keys';
import { encodeJson } from '../journal/json-codec';
import { operationKey } from './operation-key';
import type { RunState } from '../projection/run-state';

export function callIdentity(args: {
  runId: string;
  state: RunState;
  toolCallId: string;
  toolName: string;
  given: unknown;
  options: GnlToolOptions;
  /** Keys of the job's work known not performed (fork-keys.ts); the door reads them at the call. */
  notPerformed?: ReadonlySet<string>;
}): {
  key: string;
  input: unknown;
} {
  const { runId, state, toolCallId, toolName, given, options, notPerformed } = args;
  const input = state.inputOfCall.has(toolCallId) ? sameOrRecorded(state.inputOfCall.get(toolCallId), given) : given;
  const scheme = state.keyScheme(runId);
  // A run imported under another id (`gnl import --as`) is the exported run's job: a call it makes takes the key
  // that run would have made (a call both make, the one approved in each, reaches the outside service under one key).
  const jobRunId = state.importOrigin ?? runId;
  // A fork's new call may repeat its lineage's work, under that work's key (fork-keys.ts).
  const key =
    state.keyOfCall.get(toolCallId) ??
    forkCallKey({ state, toolCallId, toolName, input, options, scheme, ...(notPerformed ? { notPerformed } : {}) }) ??
    operationKey({ runId: jobRunId, toolCallId, toolName, input, options, scheme });
  return { key, input };
}

/** The recorded arguments, unless the given ones are the same (then the given object, in its own key order). */
export function sameOrRecorded(recorded: unknown, given: unknown): unknown {
  return canonicalJson(encodeJson(recorded)) === canonicalJson(encodeJson(given)) ? given : recorded;
}
