/**
 * Where a run's time goes in the process: the peers' 20-step agent under runDurable on Postgres, N runs
 * one after another (`npx tsx --cpu-prof --cpu-prof-dir=DIR bench/profile-run.ts [N]`), then
 * `node bench/profile-top.mjs DIR` for the functions with the most self time.
 */
import { randomUUID } from 'node:crypto';
import { gnlTool, runDurable } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { loopSettings, recordTool, scriptedModel } from './peers/agent';

const runs = Number(process.argv[2] ?? 200);
const storage = new PostgresStorage({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
const tools = { record: gnlTool(recordTool(), { sideEffect: true }) };
for (let i = 0; i < 20; i++) await runDurable({ model: scriptedModel(), tools, ...loopSettings, runId: `prof-warm-${randomUUID()}`, journal: storage.runs });
const started = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < runs; i++) await runDurable({ model: scriptedModel(), tools, ...loopSettings, runId: `prof-${randomUUID()}`, journal: storage.runs });
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
console.log(
  `${runs} runs: ${(ms / runs).toFixed(2)} ms a run, process CPU ${((used.user + used.system) / 1000 / runs).toFixed(2)} ms a run (${((used.user + used.system) / 1000 / runs / 41).toFixed(3)} ms a checkpoint)`,
);
await storage.close();
