/**
 * Seeds runs of the `long` Studio's schedule (schedule-data.ts) through the real executor layer: an
 * Executor ticks the schedule with its clock given, at three slots in turn (each started, then canceled
 * by the seed: that Studio has no demo service to run them against), then once two minutes after a
 * fourth slot (missed: the policy is 'skip'). The Studio's own executor then ticks from there.
 */
import { supportAgent } from '@/agents/support';
import { createAgentRegistry, defineSchedule, nextSlot } from '@/lib/agents';
import type { Storage } from '@/lib/durable/storage';
import { cancelRun, Executor } from '@/lib/executor';
import { SCHEDULE } from './schedule-data';

export async function seedSchedules(storage: Storage): Promise<string[]> {
  const { GNL_DEMO_SCHEDULE_CRON: cron, GNL_DEMO_SCHEDULE_TZ: timeZone, GNL_DEMO_SCHEDULE_MISSED: missed } = SCHEDULE.env;
  // As agents/schedules.ts declares the demo's schedule from those variables.
  const schedule = defineSchedule({
    id: SCHEDULE.id,
    agent: 'support',
    cron,
    timeZone,
    missed,
    input: { prompt: 'Customer c_7 has a question about order o_21' },
  });
  const registry = createAgentRegistry([supportAgent({ serviceUrl: 'http://127.0.0.1:9' })]);
  const executor = new Executor({ storage, registry, schedules: [schedule], sole: false });
  await executor.tickSchedules();
  const started: string[] = [];
  let slot = nextSlot(schedule, new Date()) as Date;
  for (let i = 0; i < SCHEDULE.seededRuns; i++) {
    const [report] = await executor.tickSchedules({ now: new Date(slot.getTime() + 1_000) });
    if (report?.error) throw report.error;
    for (const { runId } of report?.started ?? []) {
      await cancelRun(runId, { storage, by: 'e2e seed', reason: 'a seeded schedule run (no demo service here)' });
      started.push(runId);
    }
    slot = nextSlot(schedule, slot) as Date;
  }
  const [missedReport] = await executor.tickSchedules({ now: new Date(slot.getTime() + 120_000) });
  if (!missedReport?.missed || missedReport.started.length > 0) throw new Error(`seed-schedules: expected a missed slot, got ${JSON.stringify(missedReport)}`);
  if (started.length !== SCHEDULE.seededRuns) throw new Error(`seed-schedules: expected ${SCHEDULE.seededRuns} runs, got ${started.length}`);
  return started;
}
