/**
 * Where a resume of a long run spends the process's time: a run of N recorded steps (the bench agent, the
 * model throws at step N), resumed to step N (`npx tsx --cpu-prof --cpu-prof-dir=DIR bench/profile-resume.ts [N]`).
 */
import { randomUUID } from 'node:crypto';
import { runDurable } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { benchAgent } from './agent';

const n = Number(process.argv[2] ?? 500);
const storage = new PostgresStorage({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
const runId = `prof-resume-${randomUUID()}`;
const until = async () => {
  let reached: number | undefined;
  const started = performance.now();
  await runDurable({
    ...benchAgent({
      steps: n + 5,
      stopAt: n,
      onModelCall: (step) => {
        if (step === n) reached ??= performance.now();
      },
    }),
    runId,
    journal: storage.runs,
  }).catch(() => undefined);
  return (reached ?? Number.NaN) - started;
};
console.log(`recorded ${n} steps in ${(await until()).toFixed(0)} ms`);
for (let i = 0; i < 2; i++) {
  const ms = await until();
  console.log(`resume to step ${n}: ${ms.toFixed(0)} ms, ${(ms / n).toFixed(2)} ms a recorded step`);
}
await storage.close();
