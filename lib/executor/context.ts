/**
 * What every executor function works on: the storage (its journal and its database, for the run queue)
 * and, for whatever names or invokes agents, the agent registry. The storage defaults to
 * storageFromEnv() (DATABASE_URL, else the embedded journal); the registry has no default: the caller
 * (the worker's entry, the Studio's boot, the CLI, a test) says which agents it deploys, so this layer
 * never reaches up into one application's agents.
 */
import type { AgentRegistry } from '@/lib/agents';
import type { LiveJournal } from '@/lib/durable';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { RunQueue } from './run-queue';

/** For what reads or moves runs without naming agents (queueEntry, resumeRun, cancelRun, abandonRun). */
export interface StorageContext {
  /** Default: storageFromEnv(). */
  storage?: Storage;
}

/** For what names agents or invokes them (startRun, restartRun, Executor). */
export interface ExecutorContext extends StorageContext {
  /** The agents this caller deploys (e.g. the application's `registry` from agents/index.ts). Required. */
  registry: AgentRegistry;
}

export interface ResolvedStorage {
  storage: Storage;
  journal: LiveJournal;
  queue: RunQueue;
}

export interface Resolved extends ResolvedStorage {
  registry: AgentRegistry;
}

const queues = new WeakMap<Storage, RunQueue>();

export function resolveStorage(context: StorageContext = {}): ResolvedStorage {
  const storage = context.storage ?? storageFromEnv();
  let queue = queues.get(storage);
  if (!queue) {
    queue = new RunQueue(() => storage.database());
    queues.set(storage, queue);
  }
  return { storage, journal: storage.runs, queue };
}

export function resolveContext(context: ExecutorContext): Resolved {
  // The type requires it; a caller in plain JavaScript (or one that cast) learns here, not at the first claim.
  if (!context?.registry || typeof context.registry.getAgent !== 'function')
    throw new TypeError('The executor needs the agent registry it runs (pass `registry`, e.g. the one agents/index.ts exports).');
  return { ...resolveStorage(context), registry: context.registry };
}
