/**
 * defineSchedule: an agent started on a cron schedule, in a time zone. A schedule is data, declared in
 * code beside the agent registry (agents/schedules.ts); the executors (lib/executor schedule-ticker.ts)
 * start its due slots, one run per slot, named by scheduleRunId. When the slots fall is slot-times.ts.
 *
 * Everything is checked here, with zod and by croner itself: a bad id, cron expression, time zone or
 * input is an AgentDefinitionError naming the schedule and each problem, before any executor starts.
 */
import { Cron } from 'croner';
import { z } from 'zod';
import { AgentDefinitionError } from './errors';
import { type AgentInput, agentInputSchema } from './run-agent';

/** What happens to slots that passed while no executor ran (after `graceMs`). */
export type MissedSlots = 'skip' | 'latest';

/** A slot due while the previous slot's run is still open: 'allow' starts it anyway, 'skip' records it as skipped. */
export type SlotOverlap = 'skip' | 'allow';

export interface ScheduleDefinition {
  /** Names the schedule and its runs: 1 to 100 of A-Z a-z 0-9 . _ -. Never rename a live schedule: its runs' ids come from it. */
  id: string;
  /** The registered agent each slot starts. */
  agent: string;
  /** Five fields (minute hour day month weekday) or six with seconds first; croner's syntax (L, W, #, names). */
  cron: string;
  /** IANA time zone the cron is read in (e.g. 'Europe/Berlin'): 09:00 stays 09:00 across DST. Default 'UTC'. */
  timeZone?: string;
  /** The input of every slot's run. */
  input: AgentInput;
  /**
   * Slots more than `graceMs` in the past when an executor looks (no executor ran then): 'skip' starts
   * none of them, 'latest' starts the most recent one once. Default 'skip'.
   */
  missed?: MissedSlots;
  /** How late a slot may start and still be on time (started whatever `missed` says). Default 60 000 ms. */
  graceMs?: number;
  /**
   * A slot due while the run of the schedule's previous slot is still open (running, or waiting for a
   * person): 'allow' starts it anyway; 'skip' starts nothing for it and records the skip, with the open
   * run (gnl.schedule_audit). Default 'allow'.
   */
  overlap?: SlotOverlap;
}

/** A checked schedule: every field present. */
export interface Schedule extends Required<ScheduleDefinition> {
  readonly kind: 'gnl-schedule';
}

export const DEFAULT_GRACE_MS = 60_000;

const SCHEDULE_ID = /^[A-Za-z0-9._-]{1,100}$/;

const definitionSchema = z.strictObject({
  id: z.string({ error: 'id must be a string' }).regex(SCHEDULE_ID, 'id must be 1 to 100 of A-Z a-z 0-9 . _ -'),
  agent: z.string({ error: 'agent must be the name of a registered agent' }).min(1, 'agent must not be empty'),
  cron: z.string({ error: 'cron must be a string' }),
  timeZone: z.string({ error: 'timeZone must be an IANA time zone name' }).default('UTC'),
  input: agentInputSchema,
  missed: z.enum(['skip', 'latest'], { error: "missed must be 'skip' or 'latest'" }).default('skip'),
  graceMs: z
    .number({ error: 'graceMs must be a number of milliseconds' })
    .int('graceMs must be a whole number of milliseconds')
    .min(0, 'graceMs must not be negative')
    .default(DEFAULT_GRACE_MS),
  overlap: z.enum(['skip', 'allow'], { error: "overlap must be 'skip' or 'allow'" }).default('allow'),
});

/** The croner job for a cron in a zone (never started: it only computes). Throws croner's own error. */
export function cronOf(cron: string, timeZone: string): Cron {
  return new Cron(cron, { timezone: timeZone, mode: '5-or-6-parts' });
}

function timeZoneProblem(timeZone: string): string | undefined {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return undefined;
  } catch {
    return `timeZone "${timeZone}" is not an IANA time zone (e.g. "Europe/Berlin", "UTC")`;
  }
}

function cronProblem(cron: string, timeZone: string): string | undefined {
  try {
    if (cronOf(cron, timeZone).nextRun() === null) return `cron "${cron}" never fires`;
    return undefined;
  } catch (error) {
    return `cron "${cron}": ${error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error)}`;
  }
}

export function defineSchedule(definition: ScheduleDefinition): Schedule {
  const parsed = definitionSchema.safeParse(definition);
  const name = typeof (definition as { id?: unknown })?.id === 'string' ? `"${(definition as { id: string }).id}"` : '(no id)';
  const what = `defineSchedule ${name} refused`;
  if (!parsed.success)
    throw new AgentDefinitionError({ what, problems: parsed.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`) });
  const schedule = parsed.data;
  const zoneProblem = timeZoneProblem(schedule.timeZone);
  const problem = zoneProblem ?? cronProblem(schedule.cron, schedule.timeZone);
  if (problem) throw new AgentDefinitionError({ what, problems: [problem] });
  return Object.freeze({ ...schedule, input: schedule.input as AgentInput, kind: 'gnl-schedule' as const });
}

/** Checks a deployment's schedules together: each defined, ids unique. */
export function defineSchedules(definitions: readonly ScheduleDefinition[]): readonly Schedule[] {
  const schedules = definitions.map(defineSchedule);
  const seen = new Set<string>();
  const duplicates = schedules.filter((s) => seen.size === seen.add(s.id).size).map((s) => `"${s.id}"`);
  if (duplicates.length > 0) throw new AgentDefinitionError({ what: 'defineSchedules refused', problems: [`duplicate schedule ids ${duplicates.join(', ')}`] });
  return Object.freeze(schedules);
}

/**
 * The runId of a schedule's slot: `sched:<id>:<slot in ISO 8601 UTC>`. The one place it is built. It is
 * the slot's identity: however many executors tick, and however often one restarts during a slot,
 * they all start this runId, and the journal creates a run once (startRun is idempotent by runId). So
 * it never changes for a slot already started, and the slot is UTC, never the zone's local time (which
 * repeats an hour when DST ends).
 */
export function scheduleRunId(scheduleId: string, slot: Date): string {
  return `sched:${scheduleId}:${slot.toISOString()}`;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,100}$/;

/**
 * The runId of an operator's "run now" of a schedule: `sched:<id>:now:<requestId>`. The request id names
 * the request, not the click: a double click, a retried request or two executors given the same one
 * make one run (startRun creates a runId once). Clients pass one per request (the Studio: one per form;
 * the CLI: the minute, unless given). Throws a TypeError for a request id that is not 1 to 100 of
 * A-Z a-z 0-9 . _ : -.
 */
export function scheduleRunNowId(scheduleId: string, requestId: string): string {
  if (!REQUEST_ID.test(requestId)) throw new TypeError(`requestId "${requestId}" must be 1 to 100 of A-Z a-z 0-9 . _ : -`);
  return `sched:${scheduleId}:now:${requestId}`;
}

/** The prefix every run of the schedule has (for listing them). */
export function scheduleRunPrefix(scheduleId: string): string {
  return `sched:${scheduleId}:`;
}
