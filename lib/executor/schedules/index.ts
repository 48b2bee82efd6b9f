/**
 * Cron schedules. The schedule ticker (schedule-ticker.ts) starts each due slot's run, the slot naming
 * its runId so two executors never start it twice; schedule-store.ts holds the schedules' rows,
 * schedule-control.ts pauses, unpauses and runs one now, schedule-list.ts lists them. docs/schedules.md.
 * Re-exported by lib/executor/index.ts, the layer's public surface; files of the layer import each other directly.
 */
export { listSchedules, type ListSchedulesOptions, type ScheduleView } from './schedule-list';
export type { ScheduleEvent, TickReport } from './schedule-ticker';
export {
  pauseSchedule,
  unpauseSchedule,
  runScheduleNow,
  type ScheduleActionRequest,
  type RunScheduleNowRequest,
  type PausedState,
  type RanScheduleNow,
} from './schedule-control';
