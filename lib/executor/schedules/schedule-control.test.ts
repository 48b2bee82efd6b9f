/**
 * Operators' schedule actions and the overlap policy on real journals (embedded PGlite and a fresh
 * Postgres database), the demo support agent as the workload and its real outside service as the judge:
 * a paused schedule starts no slot, in this executor or a new one (its pause is in the database); run now
 * with one request id makes one run however often it is asked; `overlap: 'skip'` skips the slots due while
 * the previous slot's run waits for its approval (recorded, with the open run), so the service sees one
 * ticket until that run is done. Every pause, unpause and run-now is audited with who and why. Ticks are
 * given their clock (slots at known instants); runs execute in a real executor.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry, defineSchedule, scheduleRunId, scheduleRunPrefix } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { Executor, pauseSchedule, queueEntry, runScheduleNow, ScheduleActionError, unpauseSchedule } from '../index';
import { ScheduleStore } from './schedule-store';

const QUESTION = { prompt: 'Customer c_7 has a question about order o_21' };
const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };
const OPS = 'ops@example.com';

describeEachStorage('schedule operator actions and overlap', (holder) => {
  let service: OutsideService;
  let registry: ReturnType<typeof createAgentRegistry>;
  let runner: Executor;
  beforeAll(async () => {
    service = await startOutsideService();
    registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
    await holder.storage.database();
    // Executes the runs the ticks start; ticks nothing itself (no schedules).
    runner = new Executor({ storage: holder.storage, registry, concurrency: 2, leaseMs: 5_000, pollMs: 50 }).start();
  }, 300_000);
  afterAll(async () => {
    await runner.stop({ graceMs: 5_000 });
    await service.close();
  });

  const store = () => new ScheduleStore(() => holder.storage.database());
  const runsOf = (scheduleId: string) => store().runsWithPrefix(scheduleRunPrefix(scheduleId), 1_000);
  const settled = async (runId: string, outcome: string) => {
    for (let i = 0; i < 600; i++) {
      const entry = await queueEntry(runId, { storage: holder.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`run ${runId} did not settle as ${outcome}: ${JSON.stringify(await queueEntry(runId, { storage: holder.storage }))}`);
  };
  /** The first whole minute after the schedule's row was recorded (database clock). */
  const firstMinute = async (scheduleId: string) => {
    const since = (await store().row(scheduleId))?.since as Date;
    return Math.floor(since.getTime() / 60_000) * 60_000 + 60_000;
  };

  it('a paused schedule starts no slot, in this executor or one started after it; unpaused, the next slot starts and none of the pause', async () => {
    const schedule = defineSchedule({ id: `paused-${holder.kind}`, agent: 'support', cron: '* * * * *', input: QUESTION, graceMs: 3_600_000 });
    const first = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    await first.tickSchedules();
    const minute = await firstMinute(schedule.id);

    const paused = await pauseSchedule({ storage: holder.storage, scheduleId: schedule.id, by: OPS, reason: 'provider outage' });
    expect(paused).toMatchObject({ changed: true, paused: { by: OPS, reason: 'provider outage' } });
    // Pausing again changes nothing and records nothing.
    expect((await pauseSchedule({ storage: holder.storage, scheduleId: schedule.id, by: OPS, reason: 'again' })).changed).toBe(false);

    const [report] = await first.tickSchedules({ now: new Date(minute + 1_000) });
    expect(report).toMatchObject({ paused: true, started: [] });
    // A new executor (a restarted worker) reads the pause from the database.
    const restarted = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    for (const offset of [1, 2, 3]) {
      const [tick] = await restarted.tickSchedules({ now: new Date(minute + offset * 60_000 + 1_000) });
      expect(tick).toMatchObject({ paused: true, started: [] });
    }
    expect(await runsOf(schedule.id)).toEqual([]);

    await unpauseSchedule({ storage: holder.storage, scheduleId: schedule.id, by: 'bob@example.com', reason: 'provider back' });
    const unpausedAt = (await store().row(schedule.id))?.lastSlot as Date;
    const next = Math.floor(unpausedAt.getTime() / 60_000) * 60_000 + 60_000;
    const [after] = await restarted.tickSchedules({ now: new Date(next + 1_000) });
    expect(after?.paused).toBe(false);
    expect(after?.started.map((s) => s.runId)).toEqual([scheduleRunId(schedule.id, new Date(next))]);
    // Only the slot after the unpause: every slot of the pause stays unstarted.
    expect((await runsOf(schedule.id)).map((r) => r.runId)).toEqual([scheduleRunId(schedule.id, new Date(next))]);
    await settled(scheduleRunId(schedule.id, new Date(next)), 'completed');

    const audit = await store().audit(schedule.id, 10);
    expect(audit.map((a) => [a.action, a.by, a.reason])).toEqual([
      ['unpause', 'bob@example.com', 'provider back'],
      ['pause', OPS, 'provider outage'],
    ]);
    // The audit is append-only.
    await expect((await holder.storage.database()).execute(sql`delete from gnl.schedule_audit where schedule_id = ${schedule.id}`)).rejects.toThrow();
  }, 240_000);

  it('run now with the same request id twice, even at once, makes one run, audited once; another request makes another (the service performs one ticket each)', async () => {
    const schedule = defineSchedule({ id: `run-now-${holder.kind}`, agent: 'support', cron: '0 9 * * 1-5', input: QUESTION });
    const before = service.stats();
    const ask = (requestId: string) =>
      runScheduleNow({ storage: holder.storage, registry, schedules: [schedule], scheduleId: schedule.id, requestId, by: OPS, reason: 'customer waiting' });
    const [a, b] = await Promise.all([ask('req-1'), ask('req-1')]);
    expect(a.runId).toBe(`sched:${schedule.id}:now:req-1`);
    expect(b.runId).toBe(a.runId);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect((await ask('req-1')).created).toBe(false);
    const other = await ask('req-2');
    expect(other.created).toBe(true);
    await settled(a.runId, 'completed');
    await settled(other.runId, 'completed');

    expect((await runsOf(schedule.id)).map((r) => r.runId).sort()).toEqual([a.runId, other.runId]);
    const after = service.stats();
    expect(after.tickets.performed - before.tickets.performed).toBe(2);
    expect(after.emails.performed - before.emails.performed).toBe(2);
    const audit = await store().audit(schedule.id, 10);
    expect(audit.map((x) => [x.action, x.by, x.reason, x.runId]).sort()).toEqual([
      ['run-now', OPS, 'customer waiting', a.runId],
      ['run-now', OPS, 'customer waiting', other.runId],
    ]);

    await expect(ask('not a request id')).rejects.toSatisfy((e) => ScheduleActionError.isInstance(e) && e.reason === 'invalid');
    await expect(
      runScheduleNow({ storage: holder.storage, registry, schedules: [], scheduleId: schedule.id, requestId: 'r', by: OPS, reason: 'x' }),
    ).rejects.toSatisfy((e) => ScheduleActionError.isInstance(e) && e.reason === 'not-declared');
    await expect(pauseSchedule({ storage: holder.storage, scheduleId: schedule.id, by: OPS, reason: ' ' })).rejects.toSatisfy(
      (e) => ScheduleActionError.isInstance(e) && e.reason === 'invalid',
    );
    await expect(pauseSchedule({ storage: holder.storage, scheduleId: 'no-such-schedule', by: OPS, reason: 'x' })).rejects.toSatisfy(
      (e) => ScheduleActionError.isInstance(e) && e.reason === 'unknown-schedule',
    );
  }, 240_000);

  it("overlap 'skip': slots due while the previous slot's run waits for its approval are skipped and recorded; the service sees one ticket until it is done", async () => {
    const schedule = defineSchedule({
      id: `overlap-${holder.kind}`,
      agent: 'support',
      cron: '* * * * *',
      input: REFUND,
      graceMs: 3_600_000,
      overlap: 'skip',
    });
    const ticker = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    await ticker.tickSchedules();
    const minute = await firstMinute(schedule.id);
    const slot = (n: number) => new Date(minute + n * 60_000);
    const before = service.stats();

    const [first] = await ticker.tickSchedules({ now: new Date(slot(0).getTime() + 1_000) });
    const firstRun = scheduleRunId(schedule.id, slot(0));
    expect(first?.started.map((s) => s.runId)).toEqual([firstRun]);
    await settled(firstRun, 'waiting-approval');

    // Two slots while it waits: skipped, each recorded once with the open run (two executors tick the second).
    const other = new Executor({ storage: holder.storage, registry, schedules: [schedule], sole: false });
    const [second] = await ticker.tickSchedules({ now: new Date(slot(1).getTime() + 1_000) });
    expect(second).toMatchObject({ started: [], skipped: [{ slot: slot(1), openRunId: firstRun, openStatus: 'waiting-approval' }] });
    const [third, thirdAgain] = await Promise.all([
      ticker.tickSchedules({ now: new Date(slot(2).getTime() + 1_000) }),
      other.tickSchedules({ now: new Date(slot(2).getTime() + 1_000) }),
    ]);
    expect([...(third?.[0]?.started ?? []), ...(thirdAgain?.[0]?.started ?? [])]).toEqual([]);
    expect(service.stats().tickets.performed - before.tickets.performed).toBe(1);
    expect(service.stats().refunds.performed - before.refunds.performed).toBe(0);

    // Approved, the first run finishes; the next slot starts again.
    const waiting = await holder.storage.runs.getRun(firstRun);
    await holder.storage.runs.approve({ runId: firstRun, toolCallId: waiting?.pending[0]?.toolCallId as string, by: OPS });
    await runner.resumeRun(firstRun, { by: OPS, reason: 'refund approved' });
    await settled(firstRun, 'completed');
    const [fourth] = await ticker.tickSchedules({ now: new Date(slot(3).getTime() + 1_000) });
    expect(fourth?.started.map((s) => s.runId)).toEqual([scheduleRunId(schedule.id, slot(3))]);
    await settled(scheduleRunId(schedule.id, slot(3)), 'waiting-approval');

    expect((await runsOf(schedule.id)).map((r) => r.runId).sort()).toEqual([firstRun, scheduleRunId(schedule.id, slot(3))].sort());
    const after = service.stats();
    expect(after.tickets.performed - before.tickets.performed).toBe(2);
    expect(after.refunds.performed - before.refunds.performed).toBe(1);
    const skips = (await store().audit(schedule.id, 10)).filter((a) => a.action === 'overlap-skip');
    expect(skips.map((s) => [s.slot?.toISOString(), s.runId, s.by]).sort()).toEqual([
      [slot(1).toISOString(), firstRun, 'gnl'],
      [slot(2).toISOString(), firstRun, 'gnl'],
    ]);
    expect(skips[0]?.reason).toContain(`the previous slot's run ${firstRun} is still waiting-approval`);
  }, 240_000);
});
