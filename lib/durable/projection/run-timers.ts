/**
 * A run's timers, read from its projection: the instants at which an executor is to invoke the run
 * again without anyone asking. Three kinds, each from what the journal records:
 *   approval-deadline  an undecided approval's expiresAt: invoked then, the call is expired (the gate's rule);
 *   retry              the executor's next attempt after a transient failure (the last run-retry's retryAt);
 *   resume             a resume someone scheduled (a run-resume-request with `at`);
 *   workflow           a waiting workflow's sleep end or event deadline (an open workflow-wait).
 * The executor sets the run queue's not-before time from the earliest (executor/timer-wake.ts); the
 * Studio and `gnl show` show them. A finished run has none. Pure and browser-safe.
 */
import type { RunState } from './run-state';
import type { RunStatus } from '../journal/run-status';

export type RunTimer =
  | { kind: 'approval-deadline'; dueAt: string; toolCallId: string; toolName: string }
  | { kind: 'retry'; dueAt: string; attempt: number; attempts: number }
  | { kind: 'resume'; dueAt: string; by: string; reason?: string }
  | { kind: 'workflow'; dueAt: string; waitId: string; name: string; what: 'sleep' | 'event-deadline' };

/**
 * The run's timers, earliest first. `status`: the run's status when `state` folds only the end of its
 * journal (from its last model step on, as the Studio's run page holds it). Default: the fold's own.
 */
export function runTimers(state: RunState, options: { status?: RunStatus } = {}): RunTimer[] {
  const status = options.status ?? state.status;
  if (status === 'completed' || status === 'canceled' || status === undefined) return [];
  const timers: RunTimer[] = [];
  for (const item of state.pending) {
    if (item.kind === 'approval' && item.expiresAt && !item.decision) {
      timers.push({ kind: 'approval-deadline', dueAt: item.expiresAt, toolCallId: item.toolCallId, toolName: item.toolName });
    }
  }
  const lastRetry = state.retries[state.retries.length - 1];
  if (status === 'failed' && state.nextAttemptAt && lastRetry) {
    // The attempt that runs at dueAt is the one after the last failed one.
    timers.push({ kind: 'retry', dueAt: state.nextAttemptAt, attempt: lastRetry.attempt + 1, attempts: lastRetry.attempts });
  }
  if (status === 'waiting') {
    for (const { waitId, name, wait, end } of state.workflowWaits.values()) {
      if (end) continue;
      if (wait.kind === 'sleep') timers.push({ kind: 'workflow', dueAt: wait.until, waitId, name, what: 'sleep' });
      if (wait.kind === 'event' && wait.timeoutAt) timers.push({ kind: 'workflow', dueAt: wait.timeoutAt, waitId, name, what: 'event-deadline' });
    }
  }
  const scheduled = state.scheduledResume;
  if (scheduled) timers.push({ kind: 'resume', dueAt: scheduled.at, by: scheduled.by, ...(scheduled.reason ? { reason: scheduled.reason } : {}) });
  return timers.sort((a, b) => Date.parse(a.dueAt) - Date.parse(b.dueAt));
}
