/**
 * Tool call ids unique within a run. A provider's ids are only unique within what the provider needs
 * (some answer `call_0`, `call_1` in every response; a repaired or proxied answer can repeat one), but
 * GNL names work by them: 'call' idempotency keys, approvals, decisions. A new model step whose call id
 * was used by an earlier step, or earlier in the same answer, gets a new id derived from the old one,
 * the step and its place: `<id>~s<step>.<n>` (n counts from 1 until the name is free). Parts of the
 * answer that refer to the same call (a provider-executed tool's result) are renamed with it.
 * Deterministic, and applied before the step is recorded: replays return the recorded step, renamed.
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';

export function uniqueToolCallIds(result: LanguageModelV4GenerateResult, step: number, used: ReadonlySet<string>): LanguageModelV4GenerateResult {
  const taken = new Set(used);
  const renamed = new Map<string, string>();
  let changed = false;
  const content = result.content.map((part) => {
    if (part.type !== 'tool-call') return part;
    if (!taken.has(part.toolCallId)) {
      taken.add(part.toolCallId);
      return part;
    }
    let n = 1;
    while (taken.has(`${part.toolCallId}~s${step}.${n}`)) n += 1;
    const id = `${part.toolCallId}~s${step}.${n}`;
    taken.add(id);
    renamed.set(part.toolCallId, id);
    changed = true;
    return { ...part, toolCallId: id };
  });
  if (!changed) return result;
  return {
    ...result,
    content: content.map((part) =>
      part.type === 'tool-result' && renamed.has(part.toolCallId) ? { ...part, toolCallId: renamed.get(part.toolCallId) as string } : part,
    ),
  };
}
