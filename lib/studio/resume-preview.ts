/**
 * What resuming a run will execute, said before the operator resumes it: which calls run (for the first
 * time, or again) and whether their idempotency key protects a repeat. GNL knows how the tool is
 * declared (sideEffect, idempotency 'call' or 'args', retrySafe, check) and the key it sends; it cannot
 * know whether the outside service really deduplicates by that key, and the preview says exactly that.
 * Pure and browser-safe: the run page recomputes it as decisions and events arrive live.
 *
 * It follows the runtime's rules (lib/durable/tool-gate.ts, run-state.ts): an approved call executes; a
 * rejected one does not; a side effect marked done is not run again, one marked not done is; a side
 * effect that started (or threw) with no outcome recorded is run again if the tool is retrySafe, else
 * settled by its check if it has one, else it blocks the run for a person; a read-only call that threw
 * is simply run again.
 */
import type { WireEvent, WireRun } from './wire';

/** A tool's declaration, as gnlTool's options say (tool-policy.ts reads them through the registry). */
export interface ToolPolicy {
  sideEffect: boolean;
  idempotency: 'call' | 'args';
  retrySafe: boolean;
  check: boolean;
}

export type PreviewAction = 'executes' | 'executes-again' | 'checked-first' | 'blocks' | 'not-run';

export interface PreviewCall {
  toolName: string;
  toolCallId: string;
  idempotencyKey?: string;
  action: PreviewAction;
  /** Why: the decision or the journal's state. */
  why: string;
  /** Whether the key protects a repeat, as far as GNL can know. Absent when the call does not run. */
  protection?: string;
}

/** The sentence about a call's key, from the tool's declaration. */
export function protectionOf(policy: ToolPolicy | undefined, key: string | undefined): string {
  const sent = key ? `GNL sends the idempotency key ${key}` : 'GNL sends an idempotency key';
  if (!policy) {
    return `${sent}; this run names no registered agent that declares the tool, so GNL cannot tell whether it is a side effect or whether the outside service deduplicates by the key.`;
  }
  if (!policy.sideEffect) return 'Read-only (the tool declares no side effect): running it again changes nothing outside.';
  const scope =
    policy.idempotency === 'args' ? "scope 'args': the same key for the same tool and arguments in this run" : "scope 'call': one key for this call";
  const dedup = policy.retrySafe
    ? 'the tool declares retrySafe, i.e. that the outside service deduplicates by the key, so a repeat does the work once if the service really does'
    : 'the tool does not declare retrySafe: nothing tells GNL that the outside service deduplicates by the key, so a repeat may act twice';
  return `${sent} (${scope}); ${dedup}${policy.check ? '; it has a check, which asks the service by key after an unknown outcome' : ''}.`;
}

interface OpenCall {
  toolName: string;
  toolCallId: string;
  sideEffect: boolean;
  /** Started or threw with no outcome recorded. */
  open: boolean;
  resolution?: 'done' | 'not-done';
}

/** Calls whose outcome the journal does not have, by key: started with no end, or threw a retryable error. */
function openCalls(events: readonly WireEvent[]): Map<string, OpenCall> {
  const calls = new Map<string, OpenCall>();
  for (const event of events) {
    if (event.type === 'tool-call-start') {
      calls.set(event.idempotencyKey, { toolName: event.toolName, toolCallId: event.toolCallId, sideEffect: event.sideEffect, open: true });
    } else if (event.type === 'tool-call-end' || event.type === 'tool-call-error') {
      const call = calls.get(event.idempotencyKey) ?? { toolName: event.toolName, toolCallId: event.toolCallId, sideEffect: false, open: false };
      call.open = event.type === 'tool-call-error' && event.retryable === true;
      calls.set(event.idempotencyKey, call);
    } else if (event.type === 'side-effect-resolution') {
      const call = calls.get(event.idempotencyKey);
      if (call) {
        call.resolution = event.outcome;
        if (event.outcome === 'done') call.open = false;
      }
    }
  }
  return calls;
}

/**
 * The calls a resume of `run` will execute or settle, given its pending items (with their decisions),
 * the journal events at hand (the tail: an open call is near the end) and its tools' declarations.
 */
export function resumePreview(run: Pick<WireRun, 'pending'>, events: readonly WireEvent[], policies: Record<string, ToolPolicy> | undefined): PreviewCall[] {
  const out: PreviewCall[] = [];
  const covered = new Set<string>();
  for (const item of run.pending) {
    const policy = policies?.[item.toolName];
    const decision = item.decision;
    if (item.kind === 'side-effect') covered.add(item.idempotencyKey);
    const base = { toolName: item.toolName, toolCallId: item.toolCallId, ...(item.kind === 'side-effect' ? { idempotencyKey: item.idempotencyKey } : {}) };
    if (!decision) continue; // undecided: the run cannot resume yet
    if (decision.outcome === 'approved') {
      out.push({ ...base, action: 'executes', why: `approved by ${decision.by}`, protection: protectionOf(policy, undefined) });
    } else if (decision.outcome === 'rejected') {
      out.push({ ...base, action: 'not-run', why: `rejected by ${decision.by}; the model sees the refusal` });
    } else if (decision.outcome === 'done') {
      out.push({ ...base, action: 'not-run', why: `marked done by ${decision.by}; the output given is its result` });
    } else {
      out.push({
        ...base,
        action: 'executes-again',
        why: `marked not done by ${decision.by}`,
        protection: protectionOf(policy, item.kind === 'side-effect' ? item.idempotencyKey : undefined),
      });
    }
  }
  for (const [key, call] of openCalls(events)) {
    if (!call.open || covered.has(key)) continue;
    const policy = policies?.[call.toolName];
    const base = { toolName: call.toolName, toolCallId: call.toolCallId, idempotencyKey: key };
    const protection = protectionOf(policy, key);
    if (call.resolution === 'not-done') {
      out.push({ ...base, action: 'executes-again', why: 'marked not done', protection });
    } else if (!call.sideEffect) {
      out.push({ ...base, action: 'executes-again', why: 'its last attempt threw (read-only: tried again)', protection });
    } else if (!policy) {
      out.push({
        ...base,
        action: 'blocks',
        why: 'started with no outcome recorded; what happens depends on how the tool is declared (retried if retrySafe, else its check, else the run blocks)',
        protection,
      });
    } else if (policy.retrySafe) {
      out.push({ ...base, action: 'executes-again', why: 'started with no outcome recorded; the tool is retrySafe, so it runs again', protection });
    } else if (policy.check) {
      out.push({
        ...base,
        action: 'checked-first',
        why: 'started with no outcome recorded; its check asks the service by key first: done takes its output, not done runs it again, unknown blocks the run',
        protection,
      });
    } else {
      out.push({
        ...base,
        action: 'blocks',
        why: 'started with no outcome recorded, no check and not retrySafe: not run on a guess; the run blocks for a person to mark it done or not done',
        protection,
      });
    }
  }
  return out;
}
