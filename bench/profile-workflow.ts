/**
 * Where a workflow's time goes in the process: the peers' 20-step workflow (each step a side effect)
 * under runWorkflow on Postgres, N runs (`npx tsx --cpu-prof --cpu-prof-dir=DIR bench/profile-workflow.ts [N]`).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { defineWorkflow, runWorkflow } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';

const runs = Number(process.argv[2] ?? 200);
const storage = new PostgresStorage({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
const workflow = defineWorkflow({
  name: 'profile-steps',
  input: z.object({}),
  run: async (wf) => {
    let count = 0;
    for (let n = 0; n < 20; n++)
      if ((await wf.step(`record-${n}`, { input: { n }, sideEffect: true }, async () => ({ recorded: `item-${n}` }))).recorded) count++;
    return count;
  },
});
const once = () => runWorkflow<number>({ workflow, runId: `prof-wf-${randomUUID()}`, input: {}, journal: storage.runs });
for (let i = 0; i < 20; i++) await once();
const started = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < runs; i++) await once();
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
console.log(
  `${runs} workflows: ${(ms / runs).toFixed(2)} ms each (${(ms / runs / 20).toFixed(3)} ms a step), process CPU ${((used.user + used.system) / 1000 / runs / 20).toFixed(3)} ms a step`,
);
await storage.close();
