/**
 * The schedule ticker: every executor given `schedules` ticks them, whichever and however many run.
 * A tick, per schedule: record it and read the latest slot decided with the database's clock
 * (schedule-store.ts), ask slotsDue (lib/agents, pure) which slots to start, start each as the run
 * `scheduleRunId(id, slot)`, then move the latest slot decided forward.
 *
 * Each slot runs once because its runId is the slot: two executors ticking at once, or one that dies
 * after starting a slot and before recording it, start the same runId, and startRun creates a run once
 * (the journal refuses a second `run-start`; the queue's enqueue does nothing for a queued run). The
 * ticker sleeps until the earliest next slot (measured from the database's clock, so a skewed local
 * clock only shifts the wake-up, never the decision), at most `maxSleepMs`.
 *
 * A paused schedule (an operator's, in its row: every executor reads it at each tick) starts nothing and
 * decides nothing; unpausing moves its latest slot decided to then. With `overlap: 'skip'`, a slot due
 * while the run of the schedule's previous slot is open is skipped: recorded (schedule_audit, with the
 * open run) and decided, never started later.
 */
import { type AgentRegistry, type AgentInput, type Schedule, scheduleRunId, type SlotsDue, slotsDue, UnknownAgentError } from '@/lib/agents';
import { RunDivergedError, RunRetiredError } from '@/lib/durable';
import type { ScheduleStore } from './schedule-store';
import type { StartedRun } from '../start-run';

export type ScheduleEvent =
  | { type: 'schedule-started'; scheduleId: string; slot: string; runId: string; created: boolean }
  | { type: 'schedule-missed'; scheduleId: string; policy: Schedule['missed']; first: string; last: string }
  | { type: 'schedule-skipped'; scheduleId: string; slot: string; openRunId: string; openStatus: string };

/** Statuses of a run that is still open for `overlap: 'skip'`: executing or queued, or waiting for a person. A failed run is not. */
const OPEN_STATUSES = new Set(['running', 'waiting-approval', 'waiting-tool-result', 'blocked']);

/** What one tick did for one schedule. */
export interface TickReport {
  scheduleId: string;
  /** The slots whose runs this tick started or found started (`created: false`), oldest first. */
  started: { slot: Date; runId: string; created: boolean }[];
  missed: SlotsDue['missed'];
  /** Slots skipped because the previous slot's run was open (`overlap: 'skip'`), with that run. */
  skipped: { slot: Date; openRunId: string; openStatus: string }[];
  /** True when the schedule is paused: nothing was started or decided. */
  paused: boolean;
  /** The schedule's next slot (null: the cron never fires again), and how long until it by the clock the tick used. */
  next: Date | null;
  dueInMs: number | null;
  /** Why the schedule could not be ticked (nothing was recorded as decided; the next tick tries again). */
  error?: unknown;
}

export interface ScheduleTickerOptions {
  schedules: readonly Schedule[];
  registry: AgentRegistry;
  store: ScheduleStore;
  /** Starts one slot's run (the executor's startRun: idempotent by runId). */
  start: (run: { agent: string; runId: string; input: AgentInput }) => Promise<StartedRun>;
  onEvent?: (event: ScheduleEvent) => void;
  onError?: (scheduleId: string, error: unknown) => void;
  /** The longest sleep between ticks. Default 60 000 ms. */
  maxSleepMs?: number;
}

export class ScheduleTicker {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private ticking: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ScheduleTickerOptions) {
    const seen = new Set<string>();
    for (const schedule of options.schedules) {
      if (schedule?.kind !== 'gnl-schedule') throw new TypeError('Executor schedules must be made by defineSchedule (lib/agents).');
      if (seen.size === seen.add(schedule.id).size) throw new TypeError(`Two schedules have the id "${schedule.id}".`);
      try {
        options.registry.getAgent(schedule.agent);
      } catch (error) {
        if (!UnknownAgentError.isInstance(error)) throw error;
        throw new UnknownAgentError({ agentName: error.agentName, known: error.known, hint: `schedule "${schedule.id}" starts it` });
      }
    }
  }

  /** Ticks now, then at each schedule's next slot until stop(). */
  start(): void {
    if (this.running || this.options.schedules.length === 0) return;
    this.running = true;
    this.wakeIn(0);
  }

  /** Stops ticking; resolves when a tick under way has ended. */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.ticking;
  }

  /**
   * One tick of every schedule. `now` replaces the database's clock (tests of missed slots). A schedule
   * that fails is reported and left as it was; the others go on.
   */
  async tick(options: { now?: Date } = {}): Promise<TickReport[]> {
    const reports: TickReport[] = [];
    for (const schedule of this.options.schedules) reports.push(await this.tickOne(schedule, options.now));
    return reports;
  }

  private async tickOne(schedule: Schedule, fixedNow: Date | undefined): Promise<TickReport> {
    const report: TickReport = { scheduleId: schedule.id, started: [], skipped: [], paused: false, missed: null, next: null, dueInMs: null };
    try {
      const { row, now: dbNow } = await this.options.store.prepare(schedule);
      const now = fixedNow ?? dbNow;
      const due = slotsDue({ schedule, after: row.lastSlot ?? row.since, now });
      report.next = due.next;
      report.dueInMs = due.next ? due.next.getTime() - now.getTime() : null;
      if (row.pausedAt) {
        report.paused = true;
        return report;
      }
      report.missed = due.missed;
      if (due.missed)
        this.emit({
          type: 'schedule-missed',
          scheduleId: schedule.id,
          policy: schedule.missed,
          first: due.missed.first.toISOString(),
          last: due.missed.last.toISOString(),
        });
      let previous = row.lastRunId;
      for (const slot of due.start) {
        const runId = scheduleRunId(schedule.id, slot);
        const open = schedule.overlap === 'skip' && previous ? await this.openRun(previous, runId) : undefined;
        if (open && previous) {
          await this.skip(schedule, slot, previous, open);
          report.skipped.push({ slot, openRunId: previous, openStatus: open });
          continue;
        }
        previous = runId;
        const created = await this.startSlot(schedule, runId);
        report.started.push({ slot, runId, created });
        this.emit({ type: 'schedule-started', scheduleId: schedule.id, slot: slot.toISOString(), runId, created });
      }
      const lastRunId = report.started.at(-1)?.runId;
      if (due.through)
        await this.options.store.advance({ scheduleId: schedule.id, through: due.through, missed: due.missed, ...(lastRunId ? { lastRunId } : {}) });
    } catch (error) {
      report.error = error;
      this.options.onError?.(schedule.id, error);
    }
    return report;
  }

  /**
   * The status of the previous slot's run when it is open, so the slot `runId` is to be skipped; undefined
   * when it is not open, or when the slot's own run exists already (a repeated tick: it was started).
   */
  private async openRun(previous: string, runId: string): Promise<string | undefined> {
    const status = await this.options.store.runStatus(previous);
    if (!status || !OPEN_STATUSES.has(status)) return undefined;
    return (await this.options.store.runStatus(runId)) === undefined ? status : undefined;
  }

  private async skip(schedule: Schedule, slot: Date, openRunId: string, openStatus: string): Promise<void> {
    const reason = `overlap 'skip': the previous slot's run ${openRunId} is still ${openStatus}`;
    await this.options.store.recordSkip({ scheduleId: schedule.id, slot, openRunId, reason });
    this.emit({ type: 'schedule-skipped', scheduleId: schedule.id, slot: slot.toISOString(), openRunId, openStatus });
  }

  /**
   * True if this call created the slot's run. A slot's run started earlier with another input (the
   * schedule's input changed since), or one retention has dropped since (its tombstone), is that slot's run.
   */
  private async startSlot(schedule: Schedule, runId: string): Promise<boolean> {
    try {
      return (await this.options.start({ agent: schedule.agent, runId, input: schedule.input })).created;
    } catch (error) {
      if (RunDivergedError.isInstance(error) || RunRetiredError.isInstance(error)) return false;
      throw error;
    }
  }

  /** Ticks after `delayMs`, then again when the earliest next slot is due (a failed schedule: in a second). */
  private wakeIn(delayMs: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => {
      const tickedAt = Date.now();
      this.ticking = this.tick().then((reports) => {
        const sleeps = reports.map((r) => (r.error !== undefined ? 1_000 : (r.dueInMs ?? Number.POSITIVE_INFINITY)));
        // The slot's due time was measured at the tick's start; a few ms later, so that it is due when we look.
        const sleep = Math.min(...sleeps) - (Date.now() - tickedAt) + 5;
        this.wakeIn(Math.min(this.options.maxSleepMs ?? 60_000, Math.max(0, sleep)));
      });
    }, delayMs);
    this.timer.unref?.();
  }

  private emit(event: ScheduleEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch {
      // a listener's failure is not the ticker's
    }
  }
}
