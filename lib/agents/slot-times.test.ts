import { describe, expect, it } from 'vitest';
import { cronOf } from './define-schedule';
import { MAX_SLOTS_PER_TICK, nextSlot, slotsDue } from './slot-times';

const at = (iso: string) => new Date(iso);
const iso = (dates: readonly Date[]) => dates.map((d) => d.toISOString());
const timing = (cron: string, over: Partial<{ timeZone: string; missed: 'skip' | 'latest'; graceMs: number }> = {}) => ({
  cron,
  timeZone: 'UTC',
  missed: 'skip' as const,
  graceMs: 60_000,
  ...over,
});

/** Every slot in (after, until], by stepping croner one slot at a time: the reference the rule is checked against. */
function everySlot(cron: string, timeZone: string, after: Date, until: Date): Date[] {
  const job = cronOf(cron, timeZone);
  const out: Date[] = [];
  for (let s = job.nextRun(after); s && s <= until; s = job.nextRun(s)) out.push(s);
  return out;
}

describe('slotsDue', () => {
  it('a cron with seconds: each second is one slot, due once its second has come', () => {
    const schedule = timing('* * * * * *');
    const due = slotsDue({ schedule, after: at('2026-12-01T08:00:00Z'), now: at('2026-12-01T08:00:03.400Z') });
    expect(iso(due.start)).toEqual(['2026-12-01T08:00:01.000Z', '2026-12-01T08:00:02.000Z', '2026-12-01T08:00:03.000Z']);
    expect(due.through?.toISOString()).toBe('2026-12-01T08:00:03.000Z');
    expect(due.next?.toISOString()).toBe('2026-12-01T08:00:04.000Z');
    expect(due.missed).toBeNull();
    const again = slotsDue({ schedule, after: due.through as Date, now: at('2026-12-01T08:00:03.900Z') });
    expect(again).toMatchObject({ start: [], through: null, missed: null });
  });

  it('nothing is due before the first slot', () => {
    const due = slotsDue({ schedule: timing('0 9 * * *'), after: at('2026-12-01T07:00:00Z'), now: at('2026-12-01T08:59:59.999Z') });
    expect(due).toMatchObject({ start: [], missed: null, through: null });
    expect(due.next?.toISOString()).toBe('2026-12-01T09:00:00.000Z');
  });

  it("after downtime, 'skip' starts no missed slot and goes on with the next; 'latest' starts the most recent missed one once", () => {
    const after = at('2026-12-01T09:00:00Z'); // the 09:00 run was started, then no executor ran until 12:20:30
    const now = at('2026-12-01T12:20:30Z');
    const skip = slotsDue({ schedule: timing('0 * * * *', { missed: 'skip' }), after, now });
    expect(skip.start).toEqual([]);
    expect(iso([skip.missed?.first as Date, skip.missed?.last as Date])).toEqual(['2026-12-01T10:00:00.000Z', '2026-12-01T12:00:00.000Z']);
    expect(skip.through?.toISOString()).toBe('2026-12-01T12:00:00.000Z');
    expect(skip.next?.toISOString()).toBe('2026-12-01T13:00:00.000Z');

    const latest = slotsDue({ schedule: timing('0 * * * *', { missed: 'latest' }), after, now });
    expect(iso(latest.start)).toEqual(['2026-12-01T12:00:00.000Z']);
    expect(latest.through?.toISOString()).toBe('2026-12-01T12:00:00.000Z');
    // Once decided, the missed slots are never due again, whichever policy.
    expect(slotsDue({ schedule: timing('0 * * * *', { missed: 'latest' }), after: latest.through as Date, now }).start).toEqual([]);
  });

  it('a slot within the grace period is on time: started by either policy, with the latest missed one before it', () => {
    const after = at('2026-12-01T08:00:00Z');
    const now = at('2026-12-01T08:03:30Z'); // 08:01 and 08:02 are over a minute late, 08:03 is on time
    const skip = slotsDue({ schedule: timing('* * * * *'), after, now });
    expect(iso(skip.start)).toEqual(['2026-12-01T08:03:00.000Z']);
    expect(iso([skip.missed?.first as Date, skip.missed?.last as Date])).toEqual(['2026-12-01T08:01:00.000Z', '2026-12-01T08:02:00.000Z']);
    const latest = slotsDue({ schedule: timing('* * * * *', { missed: 'latest' }), after, now });
    expect(iso(latest.start)).toEqual(['2026-12-01T08:02:00.000Z', '2026-12-01T08:03:00.000Z']);
    expect(latest.through?.toISOString()).toBe('2026-12-01T08:03:00.000Z');
    // A slot exactly `graceMs` old is missed; a millisecond younger is on time.
    expect(iso(slotsDue({ schedule: timing('* * * * *'), after, now: at('2026-12-01T08:02:00Z') }).start)).toEqual(['2026-12-01T08:02:00.000Z']);
    expect(slotsDue({ schedule: timing('* * * * *'), after, now: at('2026-12-01T08:02:00Z') }).missed?.last.toISOString()).toBe('2026-12-01T08:01:00.000Z');
  });

  it('starts at most MAX_SLOTS_PER_TICK on-time slots at once, and the rest the next time', () => {
    const schedule = timing('* * * * * *', { graceMs: 3_600_000 });
    const after = at('2026-12-01T08:00:00Z');
    const now = at('2026-12-01T08:05:00Z');
    const first = slotsDue({ schedule, after, now });
    expect(first.start).toHaveLength(MAX_SLOTS_PER_TICK);
    const second = slotsDue({ schedule, after: first.through as Date, now });
    const third = slotsDue({ schedule, after: second.through as Date, now });
    const all = [...first.start, ...second.start, ...third.start];
    expect(iso(all)).toEqual(iso(everySlot('* * * * * *', 'UTC', after, now)));
    expect(all).toHaveLength(300);
  });

  it('a weekday cron in Berlin: 09:00 local is 08:00Z in winter, 07:00Z in summer, and weekends have no slot', () => {
    const schedule = timing('0 9 * * 1-5', { timeZone: 'Europe/Berlin', graceMs: 0 });
    expect(nextSlot(schedule, at('2026-12-04T09:00:00Z'))?.toISOString()).toBe('2026-12-07T08:00:00.000Z'); // Friday after 09:00 → Monday
    expect(nextSlot(schedule, at('2026-07-01T00:00:00Z'))?.toISOString()).toBe('2026-07-01T07:00:00.000Z');
  });

  describe('across DST changes (Europe/Berlin: 2026-03-29 02:00 → 03:00, 2026-10-25 03:00 → 02:00)', () => {
    it('a fixed local time that does not exist on the spring day runs once, at the first instant after the gap', () => {
      const schedule = timing('30 2 * * *', { timeZone: 'Europe/Berlin', graceMs: 86_400_000 * 3 });
      const due = slotsDue({ schedule, after: at('2026-03-27T12:00:00Z'), now: at('2026-03-30T12:00:00Z') });
      expect(iso(due.start)).toEqual(['2026-03-28T01:30:00.000Z', '2026-03-29T01:00:00.000Z', '2026-03-30T00:30:00.000Z']);
    });

    it('a fixed local time that happens twice on the autumn day runs once', () => {
      const schedule = timing('30 2 * * *', { timeZone: 'Europe/Berlin', graceMs: 86_400_000 * 3 });
      const due = slotsDue({ schedule, after: at('2026-10-24T12:00:00Z'), now: at('2026-10-26T12:00:00Z') });
      expect(iso(due.start)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    });

    it('an interval cron keeps its real interval: every half hour of the 25-hour day, none twice, none lost', () => {
      const schedule = timing('*/30 * * * *', { timeZone: 'Europe/Berlin', graceMs: 2 * 86_400_000 });
      const due = slotsDue({ schedule, after: at('2026-10-24T22:00:00Z'), now: at('2026-10-25T23:00:00Z') }); // Berlin's 25-hour day
      expect(due.start).toHaveLength(50);
      expect(new Set(iso(due.start)).size).toBe(50);
      expect(due.start.every((s, i) => i === 0 || s.getTime() - (due.start[i - 1] as Date).getTime() === 1_800_000)).toBe(true);
    });

    it("'latest' after downtime over the autumn change picks the most recent missed slot, the repeated hour's second 02:30 ending the night", () => {
      const schedule = timing('30 * * * *', { timeZone: 'Europe/Berlin', missed: 'latest', graceMs: 0 });
      const due = slotsDue({ schedule, after: at('2026-10-24T22:30:00Z'), now: at('2026-10-25T01:45:00Z') });
      expect(iso(due.start)).toEqual(['2026-10-25T01:30:00.000Z']); // 02:30 CET, the second 02:30 of the night
      expect(due.missed?.first.toISOString()).toBe('2026-10-24T23:30:00.000Z');
    });
  });

  it('agrees with stepping through every slot, for random instants, crons, zones and policies', () => {
    const crons = ['* * * * *', '*/7 * * * *', '0 9 * * 1-5', '30 2 * * *', '*/20 * * * * *', '0 0 L * *'];
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu'];
    let seed = 15;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    for (let i = 0; i < 200; i++) {
      const cron = pick(crons);
      const timeZone = pick(zones);
      const missed = pick(['skip', 'latest'] as const);
      const after = new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 365 * 86_400_000));
      // Windows of a few hundred slots at most: the reference steps through every one.
      const window = cron.split(' ').length === 6 ? 3_600_000 : cron.startsWith('* ') ? 12 * 3_600_000 : 3 * 86_400_000;
      const now = new Date(after.getTime() + Math.floor(random() * window));
      const graceMs = pick([0, 1_000, 60_000, 3_600_000]);
      const due = slotsDue({ schedule: { cron, timeZone, missed, graceMs }, after, now });
      const reference = everySlot(cron, timeZone, after, now);
      const late = reference.filter((s) => s.getTime() <= now.getTime() - graceMs);
      const onTime = reference.filter((s) => s.getTime() > now.getTime() - graceMs).slice(0, MAX_SLOTS_PER_TICK);
      const expected = [...(missed === 'latest' && late.length > 0 ? [late[late.length - 1] as Date] : []), ...onTime];
      const label = `${cron} ${timeZone} ${missed} grace ${graceMs} after ${after.toISOString()} now ${now.toISOString()}`;
      expect(iso(due.start), label).toEqual(iso(expected));
      expect(due.missed ? iso([due.missed.first, due.missed.last]) : null, label).toEqual(
        late.length > 0 ? iso([late[0] as Date, late[late.length - 1] as Date]) : null,
      );
      expect(due.through?.toISOString() ?? null, label).toEqual((onTime.length > 0 ? onTime[onTime.length - 1] : late[late.length - 1])?.toISOString() ?? null);
    }
  });
});
