/**
 * What the executor's path sends to Postgres a run (issue 31), counted on the driver: RUNS runs of the
 * bench agent (20 steps) started with startRun, then executed by an Executor of 4 slots in this process,
 * on a database of its own (no listener of another suite makes its appends announced). Prints the
 * statements a run by kind: startRun's, and the invocation's (claim, reads, hold, writes, queue).
 *
 *   npx tsx bench/executor-statements.ts [RUNS=20]      (DATABASE_URL, default the local test database)
 */
import postgres from 'postgres';
import { PostgresStorage } from '../lib/durable/storage';
import { Executor, startRun } from '../lib/executor';
import { createFreshDatabase } from '../tests/support/fresh-database';
import { benchRegistry } from './agent';

const RUNS = Number(process.argv[2] ?? 20);
const database = await createFreshDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test', 'gnl_bench_exec');
const counts = new Map<string, number>();
let phase: 'setup' | 'start' | 'execute' | 'stop' = 'setup';
const debug = (_connection: number, query: string) => {
  if (phase === 'setup' || phase === 'stop') return;
  const key = `${phase.padEnd(7)} ${query.replace(/\s+/g, ' ').trim().slice(0, 100)}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
};
const storage = new PostgresStorage({ connectionString: database.url, max: 6, clientOptions: { debug } as never });
const registry = benchRegistry(20);
const runIds = Array.from({ length: RUNS }, (_, i) => `count:${i}`);
const watcher = postgres(database.url, { max: 1, onnotice: () => {} }); // not counted: how this script waits
try {
  await storage.database();
  phase = 'start';
  for (const runId of runIds) await startRun({ storage, registry, agent: 'bench', runId, input: { prompt: 'Record every item.' } });
  phase = 'execute';
  const executor = new Executor({ storage, registry, concurrency: 4, pollMs: 50 });
  executor.start();
  for (;;) {
    const [row] = await watcher<{ n: number }[]>`select count(*)::int as n from gnl.runs where status = 'completed'`;
    if ((row?.n ?? 0) >= RUNS) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  phase = 'stop';
  await executor.stop({ graceMs: 2_000 });
  const rows = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  for (const [what, n] of rows) console.log(`${(n / RUNS).toFixed(2).padStart(6)}  ${what}`);
  const total = (prefix: string) => rows.filter(([what]) => what.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0) / RUNS;
  console.log(`statements a run: startRun ${total('start').toFixed(2)}, its execution ${total('execute').toFixed(2)}`);
} finally {
  await watcher.end({ timeout: 5 });
  await storage.close();
  await database.drop();
}
