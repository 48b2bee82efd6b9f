/**
 * What operators do to schedules (the CLI, the Studio's server actions): pause one, unpause it, or start
 * one extra run now. Each is audited in gnl.schedule_audit with who and why (append-only), in the same
 * statement as the change (schedule-store.ts).
 *
 * Pause lives in the schedule's row, so every executor that ticks it (workers, the Studio's server, one
 * started after a restart) reads it at its next tick and starts nothing. Run now names its run by the
 * request (`scheduleRunNowId`): the same request again, a double click or a retry, is the same run.
 */
import { z } from 'zod';
import { type Schedule, scheduleRunNowId } from '@/lib/agents';
import { type ExecutorContext, resolveStorage, type StorageContext } from '../context';
import { ScheduleActionError } from '../errors';
import { type ScheduleRow, ScheduleStore } from './schedule-store';
import { startRun } from '../start-run';

export interface ScheduleActionRequest extends StorageContext {
  scheduleId: string;
  /** Who (an operator's login; `os:<user>@<host>` for the command line): recorded. */
  by: string;
  /** Why: required, recorded. */
  reason: string;
  /** The schedules this caller declares (agents/schedules.ts): a declared schedule no executor ticked yet can be paused too. */
  schedules?: readonly Schedule[];
}

export interface PausedState {
  scheduleId: string;
  /** False when it was already in the state asked for (nothing written). */
  changed: boolean;
  paused: { at: Date; by: string; reason: string | null } | null;
}

const actionSchema = z.object({
  scheduleId: z.string().min(1, 'scheduleId is required'),
  by: z.string().trim().min(1, 'by is required: who acts is recorded'),
  reason: z.string().trim().min(1, 'reason is required: why is recorded').max(4000),
});

function parse<T extends z.ZodType>(schema: T, request: unknown): z.output<T> {
  const parsed = schema.safeParse(request);
  if (!parsed.success)
    throw new ScheduleActionError({
      reason: 'invalid',
      scheduleId: String((request as { scheduleId?: unknown }).scheduleId ?? ''),
      message: z.prettifyError(parsed.error),
      cause: parsed.error,
    });
  return parsed.data;
}

/** Pauses a schedule: no executor starts its slots until it is unpaused. Pausing a paused schedule changes nothing. */
export async function pauseSchedule(request: ScheduleActionRequest): Promise<PausedState> {
  const { scheduleId, by, reason } = parse(actionSchema, request);
  const store = storeOf(request);
  await knownRow(store, scheduleId, request.schedules);
  const changed = await store.pause({ scheduleId, by, reason });
  return stateOf(scheduleId, changed, await store.row(scheduleId));
}

/** Unpauses a schedule: its next slot after now starts as usual; the slots that fell in the pause never start. */
export async function unpauseSchedule(request: ScheduleActionRequest): Promise<PausedState> {
  const { scheduleId, by, reason } = parse(actionSchema, request);
  const store = storeOf(request);
  await knownRow(store, scheduleId, request.schedules);
  const changed = await store.unpause({ scheduleId, by, reason });
  return stateOf(scheduleId, changed, await store.row(scheduleId));
}

export interface RunScheduleNowRequest extends ScheduleActionRequest, ExecutorContext {
  /** Names this request: the same one again is the same run (1 to 100 of A-Z a-z 0-9 . _ : -). */
  requestId: string;
  /** Required here: the run takes the declared schedule's agent and input. */
  schedules: readonly Schedule[];
}

export interface RanScheduleNow {
  scheduleId: string;
  runId: string;
  /** False when this request's run existed already (nothing started, nothing recorded again). */
  created: boolean;
}

/**
 * Starts one extra run of a declared schedule now (its agent and input), outside its slots and whether
 * or not it is paused; `overlap` does not apply. Audited first (who, why, the run), then started
 * through startRun: a request repeated after either step finds its record and its run.
 */
export async function runScheduleNow(request: RunScheduleNowRequest): Promise<RanScheduleNow> {
  const { scheduleId, by, reason } = parse(actionSchema, request);
  const schedule = request.schedules.find((s) => s.id === scheduleId);
  if (!schedule)
    throw new ScheduleActionError({
      reason: 'not-declared',
      scheduleId,
      message: `Schedule "${scheduleId}" is not declared by this deployment: its agent and input are not known here.`,
    });
  let runId: string;
  try {
    runId = scheduleRunNowId(scheduleId, request.requestId);
  } catch (error) {
    throw new ScheduleActionError({ reason: 'invalid', scheduleId, message: (error as Error).message, cause: error });
  }
  const store = storeOf(request);
  await store.prepare(schedule);
  await store.recordRunNow({ scheduleId, by, reason, runId });
  const started = await startRun({ storage: request.storage, registry: request.registry, agent: schedule.agent, runId, input: schedule.input });
  return { scheduleId, runId, created: started.created };
}

function storeOf(context: StorageContext): ScheduleStore {
  const { storage } = resolveStorage(context);
  return new ScheduleStore(() => storage.database());
}

/** The schedule's row, recorded now for a declared schedule no executor has ticked yet; refused when it is neither. */
async function knownRow(store: ScheduleStore, scheduleId: string, declared: readonly Schedule[] = []): Promise<ScheduleRow> {
  const row = await store.row(scheduleId);
  if (row) return row;
  const schedule = declared.find((s) => s.id === scheduleId);
  if (!schedule)
    throw new ScheduleActionError({ reason: 'unknown-schedule', scheduleId, message: `No schedule "${scheduleId}": not declared here, never ticked.` });
  return (await store.prepare(schedule)).row;
}

function stateOf(scheduleId: string, changed: boolean, row: ScheduleRow | undefined): PausedState {
  const paused = row?.pausedAt && row.pausedBy ? { at: row.pausedAt, by: row.pausedBy, reason: row.pauseReason } : null;
  return { scheduleId, changed, paused };
}
