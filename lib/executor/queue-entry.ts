/** A run's executor bookkeeping (runnable, lease, last outcome, abandon and restart records), for `gnl show` and the Studio. */
import { type ExecutorContext, resolveContext } from './context';
import type { QueueEntry } from './run-queue';

export function queueEntry(runId: string, context: ExecutorContext = {}): Promise<QueueEntry | undefined> {
  return resolveContext(context).queue.entry(runId);
}
