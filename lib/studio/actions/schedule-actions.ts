/**
 * The Schedules page's operator actions, each one call into the executor layer (lib/executor
 * schedule-control.ts): pause, unpause, run now, in the signed-in operator's name with the reason,
 * audited there (gnl.schedule_audit). The deployment's schedules and registry are this server's
 * (agents/); a run-now run is enqueued and this server's executor (or any worker) runs it. Server-only.
 */
import 'server-only';
import { registry, schedules } from '@/agents';
import { pauseSchedule, type PausedState, ScheduleActionError, runScheduleNow, unpauseSchedule } from '@/lib/executor';
import type { ActionResult, Refusal } from './operator-actions';

export interface ScheduleRequest {
  scheduleId: string;
  by: string;
  reason: string;
}

export async function setSchedulePaused(request: ScheduleRequest & { paused: boolean }): Promise<ActionResult<{ state: PausedState }>> {
  const { paused, ...rest } = request;
  try {
    const state = await (paused ? pauseSchedule : unpauseSchedule)({ ...rest, schedules: schedules() });
    return { ok: true, state };
  } catch (error) {
    return refusal(error);
  }
}

export async function runNow(request: ScheduleRequest & { requestId: string }): Promise<ActionResult<{ runId: string; created: boolean }>> {
  try {
    const ran = await runScheduleNow({ ...request, registry, schedules: schedules() });
    return { ok: true, runId: ran.runId, created: ran.created };
  } catch (error) {
    return refusal(error);
  }
}

function refusal(error: unknown): Refusal {
  if (ScheduleActionError.isInstance(error)) return { ok: false, kind: 'invalid', message: error.message };
  console.error('studio: schedule action failed:', error);
  return { ok: false, kind: 'error', message: 'The schedule action could not be recorded; the Studio’s server log says why.' };
}
