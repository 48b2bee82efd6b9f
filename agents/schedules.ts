/**
 * The schedules this deployment runs: agents started on a cron schedule, in a time zone, by whichever
 * executor runs (a worker, the Studio's server), one run per slot (docs/schedules.md). List each one
 * below, e.g.
 *
 *   { id: 'weekday-digest', agent: 'support', cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin', input: { prompt: '…' }, missed: 'skip' }
 *
 * Checked on first use, not at import (the Studio imports this folder for output schemas): a bad
 * schedule fails the worker's start or the command that reads it, with the schedule and problem named.
 * The demo declares one only when GNL_DEMO_SCHEDULE_CRON is set (lib/demo demo-config.ts), so that a
 * plain demo starts nothing by itself.
 */
import { defineSchedules, type Schedule } from '@/lib/agents';
import { demoScheduleTiming } from '@/lib/demo/demo-config';

/** Checked once per demo timing (a program that embeds the command line may change the environment between commands). */
let checked: { timing: string; schedules: readonly Schedule[] } | undefined;

/** The deployment's schedules, checked (defineSchedules): AgentDefinitionError naming the schedule and each problem. */
export function schedules(): readonly Schedule[] {
  const demo = demoScheduleTiming();
  const timing = JSON.stringify(demo ?? null);
  if (checked?.timing === timing) return checked.schedules;
  const declared = defineSchedules(
    demo ? [{ id: 'support-questions', agent: 'support', input: { prompt: 'Customer c_7 has a question about order o_21' }, ...demo }] : [],
  );
  checked = { timing, schedules: declared };
  return declared;
}
