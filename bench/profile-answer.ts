/**
 * Where a completed run's answer spends the process's time: one run of the peers' agent, then N answers
 * of it (`npx tsx --cpu-prof --cpu-prof-dir=DIR bench/profile-answer.ts [N]`; `node bench/profile-top.mjs DIR`).
 */
import { randomUUID } from 'node:crypto';
import { gnlTool, runDurable } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { loopSettings, recordTool, scriptedModel } from './peers/agent';

const answers = Number(process.argv[2] ?? 2000);
const storage = new PostgresStorage({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
const tools = { record: gnlTool(recordTool(), { sideEffect: true }) };
const runId = `prof-answer-${randomUUID()}`;
const answer = () => runDurable({ model: scriptedModel(), tools, ...loopSettings, runId, journal: storage.runs });
await answer();
for (let i = 0; i < 100; i++) await answer();
const started = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < answers; i++) await answer();
const ms = performance.now() - started;
const used = process.cpuUsage(cpu);
console.log(`${answers} answers: ${(ms / answers).toFixed(3)} ms each, process CPU ${((used.user + used.system) / 1000 / answers).toFixed(3)} ms each`);
await storage.close();
