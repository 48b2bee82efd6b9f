/**
 * A schedule over real worker processes (`npm run worker`, node lib/executor/worker-main.ts) sharing one
 * Postgres (a fresh database): the deployment's demo schedule, set to fire every second
 * (GNL_DEMO_SCHEDULE_CRON), ticked by two workers at once; one is SIGKILLed right after it started a
 * slot's run, a third takes its place. Judged by the journal (runs per slot, run-starts per run) and
 * by the outside service's own counters (tickets and emails performed, per idempotency key).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { scheduleRunId, scheduleRunPrefix } from '@/lib/agents';
import { DATABASE_URL } from '@/tests/support/journals';
import { workerWorld } from '@/tests/support/worker-world';
import { startWorker, type WorkerLine, type WorkerOptions, type WorkerProcess } from '@/tests/support/worker-process';
import { queueEntry } from '../index';
import { ScheduleStore } from './schedule-store';

const SCHEDULE = 'support-questions'; // agents/schedules.ts: the demo's schedule, on when GNL_DEMO_SCHEDULE_CRON is set
const EVERY_SECOND = { GNL_DEMO_SCHEDULE_CRON: '* * * * * *' };

const suite = DATABASE_URL ? describe : describe.skip;

suite(`a schedule over worker processes${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  const world = workerWorld();

  const worker = (options: Partial<WorkerOptions> = {}) => {
    const w = startWorker({ databaseUrl: world.databaseUrl, serviceUrl: world.service.url, pollMs: 100, concurrency: 4, leaseMs: 2_000, ...options });
    world.workers.push(w);
    return w;
  };
  const startedSlots = (w: WorkerProcess) => w.events('schedule-started').filter((l: WorkerLine) => l.created === true);
  const allSlots = () => new Set(world.workers.flatMap((w) => w.events('schedule-started').map((l) => String(l.slot))));
  const until = async (what: string, done: () => boolean, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const quiet = async (timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const db = await world.storage.database();
      const [row] = (await db.execute(sql`select count(*)::int as n from gnl.run_queue where runnable or lease_owner is not null`)) as unknown as {
        n: number;
      }[];
      if (row?.n === 0) return;
      if (Date.now() > deadline) throw new Error(`${row?.n} runs still runnable or leased after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('two workers tick one every-second schedule, one is SIGKILLed right after starting a slot: each slot one run, each run one ticket and one email', async () => {
    const a = worker({ env: EVERY_SECOND });
    const b = worker({ env: EVERY_SECOND });
    await until('a worker started three slots', () => startedSlots(a).length >= 3 || startedSlots(b).length >= 3);
    // Kill whichever created a slot just now: it dies between starting that slot's run and recording it, or inside the run.
    const victim = startedSlots(a).length >= 3 ? a : b;
    const seen = startedSlots(victim).length;
    await until('the victim started one more slot', () => startedSlots(victim).length > seen);
    victim.signal('SIGKILL');
    expect((await victim.exited).signal).toBe('SIGKILL');
    const slotsAtKill = allSlots().size;
    const c = worker({ env: EVERY_SECOND });
    await c.waitFor((l) => l.type === 'started', 120_000);
    await until('four more slots after the kill', () => allSlots().size >= slotsAtKill + 4);
    const survivors = [a, b, c].filter((w) => w !== victim);
    for (const w of survivors) w.signal('SIGTERM');
    for (const w of survivors) expect((await w.exited).code).toBe(0);
    // What the stopped workers gave back, and the run the killed one held, are finished by a worker that ticks nothing.
    const finisher = worker();
    await finisher.waitFor((l) => l.type === 'started', 120_000);
    await quiet();
    finisher.signal('SIGTERM');
    expect((await finisher.exited).code).toBe(0);

    const runs = await new ScheduleStore(() => world.storage.database()).runsWithPrefix(scheduleRunPrefix(SCHEDULE), 1_000);
    const slots = runs.map((r) => Date.parse(r.runId.slice(scheduleRunPrefix(SCHEDULE).length))).sort((x, y) => x - y);
    expect(slots.length).toBeGreaterThanOrEqual(slotsAtKill + 4);
    // Every second from the first slot to the last has its run, named by the slot: none twice, none lost over the kill.
    expect(slots).toEqual(slots.map((_, i) => (slots[0] as number) + i * 1_000));
    expect([...allSlots()].sort()).toEqual(slots.map((s) => new Date(s).toISOString()));
    const creators = world.workers.flatMap((w) =>
      w
        .events('schedule-started')
        .filter((l) => l.created === true)
        .map((l) => String(l.runId)),
    );
    // No slot's run was created twice. (The killed worker may have created one and died before saying so: the others then found it.)
    expect(new Set(creators).size).toBe(creators.length);
    expect(creators.every((runId) => runs.some((r) => r.runId === runId))).toBe(true);
    const lags: number[] = [];
    for (const { runId } of runs) {
      const events = await world.storage.runs.events(runId);
      expect(
        events.filter((e) => e.type === 'run-start'),
        runId,
      ).toHaveLength(1);
      lags.push((events[0]?.at.getTime() as number) - Date.parse(runId.slice(scheduleRunPrefix(SCHEDULE).length)));
      expect((await world.storage.runs.getRun(runId))?.status, runId).toBe('completed');
    }
    const stats = world.service.stats();
    expect(stats.tickets.performed).toBe(runs.length);
    expect(stats.emails.performed).toBe(runs.length);
    for (const kind of ['tickets', 'emails'] as const) expect(Object.values(stats[kind].byKey).every((k) => k.performed === 1)).toBe(true);
    // The workers really raced: slots that two of them started, of which exactly one created the run (creators above).
    const reporters = new Map<string, number>();
    for (const w of world.workers)
      for (const slot of new Set(w.events('schedule-started').map((l) => String(l.slot)))) reporters.set(slot, (reporters.get(slot) ?? 0) + 1);
    expect([...reporters.values()].filter((n) => n >= 2).length).toBeGreaterThan(0);
    const victimRun = scheduleRunId(SCHEDULE, new Date(String(startedSlots(victim).at(-1)?.slot)));
    const victimEntry = await queueEntry(victimRun, { storage: world.storage });
    console.log(
      `[schedule-workers] victim's last slot ${victimRun}: claimed ${victimEntry?.claims} times; ${runs.length} slots, created by ${world.workers.map((w) => startedSlots(w).length).join(' / ')} (victim ${victim.pid}: ${startedSlots(victim).length}), ` +
        `tickets ${stats.tickets.performed} performed ${stats.tickets.deduplicated} deduplicated, emails ${stats.emails.performed} performed; ` +
        `slot to run-start (database clock) median ${lags.sort((x, y) => x - y)[Math.floor(lags.length / 2)]} ms, max ${lags.at(-1)} ms (a figure, not a check)`,
    );
  }, 300_000);
});
