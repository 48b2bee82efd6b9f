/**
 * Schedules ticked by executors on real journals (embedded PGlite and a fresh Postgres database), the
 * demo support agent as the workload and its real outside service as the judge: a cron with seconds
 * fires every second, each slot is one run, every run performs one ticket and one email by the
 * service's own counters. Missed slots after downtime are shown with the clock given to the tick.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry, defineSchedule, type MissedSlots, scheduleRunId, scheduleRunPrefix } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { Executor, type ExecutorEvent, listSchedules, queueEntry, startRun } from '../index';
import { ScheduleStore } from './schedule-store';

const QUESTION = { prompt: 'Customer c_7 has a question about order o_21' };

describeEachStorage('schedules ticked by an executor', (holder) => {
  let service: OutsideService;
  let registry: ReturnType<typeof createAgentRegistry>;
  beforeAll(async () => {
    service = await startOutsideService();
    registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
  });
  afterAll(() => service.close());

  const runsOf = (scheduleId: string) => new ScheduleStore(() => holder.storage.database()).runsWithPrefix(scheduleRunPrefix(scheduleId), 1_000);
  const runStarts = async (runId: string) => (await holder.storage.runs.events(runId)).filter((e) => e.type === 'run-start').length;

  it('a cron with seconds fires every second: one run per slot, none twice, none lost; each run one ticket and one email', async () => {
    const schedule = defineSchedule({ id: `every-second-${holder.kind}`, agent: 'support', cron: '* * * * * *', input: QUESTION });
    const events: ExecutorEvent[] = [];
    const before = service.stats();
    const executor = new Executor({
      storage: holder.storage,
      registry,
      schedules: [schedule],
      concurrency: 4,
      leaseMs: 5_000,
      pollMs: 100,
      onEvent: (e) => events.push(e),
    });
    executor.start();
    try {
      for (let i = 0; i < 600 && events.filter((e) => e.type === 'schedule-started').length < 4; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await executor.stop({ graceMs: 10_000 });
    }
    // Finish what the stop gave back (a run stopped at a step boundary), without ticking again.
    const finisher = new Executor({ storage: holder.storage, registry, concurrency: 4, leaseMs: 5_000, pollMs: 50 }).start();
    const runs = await runsOf(schedule.id);
    try {
      for (const { runId } of runs)
        for (let i = 0; i < 600 && (await holder.storage.runs.getRun(runId))?.status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await finisher.stop({ graceMs: 10_000 });
    }
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    const started = events.filter((e) => e.type === 'schedule-started');
    expect(started.length).toBeGreaterThanOrEqual(4);
    expect(started.every((e) => e.created)).toBe(true);
    // The slots are consecutive seconds: one run for each, named by its slot.
    const slots = runs.map((r) => Date.parse(r.runId.slice(scheduleRunPrefix(schedule.id).length))).sort((a, b) => a - b);
    expect(slots).toEqual(slots.map((_, i) => (slots[0] as number) + i * 1_000));
    expect(runs.map((r) => r.runId).sort()).toEqual(started.map((e) => e.runId).sort());
    for (const { runId } of runs) {
      expect(await runStarts(runId)).toBe(1);
      expect((await holder.storage.runs.getRun(runId))?.status).toBe('completed');
    }
    const after = service.stats();
    expect(after.tickets.performed - before.tickets.performed).toBe(runs.length);
    expect(after.emails.performed - before.emails.performed).toBe(runs.length);
    const listed = await listSchedules({ storage: holder.storage, schedules: [schedule] });
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      id: schedule.id,
      declared: true,
      lastRun: { runId: scheduleRunId(schedule.id, new Date(slots.at(-1) as number)), status: 'completed' },
    });
    expect(listed[0]?.recentRuns.length).toBe(Math.min(runs.length, 10));
  }, 240_000);

  it('two executors ticking one schedule at the same instants start each slot once', async () => {
    const schedule = defineSchedule({ id: `shared-${holder.kind}`, agent: 'support', cron: '*/10 * * * * *', input: QUESTION, graceMs: 3_600_000 });
    // Not started: nothing executes, and the two tick exactly when told, with one clock.
    const a = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    const b = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    const [first] = await a.tickSchedules(); // records the schedule: no slot before now is due
    expect(first?.started).toEqual([]);
    const now = new Date(Date.now() + 60_000);
    const reports = await Promise.all([a.tickSchedules({ now }), b.tickSchedules({ now }), a.tickSchedules({ now }), b.tickSchedules({ now })]);
    expect(reports.flat().map((r) => r.error)).toEqual([undefined, undefined, undefined, undefined]);
    const created = reports.flat().flatMap((r) => r.started.filter((s) => s.created).map((s) => s.runId));
    const slots = [...new Set(reports.flat().flatMap((r) => r.started.map((s) => s.slot.getTime())))].sort((x, y) => x - y);
    const runs = await runsOf(schedule.id);
    expect(slots.length).toBeGreaterThanOrEqual(5);
    // One run per slot, named by it, created by exactly one of the four ticks.
    expect(runs.map((r) => r.runId).sort()).toEqual(slots.map((slot) => scheduleRunId(schedule.id, new Date(slot))).sort());
    expect(created.sort()).toEqual(runs.map((r) => r.runId).sort());
    for (const { runId } of runs) {
      expect(await runStarts(runId)).toBe(1);
      expect(await queueEntry(runId, { storage: holder.storage })).toMatchObject({ runnable: true, claims: 0 });
    }
    // Ticking again at the same instant starts nothing more.
    expect((await b.tickSchedules({ now })).flatMap((r) => r.started)).toEqual([]);
    expect(await runsOf(schedule.id)).toHaveLength(runs.length);
  });

  const downtime = async (missed: MissedSlots) => {
    const schedule = defineSchedule({ id: `downtime-${missed}-${holder.kind}`, agent: 'support', cron: '* * * * *', input: QUESTION, missed });
    const executor = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    await executor.tickSchedules();
    const store = new ScheduleStore(() => holder.storage.database());
    const since = (await store.list()).rows.find((r) => r.scheduleId === schedule.id)?.since as Date;
    // No executor ran for ten minutes, then one looks 30 s after a minute began.
    const minute = Math.floor(since.getTime() / 60_000) * 60_000;
    const now = new Date(minute + 10 * 60_000 + 30_000);
    const [report] = await executor.tickSchedules({ now });
    const [again] = await executor.tickSchedules({ now: new Date(now.getTime() + 1_000) });
    return { schedule, report, again, minute, runs: await runsOf(schedule.id), row: (await store.list()).rows.find((r) => r.scheduleId === schedule.id) };
  };

  it("after downtime, 'skip' starts no missed slot, only the one on time", async () => {
    const { schedule, report, again, minute, runs, row } = await downtime('skip');
    const onTime = new Date(minute + 10 * 60_000);
    expect(report?.error).toBeUndefined();
    expect(report?.missed).toEqual({ first: new Date(minute + 60_000), last: new Date(minute + 9 * 60_000) });
    expect(runs.map((r) => r.runId)).toEqual([scheduleRunId(schedule.id, onTime)]);
    expect(again?.started).toEqual([]);
    expect(row).toMatchObject({
      lastSlot: onTime,
      lastRunId: scheduleRunId(schedule.id, onTime),
      lastMissedFrom: new Date(minute + 60_000),
      lastMissedTo: new Date(minute + 9 * 60_000),
    });
  });

  it("after downtime, 'latest' starts the most recent missed slot once, then the one on time", async () => {
    const { schedule, report, again, minute, runs } = await downtime('latest');
    const latestMissed = new Date(minute + 9 * 60_000);
    const onTime = new Date(minute + 10 * 60_000);
    expect(report?.started.map((s) => s.runId)).toEqual([scheduleRunId(schedule.id, latestMissed), scheduleRunId(schedule.id, onTime)]);
    expect(runs.map((r) => r.runId).sort()).toEqual([scheduleRunId(schedule.id, latestMissed), scheduleRunId(schedule.id, onTime)].sort());
    expect(again?.started).toEqual([]);
    for (const { runId } of runs) expect(await runStarts(runId)).toBe(1);
  });

  it("a schedule's runs are found by their exact prefix: an underscore in its id is no wildcard", async () => {
    const slot = new Date('2026-12-01T08:00:00Z');
    for (const id of [`under_score-${holder.kind}`, `underXscore-${holder.kind}`])
      await startRun({ storage: holder.storage, registry, agent: 'support', runId: scheduleRunId(id, slot), input: QUESTION });
    expect((await runsOf(`under_score-${holder.kind}`)).map((r) => r.runId)).toEqual([scheduleRunId(`under_score-${holder.kind}`, slot)]);
  });

  it('a tick that died after starting its slots and before recording them is repeated without a second run', async () => {
    const schedule = defineSchedule({ id: `repeat-${holder.kind}`, agent: 'support', cron: '*/15 * * * * *', input: QUESTION, graceMs: 3_600_000 });
    const executor = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    await executor.tickSchedules();
    const now = new Date(Date.now() + 60_000);
    const [first] = await executor.tickSchedules({ now });
    // Undo the record, as if the tick had died before `advance`: the row still says nothing was decided.
    const db = await holder.storage.database();
    const { sql } = await import('drizzle-orm');
    await db.execute(sql`update gnl.schedules set last_slot = null where schedule_id = ${schedule.id}`);
    const [repeat] = await executor.tickSchedules({ now });
    expect(first?.started.length).toBeGreaterThanOrEqual(4);
    expect(repeat?.started.map((s) => s.runId)).toEqual(first?.started.map((s) => s.runId));
    expect(repeat?.started.every((s) => !s.created)).toBe(true);
    for (const s of first?.started ?? []) expect(await runStarts(s.runId)).toBe(1);
  });
});
