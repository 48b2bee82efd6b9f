/** A run's executor bookkeeping (runnable, lease, last outcome, abandon and restart records), for `gnl show` and the Studio. */
import { resolveStorage, type StorageContext } from './context';
import type { QueueEntry } from './run-queue';

export function queueEntry(runId: string, context: StorageContext = {}): Promise<QueueEntry | undefined> {
  return resolveStorage(context).queue.entry(runId);
}
