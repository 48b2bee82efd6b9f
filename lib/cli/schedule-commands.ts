/**
 * `gnl schedules`: the cron schedules, those this deployment declares (agents/schedules.ts) and those an
 * executor has ticked, with their next slot and their last run. Nothing here writes: executors (workers,
 * the Studio's server) start the slots.
 */
import type { Command } from 'commander';
import { listSchedules, type ScheduleView } from '@/lib/executor';
import { clean, dateTime, table } from './format';
import { jsonOption, wholeNumber } from './options';
import type { CliSession } from './session';

export function registerScheduleCommands(program: Command, session: CliSession): void {
  const schedules = program
    .command('schedules')
    .description('the cron schedules: next slot, last slot decided, last run (executors start the slots)')
    .option('--runs <n>', 'recent runs per schedule in --json (1 to 500, default 10)', wholeNumber(1, 500));
  jsonOption(schedules).action(async (opts: { runs?: number; json?: boolean }) => {
    const all = await listSchedules({ storage: session.storage(), schedules: session.schedules(), ...(opts.runs ? { recentRuns: opts.runs } : {}) });
    session.print({ text: scheduleLines(all), data: all }, opts.json);
  });
}

function scheduleLines(all: ScheduleView[]): string[] {
  if (all.length === 0) return ['No schedules: this deployment declares none (agents/schedules.ts) and no executor has ticked any.'];
  const rows = all.map((s) => [
    clean(s.id),
    clean(s.agent),
    clean(s.cron),
    clean(s.timeZone),
    s.missed,
    s.nextSlot ? dateTime(s.nextSlot) : 'never',
    s.lastRun ? `${clean(s.lastRun.runId)} (${s.lastRun.status})` : s.since ? 'none yet' : 'not ticked yet',
  ]);
  const notes = all.flatMap((s) => [
    ...(s.declared ? [] : [`${clean(s.id)}: not declared by this deployment (as an executor that ticked it last recorded it)`]),
    ...(s.lastMissed ? [`${clean(s.id)}: missed ${dateTime(s.lastMissed.first)} … ${dateTime(s.lastMissed.last)} (${s.missed})`] : []),
  ]);
  return [...table(['ID', 'AGENT', 'CRON', 'TIME ZONE', 'MISSED', 'NEXT SLOT', 'LAST RUN'], rows), ...(notes.length ? ['', ...notes] : [])];
}
