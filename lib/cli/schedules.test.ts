/**
 * `gnl schedules` as a real gnl process on a temp embedded journal and on a fresh Postgres database: the
 * deployment's demo schedule (GNL_DEMO_SCHEDULE_CRON set for the gnl process), before any executor
 * ticked it and after one started its slots (an Executor in this process, its clock given).
 */
import { describe, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry, defineSchedule, scheduleRunId } from '@/lib/agents';
import { PGliteStorage, PostgresStorage, type Storage } from '@/lib/durable/storage';
import { Executor, type ScheduleView } from '@/lib/executor';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { gnl } from '@/tests/support/gnl-cli';
import { DATABASE_URL, tempDataDir } from '@/tests/support/journals';

// As agents/schedules.ts declares it from these variables.
const CRON = '*/10 * * * *';
const ENV = { GNL_DEMO_SCHEDULE_CRON: CRON, GNL_DEMO_SCHEDULE_TZ: 'Europe/Berlin', GNL_DEMO_SCHEDULE_MISSED: 'latest' };
const schedule = defineSchedule({
  id: 'support-questions',
  agent: 'support',
  cron: CRON,
  timeZone: 'Europe/Berlin',
  missed: 'latest',
  input: { prompt: 'Customer c_7 has a question about order o_21' },
});

const targets: { kind: 'pglite' | 'postgres'; available: boolean }[] = [
  { kind: 'pglite', available: true },
  { kind: 'postgres', available: Boolean(DATABASE_URL) },
];

for (const { kind, available } of targets) {
  (available ? describe : describe.skip)(`gnl schedules [${kind}]${available ? '' : ' (skipped: DATABASE_URL is not set)'}`, { timeout: 180_000 }, () => {
    it('lists the declared schedule with its next slot; after an executor started its slots, the last run and what was missed', async () => {
      let env: Record<string, string>;
      let open: () => Storage;
      let drop: (() => Promise<void>) | undefined;
      if (kind === 'pglite') {
        const dataDir = tempDataDir();
        env = { GNL_DATA_DIR: dataDir, ...ENV };
        open = () => new PGliteStorage({ dataDir });
      } else {
        const database = await createFreshDatabase(DATABASE_URL as string);
        drop = database.drop;
        env = { DATABASE_URL: database.url, ...ENV };
        open = () => new PostgresStorage({ connectionString: database.url });
      }
      try {
        const fresh = await gnl(['schedules', '--json'], { env });
        expect(fresh.code, fresh.stderr).toBe(0);
        const [before] = JSON.parse(fresh.stdout) as ScheduleView[];
        expect(before).toMatchObject({
          id: 'support-questions',
          agent: 'support',
          cron: CRON,
          timeZone: 'Europe/Berlin',
          declared: true,
          since: null,
          lastRun: null,
        });
        expect(Date.parse(String(before?.nextSlot)) % 600_000).toBe(0);
        expect((await gnl(['schedules'], { env })).stdout).toMatch(
          /support-questions\s+support\s+\*\/10 \* \* \* \*\s+Europe\/Berlin\s+latest\s+\d{4}-\d\d-\d\d \d\d:\d\d:00 UTC\s+not ticked yet/,
        );

        // An executor ticks it (one process at a time on the embedded journal: this one, then gnl again).
        const storage = open();
        const registry = createAgentRegistry([supportAgent({ serviceUrl: 'http://127.0.0.1:9' })]);
        const executor = new Executor({ storage, registry, schedules: [schedule], sole: false });
        await executor.tickSchedules();
        const now = new Date(Date.now() + 3_600_000);
        const [report] = await executor.tickSchedules({ now });
        await storage.close();
        const lastRunId = report?.started.at(-1)?.runId as string;
        expect(lastRunId).toBe(scheduleRunId(schedule.id, report?.started.at(-1)?.slot as Date));

        const ticked = await gnl(['schedules', '--json'], { env });
        expect(ticked.code, ticked.stderr).toBe(0);
        const [after] = JSON.parse(ticked.stdout) as ScheduleView[];
        expect(after).toMatchObject({ id: 'support-questions', declared: true, lastRun: { runId: lastRunId, status: 'running' } });
        expect(after?.lastMissed).not.toBeNull();
        expect(after?.recentRuns.map((r) => r.runId)).toEqual(report?.started.map((s) => s.runId).reverse());
        const text = await gnl(['schedules'], { env });
        expect(text.stdout).toContain(`${lastRunId} (running)`);
        expect(text.stdout).toMatch(/support-questions: missed \d{4}-\d\d-\d\d \d\d:\d\d:00 UTC … \d{4}-\d\d-\d\d \d\d:\d\d:00 UTC \(latest\)/);

        // Without the deployment declaring it, the recorded schedule is still listed, and says so.
        const undeclared = await gnl(['schedules'], { env: { ...env, GNL_DEMO_SCHEDULE_CRON: '' } });
        expect(undeclared.stdout).toContain('support-questions: not declared by this deployment');
      } finally {
        await drop?.();
      }
    });

    it('pause, resume and run-now: each needs --by and --reason and is audited; run-now with one --request-id twice is one run; an unknown schedule is exit 3', async () => {
      let env: Record<string, string>;
      let drop: (() => Promise<void>) | undefined;
      if (kind === 'pglite') env = { GNL_DATA_DIR: tempDataDir(), ...ENV };
      else {
        const database = await createFreshDatabase(DATABASE_URL as string);
        drop = database.drop;
        env = { DATABASE_URL: database.url, ...ENV };
      }
      try {
        const missingReason = await gnl(['schedules', 'pause', 'support-questions', '--by', 'alice'], { env });
        expect(missingReason.code).toBe(2);
        const paused = await gnl(['schedules', 'pause', 'support-questions', '--by', 'alice', '--reason', 'provider outage'], { env });
        expect(paused.code, paused.stderr).toBe(0);
        expect(paused.stdout).toBe('Paused schedule support-questions (by alice: provider outage).\n');
        expect((await gnl(['schedules'], { env })).stdout).toMatch(/support-questions: PAUSED by alice at .*: provider outage/);

        const resumed = await gnl(['schedules', 'resume', 'support-questions', '--by', 'bob', '--reason', 'provider back', '--json'], { env });
        expect(resumed.code, resumed.stderr).toBe(0);
        expect(JSON.parse(resumed.stdout)).toMatchObject({ scheduleId: 'support-questions', changed: true, paused: null });

        const now = ['schedules', 'run-now', 'support-questions', '--by', 'carol', '--reason', 'customer waiting', '--request-id', 'r1', '--json'];
        const first = JSON.parse((await gnl(now, { env })).stdout);
        const second = JSON.parse((await gnl(now, { env })).stdout);
        expect(first).toEqual({ scheduleId: 'support-questions', runId: 'sched:support-questions:now:r1', created: true });
        expect(second).toEqual({ ...first, created: false });
        const [view] = JSON.parse((await gnl(['schedules', '--json'], { env })).stdout) as ScheduleView[];
        expect(view?.recentRuns.map((r) => r.runId)).toEqual(['sched:support-questions:now:r1']);
        expect(view?.recentActions.map((a) => [a.action, a.by, a.reason])).toEqual([
          ['run-now', 'carol', 'customer waiting'],
          ['unpause', 'bob', 'provider back'],
          ['pause', 'alice', 'provider outage'],
        ]);

        const unknown = await gnl(['schedules', 'pause', 'no-such', '--by', 'alice', '--reason', 'x'], { env });
        expect(unknown.code).toBe(3);
        expect(unknown.stderr).toContain('No schedule "no-such"');
      } finally {
        await drop?.();
      }
      // Eight gnl processes, each opening the journal: minutes on a loaded machine.
    }, 600_000);

    it('a bad cron in the deployment is one clear line naming it, exit 2; commands that do not read schedules are not affected', async () => {
      const env = { GNL_DATA_DIR: tempDataDir(), GNL_DEMO_SCHEDULE_CRON: '61 * * * *' };
      const result = await gnl(['schedules'], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('gnl: defineSchedule "support-questions" refused: cron "61 * * * *": Invalid value for minute: 61\n');
      expect((await gnl(['agents'], { env })).code).toBe(0);
    });
  });
}
