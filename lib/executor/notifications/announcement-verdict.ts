/**
 * Whether an announced event is still worth a person's attention when its turn comes, read from the
 * run's journal after it (the one projection, RunState) and the run queue. A wait is news while the run
 * still waits from that suspend on; a failure is news once it is for good: no retry is due, and no
 * executor holds the run or will invoke it again (an invocation stopped for a deploy is given back
 * runnable; a transient failure gets its run-retry verdict just after its run-fail).
 */
import type { RunState, RunStatus } from '@/lib/durable';

export type AnnouncementVerdict = { send: true } | { send: false; superseded: string } | { send: false; deferMs: number };

/** How long a failure whose verdict is not in yet waits before it is looked at again. */
export const DEFER_MS = 5_000;

export function announcementVerdict(args: {
  announced: RunStatus;
  /** The projection of the run's events from the announced one on. */
  since: RunState;
  queue: { runnable: boolean; leaseOwner: string | null } | undefined;
  now: Date;
}): AnnouncementVerdict {
  const { announced, since, queue, now } = args;
  if (since.resumes.length > 0) return { send: false, superseded: 'the run was resumed before the notification was sent' };
  if (since.status !== announced) return { send: false, superseded: `the run is ${since.status ?? 'gone'} now` };
  if (announced !== 'failed') return { send: true };
  if (since.nextAttemptAt) return { send: false, deferMs: Math.max(DEFER_MS, Date.parse(since.nextAttemptAt) - now.getTime() + DEFER_MS) };
  if (queue && (queue.runnable || queue.leaseOwner !== null)) return { send: false, deferMs: DEFER_MS };
  return { send: true };
}
