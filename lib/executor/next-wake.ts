/**
 * When a settled run is to be invoked again without anyone asking: the executor's timers. Called after
 * every settled invocation, before its lease is released (executor.ts):
 *
 * 1. A run this invocation failed on a transient error (transient-failure.ts) is retried by its agent's
 *    policy (retry-policy.ts): attempt n of `attempts` is journaled as `run-retry` with the instant of
 *    the next one, or, with the attempts used up, without one (the run stays failed for a person). The
 *    attempt number comes from the journal (RunState.retryStreak), so any executor continues the count.
 * 2. The run's earliest timer (runTimers: that retry, an undecided approval's deadline, a scheduled
 *    resume) becomes the queue's not-before time. A retry or scheduled resume due at or before this
 *    invocation's claim was this invocation; a deadline stays until a decision (the gate's expiry, or a
 *    person's) answers it.
 *
 * Delays are measured on this process's clock, the one the gate judges deadlines by, and the queue adds
 * them to the database's now(): clocks that disagree delay a timer, never fire it early in a loop.
 * A retry never re-executes anything by itself: the attempt is an ordinary resume from the journal.
 */
import { type Agent, retryDelayMs } from '@/lib/agents';
import { type ErrorInfo, type LiveJournal, RunState, type RunTimer, runTimers } from '@/lib/durable';

/** How long a deadline this process sees as past (the gate will expire it) waits before it is tried again. */
const PAST_DEADLINE_DELAY_MS = 1_000;

export interface NextWake {
  /** The queue's timer for the run: claimed no earlier than this many milliseconds from now. Absent: no timer. */
  wakeInMs?: number;
  /**
   * The timer holds even though the run was woken during the invocation: a resume was scheduled meanwhile
   * (the latest request; a resume asked for at once after it would have replaced it).
   */
  despiteWake?: boolean;
  /** The timer it is (for the executor's event). */
  timer?: RunTimer;
  /** The run-retry this call journaled, if it did. */
  retry?: { attempt: number; attempts: number; retryAt?: string };
}

export async function nextWake(args: {
  runId: string;
  journal: LiveJournal;
  /** The run's agent (its retry policy), when the registry knows it. */
  agent: Agent | undefined;
  /** The executor deciding: recorded as the run-retry's `by`. */
  owner: string;
  /** When this invocation's claim began (the database's clock). */
  claimedAt: Date;
  /** The invocation failed on a transient error it journaled: the error. */
  transientFailure?: ErrorInfo;
  /** Whether someone resumed or scheduled the run during the invocation (the queue's `wakeups` moved). */
  wokenMeanwhile: () => Promise<boolean>;
  /** Default Math.random (the jitter). */
  random?: () => number;
}): Promise<NextWake> {
  const { runId, journal, agent, owner, claimedAt, transientFailure } = args;
  // The journal is folded only when a timer can be there: a retry to journal, an undecided deadline
  // (the summary's pending list says), or a resume scheduled during the invocation. Most runs end without.
  const summary = await journal.getRun(runId);
  // A waiting workflow's sleep or event deadline is in its workflow-wait events, not in the pending list.
  const deadline = summary?.status === 'waiting' || summary?.pending.some((item) => item.kind === 'approval' && item.expiresAt && !item.decision);
  if (!transientFailure && !deadline && !(await args.wokenMeanwhile())) return {};
  const state = new RunState(await journal.events(runId));
  let retry: NextWake['retry'];
  if (transientFailure && agent && state.status === 'failed') {
    const { attempts } = agent.retry;
    const attempt = state.retryStreak + 1;
    const retryAt = attempt < attempts ? new Date(Date.now() + retryDelayMs(agent.retry, attempt, args.random)).toISOString() : undefined;
    const hold = await journal.hold(runId);
    try {
      const recorded = await hold.append([{ type: 'run-retry', by: owner, attempt, attempts, error: transientFailure, ...(retryAt ? { retryAt } : {}) }]);
      for (const event of recorded) state.apply(event);
    } finally {
      await hold.release();
    }
    retry = { attempt, attempts, ...(retryAt ? { retryAt } : {}) };
  }
  // A deadline or a workflow's timer holds until the invocation it wakes answers it; a retry or a resume due at the claim was this invocation.
  const timer = runTimers(state).find((t) => t.kind === 'approval-deadline' || t.kind === 'workflow' || Date.parse(t.dueAt) > claimedAt.getTime());
  if (!timer) return retry ? { retry } : {};
  const delay = Date.parse(timer.dueAt) - Date.now();
  const wakeInMs = delay > 0 ? delay : timer.kind === 'approval-deadline' ? PAST_DEADLINE_DELAY_MS : 0;
  const scheduled = state.scheduledResume !== undefined && Date.parse(state.scheduledResume.at) > claimedAt.getTime();
  return { wakeInMs, timer, ...(scheduled ? { despiteWake: true } : {}), ...(retry ? { retry } : {}) };
}
