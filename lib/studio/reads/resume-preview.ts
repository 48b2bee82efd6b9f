/**
 * What resuming a run will execute, said before the operator resumes it: which calls run (for the first
 * time, or again) and whether their idempotency key protects a repeat. The decisions are the runtime's
 * own: the events are folded by the run projection and each call of the last model step is decided by
 * the tool gate's decision tree (lib/durable/projection/run-plan.ts, planResume), so the preview cannot follow other
 * rules than the resume. What GNL cannot know is said as such: whether the outside service really
 * deduplicates by the key. Pure and browser-safe: the run page recomputes it as events arrive live.
 */
import { type PlannedCall, planResume, RunState, type ToolDeclaration } from '@/lib/durable/projection';
import type { WireEvent, WireRun } from './wire';

export type { ToolDeclaration };

export type PreviewAction = 'executes' | 'executes-again' | 'checked-first' | 'blocks' | 'not-run' | 'waits' | 'asks-policy' | 'depends';

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
export function protectionOf(declaration: ToolDeclaration | undefined, key: string | undefined): string {
  const sent = key ? `GNL sends the idempotency key ${key}` : 'GNL sends an idempotency key';
  if (!declaration) {
    return `${sent}; this run names no registered agent that declares the tool, so GNL cannot tell whether it is a side effect or whether the outside service deduplicates by the key.`;
  }
  if (!declaration.sideEffect) return 'Read-only (the tool declares no side effect): running it again changes nothing outside.';
  const scope =
    declaration.idempotency === 'args' ? "scope 'args': the same key for the same tool and arguments in this run" : "scope 'call': one key for this call";
  const dedup = declaration.retrySafe
    ? 'the tool declares retrySafe, i.e. that the outside service deduplicates by the key, so a repeat does the work once if the service really does'
    : 'the tool does not declare retrySafe: nothing tells GNL that the outside service deduplicates by the key, so a repeat may act twice';
  return `${sent} (${scope}); ${dedup}${declaration.check ? '; it has a check, which asks the service by key after an unknown outcome' : ''}.`;
}

/**
 * The calls a resume of `run` will meet and what it does with each. `events`: the journal from its last
 * model step on (or more; RunView's `planBasis` plus the live tail), `declarations`: its agent's tools
 * (undefined: the run names no registered agent).
 */
export function resumePreview(
  run: Pick<WireRun, 'status'>,
  events: readonly WireEvent[],
  declarations: Record<string, ToolDeclaration> | undefined,
  now = Date.now(),
): PreviewCall[] {
  const state = new RunState(events.map((event) => ({ ...event, at: new Date(event.at) })));
  return planResume({ state, declarations, now, status: run.status }).flatMap((call) => previewOf(call, declarations));
}

function previewOf(call: PlannedCall, declarations: Record<string, ToolDeclaration> | undefined): PreviewCall[] {
  const { toolName, toolCallId, idempotencyKey, why } = call;
  const base = { toolName, toolCallId, ...(idempotencyKey ? { idempotencyKey } : {}), why };
  const protection = protectionOf(declarations?.[toolName], idempotencyKey);
  switch (call.action) {
    case 'replays':
      // Settled by a person: said, since it is what they decided; any other recorded result is simply given to the model again.
      return call.decision?.outcome === 'done' ? [{ ...base, action: 'not-run' }] : [];
    case 'executes':
    case 'executes-again':
    case 'checked-first':
      return [{ ...base, action: call.action, protection }];
    case 'blocks':
    case 'not-run':
    case 'waits':
    case 'asks-policy':
      return [{ ...base, action: call.action }];
    case 'depends-on-declaration':
      return [{ ...base, action: 'depends', protection }];
  }
}
