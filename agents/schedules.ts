/**
 * The schedules this deployment runs: agents started on a cron schedule, in a time zone, by whichever
 * executor runs (a worker, the Studio's server), one run per slot (docs/schedules.md). List each one
 * below, e.g.
 *
 *   defineSchedule({ id: 'weekday-digest', agent: 'support', cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin',
 *     input: { prompt: '…' }, missed: 'skip' })
 *
 * The demo declares one only when GNL_DEMO_SCHEDULE_CRON is set (lib/demo demo-config.ts), so that a
 * plain demo starts nothing by itself.
 */
import { defineSchedules } from '@/lib/agents';
import { demoScheduleTiming } from '@/lib/demo/demo-config';

const demo = demoScheduleTiming();

export const schedules = defineSchedules(
  demo ? [{ id: 'support-questions', agent: 'support', input: { prompt: 'Customer c_7 has a question about order o_21' }, ...demo }] : [],
);
