/**
 * Where the CPU goes at figure 3's 1,000 concurrent runs (issue 31): the same 4 bench workers (250 runs
 * each at once, pools of 6) and the same enqueueing as `npm run bench -- --only 3`, with the CPU time each
 * side used read from /proc (Linux): the workers, every Postgres process on the machine, this process (it
 * enqueues), and the whole machine. Journal commits/s as figure 3 counts them.
 *
 *   npx tsx bench/throughput-cpu.ts [RUNS=2000]      (DATABASE_URL, default the local test database)
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import postgres from 'postgres';
import { ROOT } from './children';
import { cpuOf, machineBusy, postgresCpu } from './proc-cpu';
import { enqueueRuns, waitCompleted } from './throughput';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const runs = Number(process.argv[2] ?? 2000);
const sql = postgres(url, { max: 1, onnotice: () => {} });
const prefix = `bench:throughput-cpu:${randomUUID().slice(0, 8)}:`;
const args = ['--import', 'tsx', 'bench/worker.ts', '--concurrency', '250', '--poll-ms', '50', '--pool', '6', '--steps', '20'];
const workers = Array.from({ length: 4 }, () =>
  spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'pipe', 'inherit'] }),
);
try {
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          worker.once('exit', (code) => reject(new Error(`a bench worker exited (${code}) before it started`)));
          worker.stdout?.on('data', (chunk) => {
            if (String(chunk).includes('"started"')) resolve();
          });
        }),
    ),
  );
  const before = { workers: workers.map((w) => cpuOf(w.pid as number)), postgres: postgresCpu(), machine: machineBusy(), self: process.cpuUsage() };
  const started = performance.now();
  await enqueueRuns(url, prefix, runs);
  const done = await waitCompleted(sql, prefix, runs, Math.max(120_000, runs * 200));
  const seconds = (performance.now() - started) / 1000;
  const self = process.cpuUsage(before.self);
  const workerCpu = workers.map((w, i) => cpuOf(w.pid as number) - (before.workers[i] ?? 0)).reduce((a, b) => a + b, 0);
  const postgresUsed = postgresCpu() - before.postgres;
  const perRun = (cpu: number) => `${((cpu * 1000) / done.completed).toFixed(1)} ms`;
  console.log(`${done.completed} of ${runs} runs completed in ${seconds.toFixed(1)} s: ${(done.events / seconds).toFixed(0)} journal events/s`);
  console.log(`CPU a run: workers ${perRun(workerCpu)}, Postgres ${perRun(postgresUsed)}, the enqueuer ${perRun((self.user + self.system) / 1e6)}`);
  console.log(
    `the machine busy ${(machineBusy() - before.machine).toFixed(1)} CPU s of ${(seconds * os.cpus().length).toFixed(1)} on ${os.cpus().length} cores`,
  );
} finally {
  for (const worker of workers) worker.kill('SIGTERM');
  await Promise.all(workers.map((worker) => new Promise((resolve) => (worker.exitCode === null ? worker.once('exit', resolve) : resolve(undefined)))));
  await sql.end({ timeout: 5 });
}
