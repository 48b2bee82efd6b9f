/**
 * gnl.schedules (migration 0012): each declared schedule as the executors last saw it, and the latest
 * slot decided for it. Bookkeeping beside the journal, updated in place:
 *
 *   prepare   records the schedule's definition (first tick: `since` = now, database clock) and reads
 *             the latest slot decided, with the database's clock, so executors whose clocks disagree
 *             decide the same slots;
 *   advance   moves `last_slot` forward only (a slower executor's older decision never moves it back);
 *   pause / unpause   an operator's, each one statement that changes the row and appends its audit row
 *             (gnl.schedule_audit, append-only: migration 0014), or changes nothing; unpausing moves
 *             `last_slot` to now, so the slots that fell in the pause are never started;
 *   recordRunNow / recordSkip   audit rows, once per run-now run and per skipped slot (unique indexes).
 *
 * `advance` comes after the slots' runs are started, never in one transaction with them: a tick that
 * dies between the two is repeated, and the repeat starts the same runIds, which startRun finds
 * recorded (the journal creates a run once). So the table needs no lock held across a run's start.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Schedule } from '@/lib/agents';
import type { Storage } from '@/lib/durable/storage';

type Database = Awaited<ReturnType<Storage['database']>>;

/** A schedule's row. */
export interface ScheduleRow {
  scheduleId: string;
  agent: string;
  cron: string;
  timeZone: string;
  missed: string;
  graceMs: number;
  since: Date;
  lastSlot: Date | null;
  lastRunId: string | null;
  lastStartedAt: Date | null;
  lastMissedFrom: Date | null;
  lastMissedTo: Date | null;
  updatedAt: Date;
  overlap: string;
  /** Set while paused: no executor starts the schedule's slots. */
  pausedAt: Date | null;
  pausedBy: string | null;
  pauseReason: string | null;
}

/** A row of gnl.schedule_audit. */
export interface ScheduleAuditRow {
  id: number;
  scheduleId: string;
  action: 'pause' | 'unpause' | 'run-now' | 'overlap-skip';
  by: string;
  reason: string | null;
  at: Date;
  slot: Date | null;
  runId: string | null;
}

/** A run of a schedule, from the runs' summary. */
export interface ScheduleRunRow {
  runId: string;
  status: string;
  createdAt: Date;
}

const COLUMNS = sql`schedule_id as "scheduleId", agent, cron, time_zone as "timeZone", missed, grace_ms as "graceMs", since,
  last_slot as "lastSlot", last_run_id as "lastRunId", last_started_at as "lastStartedAt", last_missed_from as "lastMissedFrom",
  last_missed_to as "lastMissedTo", updated_at as "updatedAt", overlap, paused_at as "pausedAt", paused_by as "pausedBy",
  pause_reason as "pauseReason"`;

const ROW_DATES = ['since', 'lastSlot', 'lastStartedAt', 'lastMissedFrom', 'lastMissedTo', 'updatedAt', 'pausedAt'] as const;

/** Timestamps arrive as Dates from postgres.js and as strings from PGlite's raw results: Dates either way. */
function withDates<T extends object>(row: T, fields: readonly string[]): T {
  const out = { ...row } as Record<string, unknown>;
  for (const field of fields) {
    const value = out[field];
    if (value !== null && value !== undefined && !(value instanceof Date)) out[field] = new Date(value as string);
  }
  return out as T;
}

const at = (date: Date | null | undefined) => (date ? sql`${date.toISOString()}::timestamptz` : sql`null::timestamptz`);

export class ScheduleStore {
  constructor(private readonly database: () => Promise<Database>) {}

  private async rows<T>(statement: SQL): Promise<T[]> {
    const result = (await (await this.database()).execute(statement)) as unknown;
    return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  }

  /** Records the definition (the latest declaring executor's wins) and returns the row and the database's now. */
  async prepare(schedule: Schedule): Promise<{ row: ScheduleRow; now: Date }> {
    await this.rows(sql`
      insert into gnl.schedules as s (schedule_id, agent, cron, time_zone, missed, grace_ms, overlap)
      values (${schedule.id}, ${schedule.agent}, ${schedule.cron}, ${schedule.timeZone}, ${schedule.missed}, ${schedule.graceMs}::int, ${schedule.overlap})
      on conflict (schedule_id) do update set agent = excluded.agent, cron = excluded.cron, time_zone = excluded.time_zone,
        missed = excluded.missed, grace_ms = excluded.grace_ms, overlap = excluded.overlap, updated_at = now()
      where (s.agent, s.cron, s.time_zone, s.missed, s.grace_ms, s.overlap) is distinct from
        (excluded.agent, excluded.cron, excluded.time_zone, excluded.missed, excluded.grace_ms, excluded.overlap)`);
    const [row] = await this.rows<ScheduleRow & { now: Date }>(sql`select ${COLUMNS}, now() as now from gnl.schedules where schedule_id = ${schedule.id}`);
    if (!row) throw new Error(`Schedule "${schedule.id}" was recorded but cannot be read back.`);
    const { now, ...rest } = withDates(row, [...ROW_DATES, 'now']);
    return { row: rest, now };
  }

  /** Moves the latest slot decided forward to `through` (never back), with the run started last and the slots missed. */
  async advance(args: { scheduleId: string; through: Date; lastRunId?: string; missed?: { first: Date; last: Date } | null }): Promise<boolean> {
    const { scheduleId, through, lastRunId, missed } = args;
    const moved = await this.rows<{ scheduleId: string }>(sql`
      update gnl.schedules set last_slot = ${at(through)},
        last_run_id = coalesce(${lastRunId ?? null}::text, last_run_id),
        last_started_at = case when ${lastRunId ?? null}::text is null then last_started_at else now() end,
        last_missed_from = coalesce(${at(missed?.first)}, last_missed_from),
        last_missed_to = coalesce(${at(missed?.last)}, last_missed_to),
        updated_at = now()
      where schedule_id = ${scheduleId} and (last_slot is null or last_slot < ${at(through)})
      returning schedule_id as "scheduleId"`);
    return moved.length === 1;
  }

  /** Pauses the schedule, recording who and why; false (nothing written) when it is paused already or has no row. */
  async pause(args: { scheduleId: string; by: string; reason: string }): Promise<boolean> {
    const { scheduleId, by, reason } = args;
    const audited = await this.rows<{ id: number }>(sql`
      with paused as (
        update gnl.schedules set paused_at = now(), paused_by = ${by}, pause_reason = ${reason}, updated_at = now()
        where schedule_id = ${scheduleId} and paused_at is null returning schedule_id)
      insert into gnl.schedule_audit (schedule_id, action, by, reason)
      select schedule_id, 'pause', ${by}, ${reason} from paused returning id`);
    return audited.length === 1;
  }

  /**
   * Unpauses the schedule, recording who and why; false (nothing written) when it is not paused. The
   * latest slot decided moves to now: slots that fell in the pause are never started, whatever `missed` says.
   */
  async unpause(args: { scheduleId: string; by: string; reason: string }): Promise<boolean> {
    const { scheduleId, by, reason } = args;
    const audited = await this.rows<{ id: number }>(sql`
      with resumed as (
        update gnl.schedules set paused_at = null, paused_by = null, pause_reason = null,
          last_slot = greatest(coalesce(last_slot, since), now()), updated_at = now()
        where schedule_id = ${scheduleId} and paused_at is not null returning schedule_id)
      insert into gnl.schedule_audit (schedule_id, action, by, reason)
      select schedule_id, 'unpause', ${by}, ${reason} from resumed returning id`);
    return audited.length === 1;
  }

  /** Records an operator's run-now (who, why, the run); false when this run was recorded already (the same request). */
  async recordRunNow(args: { scheduleId: string; by: string; reason: string; runId: string }): Promise<boolean> {
    const { scheduleId, by, reason, runId } = args;
    const inserted = await this.rows<{ id: number }>(sql`
      insert into gnl.schedule_audit (schedule_id, action, by, reason, run_id) values (${scheduleId}, 'run-now', ${by}, ${reason}, ${runId})
      on conflict (run_id) where action = 'run-now' do nothing returning id`);
    return inserted.length === 1;
  }

  /** Records a slot skipped because `openRunId` is still open (once per slot, whichever executors skip it). */
  async recordSkip(args: { scheduleId: string; slot: Date; openRunId: string; reason: string }): Promise<void> {
    const { scheduleId, slot, openRunId, reason } = args;
    await this.rows(sql`
      insert into gnl.schedule_audit (schedule_id, action, by, reason, slot, run_id)
      values (${scheduleId}, 'overlap-skip', 'gnl', ${reason}, ${at(slot)}, ${openRunId})
      on conflict (schedule_id, slot) where action = 'overlap-skip' do nothing`);
  }

  /** The schedule's audit, newest first. */
  async audit(scheduleId: string, limit: number): Promise<ScheduleAuditRow[]> {
    const rows = await this.rows<ScheduleAuditRow>(sql`
      select id::int as id, schedule_id as "scheduleId", action, by, reason, at, slot, run_id as "runId"
      from gnl.schedule_audit where schedule_id = ${scheduleId} order by id desc limit ${limit}::int`);
    return rows.map((row) => withDates(row, ['at', 'slot']));
  }

  /** A run's status from the runs' summary (undefined: no such run). */
  async runStatus(runId: string): Promise<string | undefined> {
    const [row] = await this.rows<{ status: string }>(sql`select status from gnl.runs where run_id = ${runId}`);
    return row?.status;
  }

  async row(scheduleId: string): Promise<ScheduleRow | undefined> {
    const [row] = await this.rows<ScheduleRow>(sql`select ${COLUMNS} from gnl.schedules where schedule_id = ${scheduleId}`);
    return row ? withDates(row, ROW_DATES) : undefined;
  }

  async list(): Promise<{ rows: ScheduleRow[]; now: Date }> {
    const rows = await this.rows<ScheduleRow>(sql`select ${COLUMNS} from gnl.schedules order by schedule_id`);
    const [clock] = await this.rows<{ now: Date }>(sql`select now() as now`);
    return { rows: rows.map((row) => withDates(row, ROW_DATES)), now: new Date((clock as { now: Date }).now) };
  }

  /** The runs whose id starts with `prefix`, newest first (the runs' summary; its prefix index). */
  async runsWithPrefix(prefix: string, limit: number): Promise<ScheduleRunRow[]> {
    const pattern = `${prefix.replace(/[\\%_]/g, '\\$&')}%`;
    const rows = await this.rows<ScheduleRunRow>(sql`
      select run_id as "runId", status, created_at as "createdAt" from gnl.runs
      where run_id like ${pattern} escape '\\' order by created_at desc, run_id desc limit ${limit}::int`);
    return rows.map((row) => withDates(row, ['createdAt']));
  }
}
