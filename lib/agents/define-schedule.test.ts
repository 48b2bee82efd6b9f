import { describe, expect, it } from 'vitest';
import { AgentDefinitionError, defineSchedule, defineSchedules, type ScheduleDefinition, scheduleRunId, scheduleRunNowId, scheduleRunPrefix } from './index';

const base: ScheduleDefinition = { id: 'weekday-digest', agent: 'support', cron: '0 9 * * 1-5', timeZone: 'Europe/Berlin', input: { prompt: 'Digest' } };

function problems(definition: unknown): string[] {
  try {
    defineSchedule(definition as ScheduleDefinition);
  } catch (error) {
    if (AgentDefinitionError.isInstance(error)) return error.problems;
    throw error;
  }
  throw new Error('defineSchedule accepted it');
}

describe('defineSchedule', () => {
  it('fills the defaults: UTC, skip, a grace of one minute', () => {
    const schedule = defineSchedule({ id: 'hourly', agent: 'support', cron: '0 * * * *', input: { prompt: 'Hourly' } });
    expect(schedule).toMatchObject({ id: 'hourly', timeZone: 'UTC', missed: 'skip', graceMs: 60_000, overlap: 'allow', kind: 'gnl-schedule' });
    expect(Object.isFrozen(schedule)).toBe(true);
  });

  it('accepts a cron with seconds (six fields)', () => {
    expect(defineSchedule({ ...base, cron: '*/5 * * * * *' }).cron).toBe('*/5 * * * * *');
  });

  it('refuses a bad cron expression, naming it and what is wrong', () => {
    expect(problems({ ...base, cron: '61 * * * *' })).toEqual(['cron "61 * * * *": Invalid value for minute: 61']);
    expect(problems({ ...base, cron: 'every day' })[0]).toMatch(/^cron "every day": .*five, six, or seven/);
    expect(problems({ ...base, cron: '0 0 0 * * * 2030' })[0]).toMatch(/^cron "0 0 0 \* \* \* 2030": .*5 or 6 parts/);
  });

  it('refuses a cron that never fires', () => {
    expect(problems({ ...base, cron: '0 0 30 2 *' })).toEqual(['cron "0 0 30 2 *" never fires']);
  });

  it('refuses an unknown time zone, naming it', () => {
    expect(problems({ ...base, timeZone: 'Mars/Olympus' })).toEqual(['timeZone "Mars/Olympus" is not an IANA time zone (e.g. "Europe/Berlin", "UTC")']);
  });

  it('refuses a bad id, policy, grace, input or an unknown field, each by name, and says which schedule', () => {
    expect(() => defineSchedule({ ...base, missed: 'all' as never })).toThrow(
      /^defineSchedule "weekday-digest" refused: missed: missed must be 'skip' or 'latest'$/,
    );
    expect(problems({ ...base, id: 'has space' })).toEqual(['id: id must be 1 to 100 of A-Z a-z 0-9 . _ -']);
    expect(problems({ ...base, graceMs: -1 })).toEqual(['graceMs: graceMs must not be negative']);
    expect(problems({ ...base, overlap: 'queue' })).toEqual(["overlap: overlap must be 'skip' or 'allow'"]);
    expect(defineSchedule({ ...base, overlap: 'skip' }).overlap).toBe('skip');
    expect(problems({ ...base, input: { prompt: ' ' } })[0]).toMatch(/^input/);
    expect(problems({ ...base, every: 'day' })[0]).toMatch(/every/);
  });

  it('refuses two schedules with one id', () => {
    expect(() => defineSchedules([base, { ...base, cron: '0 10 * * *' }])).toThrow(/duplicate schedule ids "weekday-digest"/);
    expect(defineSchedules([base, { ...base, id: 'other' }]).map((s) => s.id)).toEqual(['weekday-digest', 'other']);
  });
});

describe('scheduleRunId', () => {
  it('names a slot by the schedule and the slot in UTC, so a repeated local hour gives two ids', () => {
    // 02:30 in Berlin happens twice on 2026-10-25: at 00:30Z (CEST) and 01:30Z (CET).
    expect(scheduleRunId('digest', new Date('2026-10-25T00:30:00Z'))).toBe('sched:digest:2026-10-25T00:30:00.000Z');
    expect(scheduleRunId('digest', new Date('2026-10-25T01:30:00Z'))).toBe('sched:digest:2026-10-25T01:30:00.000Z');
  });
});

describe('scheduleRunNowId', () => {
  it('names a run-now by the schedule and the request, among the schedule’s runs; the same request is the same run', () => {
    expect(scheduleRunNowId('digest', 'b1c2')).toBe('sched:digest:now:b1c2');
    expect(scheduleRunNowId('digest', '2026-12-02T03:04Z')).toBe(scheduleRunNowId('digest', '2026-12-02T03:04Z'));
    expect(scheduleRunNowId('digest', 'b1c2').startsWith(scheduleRunPrefix('digest'))).toBe(true);
  });

  it('refuses a request id that is empty, too long or has other characters', () => {
    for (const bad of ['', 'a b', 'x'.repeat(101), 'a/b']) expect(() => scheduleRunNowId('digest', bad)).toThrow(TypeError);
  });
});
