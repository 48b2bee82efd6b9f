/** A run's executor bookkeeping (runnable, lease, last outcome, abandon and restart records), for `gnl show` and the Studio. */
import { resolveStorage, type StorageContext } from './context';
import type { QueueEntry } from './run-queue';

export async function queueEntry(runId: string, context: StorageContext = {}): Promise<QueueEntry | undefined> {
  const { journal, queue } = resolveStorage(context);
  return queue.entry(await journal.runIdOf(runId)); // the run's spelling (docs/limits.md, "runIds")
}
