/**
 * The job's record beyond this run. A fork and a restart are new runs of the same job: the work its
 * other runs did is the job's, so a call here that repeats it (the same tool, the same arguments as
 * canonical JSON) is that work, under that work's key, never new work under a new key.
 *
 * Which runs are related, read from the journal as it is at the moment of the call (not a snapshot
 * taken when the fork was made: a parent still executing records its refund after its fork exists):
 * - a fork (`input.forkOf`): its parent's side effects started at or after the fork point, then,
 *   recursively, what the parent's own lineage did after the parent's fork point;
 * - a restart (`input.restartOf`): every side effect of the run it restarts (and of that run's lineage),
 *   unless a person asked for a new attempt (`restartOf.newAttempt`).
 * The door (journaled-tool.ts) asks before a side effect with no key of its own executes: a match whose
 * outcome is recorded answers from that record (tool-call-end, source 'deduplicated', inheritedFrom); a
 * match whose outcome is unknown stops the run (SideEffectElsewhereError) until a person decides it in
 * the run that made it; a match known not to have acted (a final error) is not work done, so it is no
 * match. Keys this run already holds are taken: its n-th repeat meets the n-th matching effect.
 * Runs with neither link read nothing here (the hot path pays nothing). docs/fork.md, docs/runtime.md.
 */
import { canonicalJson } from '../identity/canonical-json';
import type { RecordedEvent, RunInput } from '../journal/events';
import { encodeJson } from '../journal/json-codec';
import { RunState } from '../projection/run-state';

export interface RelatedEffect {
  /** The run that started it. */
  runId: string;
  toolName: string;
  input: unknown;
  idempotencyKey: string;
  outcome: { kind: 'done'; output: unknown } | { kind: 'unknown' } | { kind: 'not-performed' };
}

/** Reads a run's events (Journal.events). */
export type ReadEvents = (runId: string) => Promise<RecordedEvent[]>;

/** How far up a lineage is followed (forks of forks, restarts of forks): beyond, something is wrong. */
const MAX_LINEAGE_DEPTH = 32;

/** True when the run has a related run whose record its side effects must consult. */
export function hasRelatedRuns(input: RunInput | undefined): boolean {
  return input?.forkOf !== undefined || (input?.restartOf !== undefined && input.restartOf.newAttempt !== true);
}

/** Every side effect the run's related runs started, in lineage order (nearest first), each key once. */
export async function relatedEffects(read: ReadEvents, input: RunInput | undefined): Promise<RelatedEffect[]> {
  const effects: RelatedEffect[] = [];
  const seen = new Set<string>();
  let origin = originOf(input);
  for (let depth = 0; origin && depth < MAX_LINEAGE_DEPTH; depth++) {
    if (seen.has(origin.runId)) break;
    seen.add(origin.runId);
    const events = await read(origin.runId);
    const state = new RunState(events);
    const fromSeq = origin.atStep === undefined ? 0 : forkSeqOf(events, origin.atStep);
    const keys = new Set<string>();
    for (const event of events) {
      if (event.seq < fromSeq || event.type !== 'tool-call-start' || !event.sideEffect || keys.has(event.idempotencyKey)) continue;
      keys.add(event.idempotencyKey);
      const op = state.operations.get(event.idempotencyKey);
      effects.push({
        runId: origin.runId,
        toolName: event.toolName,
        input: event.input,
        idempotencyKey: event.idempotencyKey,
        outcome: outcomeOf(op),
      });
    }
    origin = originOf(state.input);
  }
  return effects;
}

/** The first related effect this call repeats whose key the run does not hold yet. */
export function matchRelated(
  effects: readonly RelatedEffect[],
  call: { toolName: string; input: unknown },
  held: (key: string) => boolean,
): RelatedEffect | undefined {
  const text = canonicalJson(encodeJson(call.input));
  return effects.find(
    (effect) =>
      effect.outcome.kind !== 'not-performed' &&
      effect.toolName === call.toolName &&
      !held(effect.idempotencyKey) &&
      canonicalJson(encodeJson(effect.input)) === text,
  );
}

function originOf(input: RunInput | undefined): { runId: string; atStep?: number } | undefined {
  if (input?.forkOf) return { runId: input.forkOf.runId, atStep: input.forkOf.atStep };
  if (input?.restartOf && input.restartOf.newAttempt !== true) return { runId: input.restartOf.runId };
  return undefined;
}

/** The seq of the model step a fork at `atStep` asks again (its side effects from there on are the parent's own, after the fork point). */
function forkSeqOf(events: readonly RecordedEvent[], atStep: number): number {
  const forkEvent = events.find((event) => event.type === 'model-step' && event.step === atStep - 1);
  return forkEvent?.seq ?? Number.POSITIVE_INFINITY;
}

function outcomeOf(op: ReturnType<RunState['operations']['get']>): RelatedEffect['outcome'] {
  if (op?.result?.kind === 'output') return { kind: 'done', output: op.result.output };
  if (op?.result?.kind === 'error') return { kind: 'not-performed' };
  return { kind: 'unknown' };
}
