/**
 * What the run page says about a run's automatic future: its attempts after transient failures (the
 * executor's run-retry records) and its timers (approval deadlines, the next attempt, a scheduled
 * resume), folded by the run projection from the events the page holds (from the last model step on,
 * where the current run of attempts begins). Pure and browser-safe: recomputed as events arrive live.
 */
import { RunState, type RunTimer, runTimers } from '@/lib/durable/projection';
import type { WireEvent, WireRun } from './wire';

export interface RunSchedule {
  /** The current run of failed attempts, while there is one. */
  attempts?: { failed: number; of: number; nextAt?: string; lastError: string };
  timers: RunTimer[];
}

export function runSchedule(run: Pick<WireRun, 'status'>, events: readonly WireEvent[]): RunSchedule {
  const state = new RunState(events.map((event) => ({ ...event, at: new Date(event.at) })));
  const last = state.retries[state.retries.length - 1];
  const timers = runTimers(state, { status: run.status });
  if (!last || state.retryStreak === 0) return { timers };
  const attempts = { failed: last.attempt, of: last.attempts, lastError: `${last.error.name}: ${last.error.message}` };
  return { attempts: last.retryAt && run.status === 'failed' ? { ...attempts, nextAt: last.retryAt } : attempts, timers };
}
