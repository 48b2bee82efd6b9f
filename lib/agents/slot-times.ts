/**
 * When a schedule's slots fall, and which are due: pure functions of (cron, time zone, the last slot
 * dealt with, now), so that every executor given the same two instants decides the same, and the rule
 * is tested with any clock (slot-times.test.ts, across DST changes).
 *
 * A slot is due when `after < slot <= now`. A due slot is on time while `slot > now - graceMs`, and on-time
 * slots are always started (oldest first, at most MAX_SLOTS_PER_TICK at once: the rest next time). The
 * due slots before that were missed (no executor ran then): 'skip' starts none of them, 'latest' starts
 * the most recent once. `through` is the latest slot decided, started or skipped: the next `after`.
 * Nothing here enumerates the missed slots, so a week of downtime on a per-second cron costs nothing.
 */
import { cronOf, type Schedule } from './define-schedule';

export const MAX_SLOTS_PER_TICK = 100;

export interface SlotsDue {
  /** The slots to start now, oldest first. */
  start: Date[];
  /** The missed slots (first and last; 'latest' starts `last`), or null if none were missed. */
  missed: { first: Date; last: Date } | null;
  /** The latest slot decided (started or skipped); null when nothing was due. */
  through: Date | null;
  /** The first slot after `through ?? after`: not yet due, unless MAX_SLOTS_PER_TICK held it back. Null if the cron never fires again. */
  next: Date | null;
}

type Timing = Pick<Schedule, 'cron' | 'timeZone' | 'missed' | 'graceMs'>;

/** The slots due at `now` for a schedule whose slots up to `after` are decided. */
export function slotsDue(args: { schedule: Timing; after: Date; now: Date }): SlotsDue {
  const { schedule, after, now } = args;
  const cron = cronOf(schedule.cron, schedule.timeZone);
  const cutoff = new Date(now.getTime() - schedule.graceMs);
  const first = cron.nextRun(after);
  let missed: SlotsDue['missed'] = null;
  if (first && first <= cutoff) {
    const last = latestAtOrBefore(cron, cutoff);
    if (last && last > after) missed = { first, last };
  }
  const start: Date[] = missed && schedule.missed === 'latest' ? [missed.last] : [];
  let slot = cron.nextRun(missed?.last ?? (cutoff > after ? cutoff : after));
  let onTime = 0;
  while (slot && slot <= now && onTime < MAX_SLOTS_PER_TICK) {
    start.push(slot);
    onTime += 1;
    slot = cron.nextRun(slot);
  }
  const through = onTime > 0 ? (start[start.length - 1] as Date) : (missed?.last ?? null);
  return { start, missed, through, next: slot };
}

/** The first slot after `after` (a schedule's next slot to show). */
export function nextSlot(schedule: Pick<Schedule, 'cron' | 'timeZone'>, after: Date): Date | null {
  return cronOf(schedule.cron, schedule.timeZone).nextRun(after);
}

/**
 * The latest slot at or before `t`. croner's previousRuns looks strictly before a whole second, so ask
 * from a second later and keep the first answer not after `t`.
 */
function latestAtOrBefore(cron: ReturnType<typeof cronOf>, t: Date): Date | null {
  const candidates = cron.previousRuns(2, new Date(t.getTime() + 1_000));
  return candidates.find((c) => c <= t) ?? null;
}
