/**
 * `npm run bench:api [-- --quick]`: the HTTP API under load on loopback (docs/api.md, issue 30's load test,
 * issue 31's "API start-and-follow"): `gnl serve`'s server (serveApi, node:http) and one executor in
 * this process, CLIENTS typed clients at once starting RUNS runs of the demo support agent (a question:
 * a customer lookup, a ticket and an email at the demo's outside service, no approval) and following each
 * to its end over SSE. Per run: the start's latency (POST /runs answered) and start-to-completed (the
 * follow saw `completed`); p50/p90/p99 and runs per second. Bounded in count and time (a run not
 * completed in 60 s fails the bench). On both journals: Postgres `gnl_bench_api` (dropped and created, on
 * the server of DATABASE_URL) and PGlite in a temporary folder. Written to bench/results/api-<timestamp>.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { supportAgent } from '../agents/support';
import { createApiToken } from '../lib/accounts';
import { createAgentRegistry } from '../lib/agents';
import { startOutsideService } from '../lib/demo';
import { createGnlClient } from '../lib/durable/client';
import { PGliteStorage, PostgresStorage, type Storage } from '../lib/durable/storage';
import { Executor } from '../lib/executor';
import { serveApi } from '../lib/server';
import { tokenBuckets } from '../lib/server/rate-limit';
import { DATABASE_URL, databaseUrl, summary } from './stats';

const quick = process.argv.includes('--quick');
const RUNS = quick ? 40 : 200;
const CLIENTS = quick ? 8 : 20;
const DB = 'gnl_bench_api';

async function measure(kind: 'postgres' | 'pglite', storage: Storage) {
  const service = await startOutsideService();
  const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
  const executor = new Executor({ storage, registry, concurrency: 8, pollMs: 50 }).start();
  const served = await serveApi({ storage, registry, executor, port: 0, rateLimit: tokenBuckets({ perSecond: 100_000, burst: 100_000 }) });
  const { token } = await createApiToken({ storage, name: `bench-${Date.now().toString(36)}`, scopes: ['read', 'start'], by: 'bench' });
  const client = createGnlClient({ baseUrl: served.url, token });
  const starts: number[] = [];
  const completions: number[] = [];
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < RUNS) {
          const n = next++;
          const t0 = performance.now();
          const { run } = await client.start({
            agent: 'support',
            runId: `bench-api:${kind}:${n}:${started}`,
            input: { prompt: `Customer c_7 has question ${n} about order o_21` },
          });
          starts.push(performance.now() - t0);
          const timeout = AbortSignal.timeout(60_000);
          let status = run.status;
          for await (const update of client.follow(run.runId, { signal: timeout })) if (update.type === 'run') status = update.run.status;
          if (status !== 'completed') throw new Error(`run ${run.runId} ended ${status} (or did not end in 60 s)`);
          completions.push(performance.now() - t0);
        }
      }),
    );
  } finally {
    await served.close();
    await executor.stop({ graceMs: 5_000 });
    await service.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    kind,
    runs: RUNS,
    clients: CLIENTS,
    seconds: Math.round(seconds * 10) / 10,
    runsPerSecond: Math.round((RUNS / seconds) * 10) / 10,
    start: summary(starts, 1),
    completed: summary(completions, 1),
  };
}

async function main() {
  const results = [];
  const admin = postgres(databaseUrl(DATABASE_URL, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${DB} with (force)`);
  await admin.unsafe(`create database ${DB}`);
  await admin.end({ timeout: 5 });
  const pg = new PostgresStorage({ connectionString: databaseUrl(DATABASE_URL, DB) });
  try {
    results.push(await measure('postgres', pg));
  } finally {
    await pg.close();
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gnl-bench-api-'));
  const lite = new PGliteStorage({ dataDir: path.join(dir, 'data') });
  try {
    results.push(await measure('pglite', lite));
  } finally {
    await lite.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const load = os.loadavg()[0]?.toFixed(2);
  console.log(`API start-and-follow on loopback, ${RUNS} runs by ${CLIENTS} clients at once (${os.cpus().length} cores, load ${load}):`);
  console.log('| journal  | runs/s | start p50 | start p99 | start→completed p50 | p90 | p99 |');
  console.log('| -------- | ------ | --------- | --------- | ------------------- | --- | --- |');
  for (const r of results)
    console.log(
      `| ${r.kind.padEnd(8)} | ${r.runsPerSecond} | ${r.start.median} ms | ${r.start.p99} ms | ${r.completed.median} ms | ${r.completed.p90} ms | ${r.completed.p99} ms |`,
    );
  mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  const file = path.join(import.meta.dirname, 'results', `api-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ date: new Date().toISOString(), load, cores: os.cpus().length, results }, null, 2)}\n`);
  console.log(`written to ${path.relative(process.cwd(), file)}`);
}

await main();
