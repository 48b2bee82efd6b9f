/**
 * The job's record beyond this run. A fork and a restart are new runs of the same job: the work its
 * other runs did is the job's, so a call here that repeats it (the same tool, the same arguments as
 * canonical JSON, text in NFC) is that work, under that work's key, never new work under a new key.
 *
 * Which runs are related, read from the journal as it is at the moment of the call (not a snapshot
 * taken when the fork was made: a parent still executing records its refund after its fork exists):
 * the run's origin (a fork's parent, `input.forkOf`; the run a restart restarts, `input.restartOf`, unless
 * a person asked for a new attempt), its forks (run-forked) and its restarts (run-restarted, the old run's
 * link to the new one, unless a new attempt), and theirs, over the whole job: so a fork of a restarted run
 * meets the work its parent's restart did, and a restart the work of its old run's forks. History a
 * fork copied keeps its keys, so the run holds those and they never match; what matches is work done
 * after the branches parted, on either side (a parent resumed after its fork refunded meets that refund).
 * The door (journaled-tool.ts) asks before a side effect with no key of its own executes: a match whose
 * outcome is recorded answers from that record (tool-call-end, source 'deduplicated', inheritedFrom); a
 * match whose outcome is unknown stops the run (SideEffectElsewhereError) until a person decides it in
 * the run that made it; a match known not to have acted (a final error, or a person's "not done" in a run
 * that can no longer try it again: outcomeOf) is not work done, so it is no match. Keys this run already holds are taken: its n-th repeat meets the n-th matching effect.
 * Runs with no origin, fork or restart read nothing here (the hot path pays nothing). docs/fork.md, docs/runtime.md.
 * Not seen: a restart made before restarts were recorded on the old run (its run-restarted), from the old run's relatives.
 */
import { canonicalJson } from '../identity/canonical-json';
import type { RecordedEvent } from '../journal/events';
import { encodeJson } from '../journal/json-codec';
import { RunState, type ToolOperation } from '../projection/run-state';

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

/** True when the run has a related run whose record its side effects must consult (an origin or a fork). */
export function hasRelatedRuns(state: RunState): boolean {
  return neighbours(state).length > 0;
}

/** How many runs of one job are read at most (a lineage of forks and restarts): beyond, something is wrong. */
const MAX_LINEAGE_RUNS = 256;

/**
 * Every side effect the job's other runs started, nearest runs first, each key once: up the run's
 * origins (a fork's parent, a restarted run) and down every fork of every run reached. `self` is this
 * run as its invocation knows it (its forks included: RunSession applies a run-forked appended meanwhile).
 */
export function relatedEffects(read: ReadEvents, self: { runId: string; state: RunState }): Promise<RelatedEffect[]> {
  return jobEffects(read, neighbours(self.state), [self.runId]);
}

/** The side effects of the runs `from` and of every run of the job reached from them (not `except`), nearest first, each key once. */
export async function jobEffects(read: ReadEvents, from: readonly string[], except: readonly string[] = []): Promise<RelatedEffect[]> {
  const effects: RelatedEffect[] = [];
  const keys = new Set<string>();
  for (const { runId, state } of await jobRuns(read, from, except)) {
    // The run's operations in the order they first appear: each side effect it started, by key.
    for (const op of state.operations.values()) {
      if (!op.sideEffect || keys.has(op.idempotencyKey)) continue;
      keys.add(op.idempotencyKey);
      effects.push({ runId, toolName: op.toolName, input: op.input, idempotencyKey: op.idempotencyKey, outcome: outcomeOf(op, state) });
    }
  }
  return effects;
}

/** A run of the job, as read now. */
export interface JobRun {
  runId: string;
  state: RunState;
}

/**
 * The runs `from` and every run of the job reached from them (not `except`), nearest first: up the
 * origins and down every fork and restart (neighbours), each once, at most MAX_LINEAGE_RUNS.
 */
export async function jobRuns(read: ReadEvents, from: readonly string[], except: readonly string[] = []): Promise<JobRun[]> {
  const runs: JobRun[] = [];
  const visited = new Set<string>(except);
  const queue = [...from];
  while (queue.length > 0 && visited.size < MAX_LINEAGE_RUNS) {
    const runId = queue.shift() as string;
    if (visited.has(runId)) continue;
    visited.add(runId);
    const state = new RunState(await read(runId));
    runs.push({ runId, state });
    queue.push(...neighbours(state));
  }
  return runs;
}

/** The runs one step away in the job from a run (its origin, its forks, its restarts): where jobRuns starts. */
export function jobNeighbours(state: RunState): string[] {
  return neighbours(state);
}

/** The runs one step away in the job: its origin, its forks and its restarts (a restart that asked for a new attempt is another job). */
function neighbours(state: RunState): string[] {
  const input = state.input;
  const origin = input?.forkOf?.runId ?? (input?.restartOf && input.restartOf.newAttempt !== true ? input.restartOf.runId : undefined);
  const restarts = state.restarts.filter((restart) => !restart.newAttempt).map((restart) => restart.restartedAs);
  return [...(origin ? [origin] : []), ...state.forks.map((fork) => fork.childRunId), ...restarts];
}

/** The keys of the job's work known not performed (a fork's call does not take such a key: fork-keys.ts). */
export function notPerformedKeys(effects: readonly RelatedEffect[]): ReadonlySet<string> {
  return new Set(effects.filter((effect) => effect.outcome.kind === 'not-performed').map((effect) => effect.idempotencyKey));
}

/** The first related effect this call repeats whose key the run does not hold yet. */
export function matchRelated(
  effects: readonly RelatedEffect[],
  call: { toolName: string; input: unknown },
  held: (key: string) => boolean,
): RelatedEffect | undefined {
  // Text in NFC, as key scheme 3 hashes it: arguments a person cannot tell apart ("café" as U+00E9 or as
  // e + U+0301) are the same work. Only a comparison: the match's recorded key is the one taken.
  const same = (input: unknown) => canonicalJson(encodeJson(input), { nfc: true });
  const text = same(call.input);
  return effects.find(
    (effect) => effect.outcome.kind !== 'not-performed' && effect.toolName === call.toolName && !held(effect.idempotencyKey) && same(effect.input) === text,
  );
}

/**
 * What the job knows of one run's side effect: its recorded output; a final error, or a person's "not
 * done" (with no attempt since: a start clears the resolution) in a run that can never try it again
 * (canceled or completed), is not performed; anything else is unknown. A "not done" in a run that may
 * still go on (blocked, failed, running: a resume tries it again under its key) is that run's to redo,
 * so a repeat elsewhere must not also do it anew: it stays unknown there.
 */
function outcomeOf(op: ToolOperation, holder: RunState): RelatedEffect['outcome'] {
  if (op.result?.kind === 'output') return { kind: 'done', output: op.result.output };
  if (op.result?.kind === 'error') return { kind: 'not-performed' };
  if (op.resolution === 'not-done' && !canRetry(holder)) return { kind: 'not-performed' };
  return { kind: 'unknown' };
}

/** A run no invocation executes again: canceled (terminal) or completed. A failed run may be resumed. */
function canRetry(state: RunState): boolean {
  return state.status !== 'canceled' && state.status !== 'completed';
}
