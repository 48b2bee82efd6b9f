/**
 * listSchedules: the schedules as `gnl schedules` and the Studio show them: the ones this caller
 * declares (the deployment's, agents/schedules.ts) and the ones any executor has ticked (gnl.schedules),
 * each with its next slot by the database's clock, the latest slot decided, its last run and most
 * recent runs with their status (the runs' summary, which the journal's projection keeps).
 */
import { nextSlot, type Schedule, scheduleRunPrefix } from '@/lib/agents';
import { resolveStorage, type StorageContext } from '../context';
import { type ScheduleAuditRow, type ScheduleRow, type ScheduleRunRow, ScheduleStore } from './schedule-store';

export interface ScheduleView {
  id: string;
  agent: string;
  cron: string;
  timeZone: string;
  missed: string;
  graceMs: number;
  /** Declared by the caller (this deployment); false: only recorded by an executor that ticked it. */
  declared: boolean;
  /** When an executor first ticked it; null if none has yet (no executor runs the declared schedule). */
  since: Date | null;
  /** The next slot after now (and after the latest slot decided); null if the cron never fires again. */
  nextSlot: Date | null;
  /** The latest slot decided (started, or missed and skipped). */
  lastSlot: Date | null;
  /** The run of the latest slot started, with its status now (null: none, or no longer in the journal). */
  lastRun: { runId: string; status: string; startedAt: Date | null } | null;
  /** The latest missed slots that were not started ('skip'), or of which only the last was ('latest'). */
  lastMissed: { first: Date; last: Date } | null;
  /** The most recent runs, newest first (run-now runs among them: `sched:<id>:now:<request>`). */
  recentRuns: ScheduleRunRow[];
  /** 'allow' or 'skip' (a slot due while the previous slot's run is open is skipped and recorded). */
  overlap: string;
  /** Set while an operator has it paused: who, when, why. */
  paused: { at: Date; by: string; reason: string | null } | null;
  /** The most recent operator actions and overlap skips (gnl.schedule_audit), newest first. */
  recentActions: ScheduleAuditRow[];
}

export interface ListSchedulesOptions extends StorageContext {
  /** The schedules this caller declares (e.g. agents/schedules.ts). Default none: the recorded ones only. */
  schedules?: readonly Schedule[];
  /** Recent runs per schedule. Default 10. */
  recentRuns?: number;
}

export async function listSchedules(options: ListSchedulesOptions = {}): Promise<ScheduleView[]> {
  const { storage } = resolveStorage(options);
  const store = new ScheduleStore(() => storage.database());
  const { rows, now } = await store.list();
  const byId = new Map(rows.map((row) => [row.scheduleId, row]));
  const declared = new Map((options.schedules ?? []).map((s) => [s.id, s]));
  const ids = [...new Set([...declared.keys(), ...byId.keys()])].sort();
  const limit = Math.max(1, Math.min(500, options.recentRuns ?? 10));
  return Promise.all(ids.map((id) => view({ id, schedule: declared.get(id), row: byId.get(id), now, store, limit })));
}

async function view(args: { id: string; schedule?: Schedule; row?: ScheduleRow; now: Date; store: ScheduleStore; limit: number }): Promise<ScheduleView> {
  const { id, schedule, row, now, store, limit } = args;
  const definition = schedule ?? (row as ScheduleRow);
  const recentRuns = await store.runsWithPrefix(scheduleRunPrefix(id), limit);
  const recentActions = await store.audit(id, limit);
  const after = row?.lastSlot && row.lastSlot > now ? row.lastSlot : now;
  const lastRunId = row?.lastRunId ?? null;
  const lastRunRow = lastRunId ? (recentRuns.find((r) => r.runId === lastRunId) ?? (await store.runsWithPrefix(lastRunId, 1))[0]) : undefined;
  return {
    id,
    agent: definition.agent,
    cron: definition.cron,
    timeZone: definition.timeZone,
    missed: definition.missed,
    graceMs: definition.graceMs,
    declared: schedule !== undefined,
    since: row?.since ?? null,
    nextSlot: nextSlot(definition, after),
    lastSlot: row?.lastSlot ?? null,
    lastRun: lastRunRow ? { runId: lastRunRow.runId, status: lastRunRow.status, startedAt: row?.lastStartedAt ?? null } : null,
    lastMissed: row?.lastMissedFrom && row.lastMissedTo ? { first: row.lastMissedFrom, last: row.lastMissedTo } : null,
    recentRuns,
    overlap: schedule?.overlap ?? row?.overlap ?? 'allow',
    paused: row?.pausedAt && row.pausedBy ? { at: row.pausedAt, by: row.pausedBy, reason: row.pauseReason } : null,
    recentActions,
  };
}
