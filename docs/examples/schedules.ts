/**
 * The schedules guide's code (docs/schedules.md): a schedule declared beside the agent registry, the
 * executor that ticks it, an operator's pause, unpause and run now, and the listing the CLI and Studio show. The guide's code blocks are the
 * #region parts of this file (docs/examples/code-blocks.test.ts); type-checked with the rest, never
 * run (it would start a worker).
 */
// #region define-schedule
import { registry } from '@/agents';
import { defineSchedules } from '@/lib/agents';
import {
  Executor,
  listSchedules,
  pauseSchedule,
  runScheduleNow,
  unpauseSchedule,
} from '@/lib/executor';

// agents/schedules.ts: checked at once (a bad cron or time zone is an AgentDefinitionError naming it)
export const schedules = defineSchedules([
  {
    id: 'weekday-digest', // names its runs: sched:weekday-digest:2026-12-01T08:00:00.000Z
    agent: 'support',
    cron: '0 9 * * 1-5', // 09:00 on weekdays; six fields for seconds: '*/10 * * * * *'
    timeZone: 'Europe/Berlin', // default 'UTC'
    input: { prompt: 'Customer c_7 has a question about order o_21' },
    missed: 'latest', // after downtime: start the most recent missed slot once ('skip', the default: none)
    overlap: 'skip', // a slot due while the previous slot's run is open is skipped and recorded ('allow', the default: started)
  },
]);

// Every executor given them ticks them (npm run worker and the Studio pass the deployment's):
const executor = new Executor({ registry, schedules }).start();
// #endregion

// #region schedule-actions
await pauseSchedule({
  scheduleId: 'weekday-digest',
  by: 'ops@example.com',
  reason: 'provider outage',
  schedules,
});
await unpauseSchedule({
  scheduleId: 'weekday-digest',
  by: 'ops@example.com',
  reason: 'provider back',
  schedules,
});
// One extra run now, named by the request: the same requestId again (a double click, a retry) is the same run.
const { runId, created } = await runScheduleNow({
  scheduleId: 'weekday-digest',
  requestId: 'b1c2', // sched:weekday-digest:now:b1c2
  by: 'ops@example.com',
  reason: 'customer waiting',
  registry,
  schedules,
});
console.log(runId, created);
// #endregion

// #region list-schedules
for (const s of await listSchedules({ schedules })) {
  console.log(s.id, s.nextSlot?.toISOString(), s.lastRun?.runId, s.lastRun?.status);
}
await executor.stop();
// #endregion
