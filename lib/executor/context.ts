/**
 * What every executor function works on: the storage (its journal and its database, for the run queue)
 * and the agent registry that names agents. Defaults come from the environment: storageFromEnv()
 * (DATABASE_URL, else the embedded journal) and the deployment's registry (agents/index.ts).
 */
import { registry as deploymentRegistry } from '@/agents';
import type { AgentRegistry } from '@/lib/agents';
import type { LiveJournal } from '@/lib/durable';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';
import { RunQueue } from './run-queue';

export interface ExecutorContext {
  /** Default: storageFromEnv(). */
  storage?: Storage;
  /** Default: the deployment's registry (agents/index.ts). */
  registry?: AgentRegistry;
}

export interface Resolved {
  storage: Storage;
  journal: LiveJournal;
  registry: AgentRegistry;
  queue: RunQueue;
}

const queues = new WeakMap<Storage, RunQueue>();

export function resolveContext(context: ExecutorContext = {}): Resolved {
  const storage = context.storage ?? storageFromEnv();
  let queue = queues.get(storage);
  if (!queue) {
    queue = new RunQueue(() => storage.database());
    queues.set(storage, queue);
  }
  return { storage, journal: storage.runs, registry: context.registry ?? deploymentRegistry, queue };
}
