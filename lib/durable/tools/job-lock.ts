/**
 * The job's lock: a side effect in a run of a job with other runs (a fork's lineage, a restart) looks
 * for the work it repeats (related-effects.ts) and journals its start under the key it chose while
 * holding it, so two runs of one job deciding the same work at once cannot both find it new and both
 * execute it under two keys. Held from before the lookup to right after the start is durable; never
 * while execute runs. In this process, callers of one job queue here; across processes, the hold's
 * `lockJob` (a Postgres session advisory lock: advisory-holds.ts) keeps them apart. On the embedded
 * journal one process owns the folder, so the queue here is the whole lock.
 *
 * A job is named by its first run: up the origins (a fork's parent, the run a restart restarts) to
 * the run that has none (jobOf, read once per invocation: origins never change).
 */
import type { RunHold } from '../journal/journal';
import { RunState } from '../projection/run-state';
import type { ReadEvents } from './related-effects';

const queues = new Map<string, Promise<void>>();

/** Takes the job's lock; resolves with its release (idempotent). */
export async function lockJob(job: string, hold: RunHold): Promise<() => Promise<void>> {
  const before = queues.get(job) ?? Promise.resolve();
  let letGo!: () => void;
  const mine = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  const tail = before.then(() => mine);
  queues.set(job, tail);
  const leaveQueue = () => {
    letGo();
    if (queues.get(job) === tail) queues.delete(job);
  };
  await before;
  let across: (() => Promise<void>) | undefined;
  try {
    across = await hold.lockJob?.(job);
  } catch (error) {
    leaveQueue();
    throw error;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    try {
      await across?.();
    } finally {
      leaveQueue();
    }
  };
}

/** How far up origins are followed (a chain of forks and restarts). */
const MAX_ORIGINS = 64;

/** The job's name: its first run, up the origins of the run whose state is given. */
export function jobOf(read: ReadEvents, self: { runId: string; state: RunState }): Promise<string> {
  return firstUp(read, self, originOf);
}

/** The run at the top of the chain `up` follows from `self` (at most MAX_ORIGINS steps). */
async function firstUp(read: ReadEvents, self: { runId: string; state: RunState }, up: (state: RunState) => string | undefined): Promise<string> {
  let runId = self.runId;
  let origin = up(self.state);
  for (let depth = 0; origin && depth < MAX_ORIGINS; depth++) {
    runId = origin;
    origin = up(new RunState(await read(origin)));
  }
  return runId;
}

/**
 * Whose children a workflow run's children are (their ids are made from it: child-runs.ts): up the
 * restarts only, since a restart is the same run started again and finds the same children; never past a
 * fork, whose children are its own (the parent's children answer and wake the parent).
 */
export function childrenRootOf(read: ReadEvents, self: { runId: string; state: RunState }): Promise<string> {
  return firstUp(read, self, restartOriginOf);
}

function restartOriginOf(state: RunState): string | undefined {
  const restartOf = state.input?.restartOf;
  return restartOf && restartOf.newAttempt !== true ? restartOf.runId : undefined;
}

function originOf(state: RunState): string | undefined {
  const input = state.input;
  return input?.forkOf?.runId ?? (input?.restartOf && input.restartOf.newAttempt !== true ? input.restartOf.runId : undefined);
}
