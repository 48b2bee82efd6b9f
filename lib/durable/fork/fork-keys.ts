/**
 * The idempotency key of a call a fork makes after its fork point (the copied calls keep their
 * recorded keys). A key names outside work; a fork must not rename work its lineage already did, nor
 * give new work an old name:
 *   'args' tools: the key is made from the lineage's root run (`forkOf.rootRunId`), the tool and the
 *     arguments, as the root made it: the same arguments anywhere in the lineage are the same work.
 *   'call' tools: a call to the same tool with the same arguments (canonical JSON) as a side effect the
 *     lineage recorded after the fork point (`forkOf.inheritedKeys`) repeats it: the fork's n-th such call
 *     (in the order of its model steps) takes the n-th such key. Any other call is new work, with a key
 *     made from the fork's own run id (a call id alone proves nothing across runs: providers reuse them).
 *     A workflow's step is matched by its place instead: the fork's primitive wf-k with the same tool and
 *     arguments as the lineage's wf-k (the code calls its primitives in order) takes that key.
 *     Work the job knows was not performed (a final error, a "not done" nothing will retry: the door reads
 *     it at the call, related-effects.ts, and passes `notPerformed`) is no work to repeat: its key is not
 *     taken, so the fork's call is the fork's own new work, never the parent's under the parent's name.
 * Undefined: not a fork, or a new 'call' key (the caller makes it from the fork's id, as for any run).
 */
import { canonicalJson } from '../identity/canonical-json';
import type { GnlToolOptions } from '../tools/gnl-tool';
import { idempotencyKey, type KeyScheme } from '../identity/idempotency-key';
import { encodeJson } from '../journal/json-codec';
import type { RunState } from '../projection/run-state';

export function forkCallKey(args: {
  state: RunState;
  toolCallId: string;
  toolName: string;
  input: unknown;
  options: GnlToolOptions;
  scheme: KeyScheme;
  /** Keys of the job's work known not performed, read at the call (the door's). Default: none known. */
  notPerformed?: ReadonlySet<string>;
}): string | undefined {
  const { state, toolCallId, toolName, input, options, scheme, notPerformed } = args;
  const forkOf = state.input?.forkOf;
  if (!forkOf) return undefined;
  if (options.idempotency === 'args') return idempotencyKey({ kind: 'args', runId: forkOf.rootRunId, toolName, input }, scheme);
  const same = sameWork(toolName, input);
  // A workflow's primitives are called in the code's order: the fork's wf-k repeats the lineage's wf-k when
  // it is the same work (workflow-fork-plan.ts); a step of another place, or other arguments, is new work.
  if (state.input?.workflow) {
    const inherited = forkOf.inheritedKeys.find((entry) => entry.toolCallId === toolCallId);
    return inherited && same(inherited.toolName, inherited.input) && notPerformed?.has(inherited.idempotencyKey) !== true
      ? inherited.idempotencyKey
      : undefined;
  }
  const candidates = forkOf.inheritedKeys.filter(
    (inherited) => same(inherited.toolName, inherited.input) && notPerformed?.has(inherited.idempotencyKey) !== true,
  );
  if (candidates.length === 0) return undefined;
  return candidates[ordinalOf(state, forkOf.atStep - 1, toolCallId)]?.idempotencyKey;
}

function sameWork(toolName: string, input: unknown): (otherTool: string, otherInput: unknown) => boolean {
  // Text in NFC, as related-effects.ts compares it: arguments a person cannot tell apart are the same work.
  const text = canonicalJson(encodeJson(input), { nfc: true });
  return (otherTool, otherInput) => otherTool === toolName && canonicalJson(encodeJson(otherInput), { nfc: true }) === text;
}

/** How many of the fork's calls before this one (from its first own step) went to the same tool with the same model-given arguments. */
function ordinalOf(state: RunState, firstOwnStep: number, toolCallId: string): number {
  const calls = state.modelSteps.slice(firstOwnStep).flatMap((result) => toolCallsOf(result));
  const index = calls.findIndex((call) => call.toolCallId === toolCallId);
  if (index < 0) return 0;
  const self = calls[index] as ToolCall;
  const same = sameWork(self.toolName, self.input);
  return calls.slice(0, index).filter((call) => same(call.toolName, call.input)).length;
}

type ToolCall = { toolCallId: string; toolName: string; input: unknown };

function toolCallsOf(result: unknown): ToolCall[] {
  const content = (result as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => {
    const p = part as { type?: unknown; toolCallId?: unknown; toolName?: unknown; input?: unknown; providerExecuted?: unknown };
    if (p?.type !== 'tool-call' || typeof p.toolCallId !== 'string' || p.providerExecuted === true) return [];
    return [{ toolCallId: p.toolCallId, toolName: String(p.toolName), input: parsed(p.input) }];
  });
}

function parsed(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
