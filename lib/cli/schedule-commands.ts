/**
 * `gnl schedules`: the cron schedules, those this deployment declares (agents/schedules.ts) and those an
 * executor has ticked, with their next slot and their last run; executors (workers, the Studio's server)
 * start the slots. `gnl schedules pause|resume|run-now <id>`: an operator's actions (lib/executor
 * schedule-control.ts), each with --by and --reason, audited in gnl.schedule_audit.
 */
import type { Command } from 'commander';
import { listSchedules, pauseSchedule, type PausedState, runScheduleNow, type ScheduleView, unpauseSchedule } from '@/lib/executor';
import { clean, dateTime, table } from './format';
import { byOption, jsonOption, wholeNumber } from './options';
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

  // `gnl schedules` has --json itself, so commander gives it `--json` written after a subcommand too.
  const asJson = (opts: { json?: boolean }) => opts.json ?? (schedules.opts() as { json?: boolean }).json;

  const pause = byOption(
    schedules.command('pause').description('pause a schedule: no executor starts its slots until it is resumed').argument('<scheduleId>', 'the schedule'),
    'pauses it',
  ).requiredOption('--reason <text>', 'why (recorded)');
  jsonOption(pause).action(async (scheduleId: string, opts: { by: string; reason: string; json?: boolean }) => {
    const state = await pauseSchedule({ storage: session.storage(), schedules: session.schedules(), scheduleId, by: opts.by, reason: opts.reason });
    session.print({ text: [pausedLine(state, 'Paused')], data: state }, asJson(opts));
  });

  const resume = byOption(
    schedules
      .command('resume')
      .description('unpause a schedule: its next slot starts; the slots that fell in the pause never do')
      .argument('<scheduleId>', 'the schedule'),
    'unpauses it',
  ).requiredOption('--reason <text>', 'why (recorded)');
  jsonOption(resume).action(async (scheduleId: string, opts: { by: string; reason: string; json?: boolean }) => {
    const state = await unpauseSchedule({ storage: session.storage(), schedules: session.schedules(), scheduleId, by: opts.by, reason: opts.reason });
    session.print({ text: [pausedLine(state, 'Resumed')], data: state }, asJson(opts));
  });

  const runNow = byOption(
    schedules
      .command('run-now')
      .description('start one extra run of a declared schedule now (its agent and input); the same --request-id again is the same run')
      .argument('<scheduleId>', 'the schedule')
      .option('--request-id <id>', 'names this request (default: the current minute, UTC: a repeat within the minute is the same run)'),
    'starts it',
  ).requiredOption('--reason <text>', 'why (recorded)');
  jsonOption(runNow).action(async (scheduleId: string, opts: { by: string; reason: string; requestId?: string; json?: boolean }) => {
    const requestId = opts.requestId ?? new Date().toISOString().slice(0, 16);
    const ran = await runScheduleNow({
      storage: session.storage(),
      registry: session.registry,
      schedules: session.schedules(),
      scheduleId,
      requestId,
      by: opts.by,
      reason: opts.reason,
    });
    const text = ran.created
      ? `Started ${clean(ran.runId)} (by ${clean(opts.by)}: ${clean(opts.reason)}). An executor runs it (npm run worker, or the Studio).`
      : `${clean(ran.runId)} was started by this request already: nothing new.`;
    session.print({ text: [text], data: ran }, asJson(opts));
  });
}

function pausedLine(state: PausedState, verb: 'Paused' | 'Resumed'): string {
  if (!state.changed) return `Schedule ${clean(state.scheduleId)} was ${state.paused ? 'paused' : 'not paused'} already: nothing changed.`;
  return `${verb} schedule ${clean(state.scheduleId)}${state.paused ? ` (by ${clean(state.paused.by)}${state.paused.reason ? `: ${clean(state.paused.reason)}` : ''})` : ''}.`;
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
    ...(s.paused ? [`${clean(s.id)}: PAUSED by ${clean(s.paused.by)} at ${dateTime(s.paused.at)}${s.paused.reason ? `: ${clean(s.paused.reason)}` : ''}`] : []),
    ...(s.overlap === 'skip' ? [`${clean(s.id)}: overlap skip (a slot due while the last slot's run is open is skipped)`] : []),
  ]);
  return [...table(['ID', 'AGENT', 'CRON', 'TIME ZONE', 'MISSED', 'NEXT SLOT', 'LAST RUN'], rows), ...(notes.length ? ['', ...notes] : [])];
}
