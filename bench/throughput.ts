/**
 * Figure 3, throughput on one Postgres:
 * - in one process, C = 1, 10, 100, 500 runs executing at once (each loop runs the 20-step agent again
 *   and again) over the journal's default pool (10 connections), for a window: journal events appended
 *   a second (each durable at a commit; a run's 63 events take 42 commits, since a model step rides with the
 *   next record's commit), steps and runs per second. Floor: Postgres's own
 *   commit rate, the same one-row INSERT loop from C concurrent loops over a pool of the same size.
 * - 1, 2 and 4 worker processes (bench/worker.ts: the Executor of `npm run worker` with the bench agent)
 *   sharing 100 concurrent runs, on a batch of runs enqueued with startRun.
 * - where the NOTIFY goes: bench/notify.ts at 50 writers (in the append statement, after commit per
 *   append, after commit coalesced, none), every run's last notification checked against its last_seq.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { PostgresStorage } from '../lib/durable/storage';
import { startRun } from '../lib/executor';
import { benchRegistry, runJournaled } from './agent';
import { type Child, ROOT, spawnTsx } from './children';
import { postgresCommitRate } from './floors';
import type { BenchContext, FigureResult, GoalCheck } from './report-types';
import { ratio, round, sleep } from './stats';

const STEPS = 20;
export const POOL = 10;

/** Sum of events and completed runs whose id starts with `prefix`. */
export async function progress(sql: postgres.Sql, prefix: string): Promise<{ events: number; completed: number; runs: number }> {
  const [row] = await sql<{ events: number; completed: number; runs: number }[]>`
    select coalesce(sum(last_seq), 0)::int as events, count(*) filter (where status = 'completed')::int as completed, count(*)::int as runs
    from gnl.runs where run_id like ${`${prefix}%`}`;
  return row ?? { events: 0, completed: 0, runs: 0 };
}

async function inProcess(ctx: BenchContext, concurrency: number, seconds: number) {
  const storage = new PostgresStorage({ connectionString: ctx.url, max: POOL });
  const sql = postgres(ctx.url, { max: 1, onnotice: () => {} });
  const prefix = `bench:tp:${concurrency}:${randomUUID().slice(0, 8)}:`;
  try {
    await storage.database();
    let failures = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          await runJournaled(storage.runs, `${prefix}${randomUUID()}`, STEPS).catch(() => {
            failures += 1;
          });
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const done = await progress(sql, prefix);
    return { elapsed, ...done, failures };
  } finally {
    await Promise.all([storage.close(), sql.end({ timeout: 5 })]);
  }
}

/** Enqueues `runs` runs of the bench agent (20 at a time); resolves when all are enqueued. */
export async function enqueueRuns(url: string, prefix: string, runs: number): Promise<void> {
  const storage = new PostgresStorage({ connectionString: url, max: 4 });
  const registry = benchRegistry(STEPS);
  try {
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < runs) {
          next += 1;
          await startRun({ storage, registry, agent: 'bench', runId: `${prefix}${randomUUID()}`, input: { prompt: 'Record every item.' } });
        }
      }),
    );
  } finally {
    await storage.close();
  }
}

export function startBenchWorkers(url: string, count: number, concurrency: number, pool = 6): Child[] {
  return Array.from({ length: count }, () =>
    spawnTsx(
      path.join(ROOT, 'bench', 'worker.ts'),
      ['--concurrency', String(concurrency), '--poll-ms', '50', '--pool', String(pool), '--steps', String(STEPS)],
      {
        DATABASE_URL: url,
      },
    ),
  );
}

/** Waits until every run with `prefix` completed (or `timeoutMs`), sampling `onSample` meanwhile. */
export async function waitCompleted(sql: postgres.Sql, prefix: string, runs: number, timeoutMs: number, onSample?: () => void) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    onSample?.();
    const p = await progress(sql, prefix);
    if (p.completed >= runs || performance.now() > deadline) return p;
    await sleep(100);
  }
}

async function withWorkers(ctx: BenchContext, workers: number, runs: number, concurrency = 100) {
  const sql = postgres(ctx.url, { max: 1, onnotice: () => {} });
  const prefix = `bench:workers:${workers}:${randomUUID().slice(0, 8)}:`;
  const children = startBenchWorkers(ctx.url, workers, Math.ceil(concurrency / workers));
  try {
    await Promise.all(children.map((c) => c.waitFor((l) => l.type === 'started', 90_000)));
    const started = performance.now();
    await enqueueRuns(ctx.url, prefix, runs);
    const done = await waitCompleted(sql, prefix, runs, Math.max(120_000, runs * 200));
    const elapsed = (performance.now() - started) / 1000;
    return { elapsed, ...done };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await sql.end({ timeout: 5 });
  }
}

async function notifyModes(ctx: BenchContext) {
  const child = spawnTsx(path.join(ROOT, 'bench', 'notify.ts'), [], {
    DATABASE_URL: ctx.url,
    BENCH_WRITERS: '50',
    BENCH_PGLITE_WRITERS: '1',
    BENCH_SECONDS: ctx.quick ? '1' : '2',
    BENCH_ROUNDS: ctx.quick ? '1' : '2',
  });
  const code = await child.exited;
  if (code !== 0) throw new Error(`bench/notify.ts exited ${code}: ${child.stderr().slice(-1500)}`);
  return (JSON.parse(readFileSync(path.join(ROOT, 'bench', 'results', 'notify.json'), 'utf8')) as { results: Record<string, string | number>[] }).results;
}

export async function throughput(ctx: BenchContext): Promise<FigureResult> {
  const seconds = ctx.quick ? 2 : 5;
  const concurrencies = ctx.quick ? [1, 100] : [1, 10, 100, 500];
  const rows: FigureResult['rows'] = [];
  let at100: { journal: number; floor: number } | undefined;
  for (const c of concurrencies) {
    ctx.log(`figure 3: ${c} concurrent runs in one process, ${seconds} s`);
    const r = await inProcess(ctx, c, seconds);
    const floor = await postgresCommitRate(ctx.url, { writers: c, pool: POOL, seconds: Math.min(seconds, 4) });
    const eventsPerS = r.events / r.elapsed;
    if (c === 100) at100 = { journal: eventsPerS, floor };
    rows.push({
      setup: `1 process, ${c} concurrent runs`,
      'journal events/s': round(eventsPerS, 0),
      'steps/s': round((r.completed * STEPS) / r.elapsed, 0),
      'runs/s': round(r.completed / r.elapsed, 1),
      'runs completed': r.completed,
      'failed runs': r.failures,
      'floor: INSERT commits/s, same concurrency': floor,
      'floor ÷ journal': ratio(floor, eventsPerS),
    });
  }
  // Issue 31: 1,000 runs at once on 4 workers (250 each, pools of 6), against Postgres's own commit rate from
  // 1,000 writers over the same 24 connections. Full runs only (about a minute).
  let at1000: { journal: number; floor: number } | undefined;
  if (!ctx.quick) {
    const runs = 2000;
    ctx.log(`figure 3: 4 worker processes, 1,000 concurrent runs in all, ${runs} runs`);
    const r = await withWorkers(ctx, 4, runs, 1000);
    const floor = await postgresCommitRate(ctx.url, { writers: 1000, pool: 24, seconds: 4 });
    const eventsPerS = r.events / r.elapsed;
    at1000 = { journal: eventsPerS, floor };
    rows.push({
      setup: '4 worker processes, 250 runs each at once (1,000 in all)',
      'journal events/s': round(eventsPerS, 0),
      'steps/s': round((r.completed * STEPS) / r.elapsed, 0),
      'runs/s': round(r.completed / r.elapsed, 1),
      'runs completed': r.completed,
      'failed runs': runs - r.completed,
      'floor: INSERT commits/s, same concurrency': floor,
      'floor ÷ journal': ratio(floor, eventsPerS),
    });
  }
  const batch = ctx.quick ? 100 : 200;
  for (const w of ctx.quick ? [1] : [1, 2, 4]) {
    ctx.log(`figure 3: ${w} worker process(es), 100 concurrent runs in all, ${batch} runs`);
    const r = await withWorkers(ctx, w, batch);
    const eventsPerS = r.events / r.elapsed;
    rows.push({
      setup: `${w} worker process(es), ${Math.ceil(100 / w)} runs each at once`,
      'journal events/s': round(eventsPerS, 0),
      'steps/s': round((r.completed * STEPS) / r.elapsed, 0),
      'runs/s': round(r.completed / r.elapsed, 1),
      'runs completed': r.completed,
      'failed runs': batch - r.completed,
      'floor: INSERT commits/s, same concurrency': at100?.floor ?? null,
      'floor ÷ journal': at100 ? ratio(at100.floor, eventsPerS) : null,
    });
  }
  ctx.log('figure 3: where the NOTIFY goes (bench/notify.ts, 50 writers)');
  let notify: Record<string, string | number>[] = [];
  let notifyProblem: string | undefined;
  try {
    notify = await notifyModes(ctx);
  } catch (error) {
    notifyProblem = `bench/notify.ts could not run: ${(error as Error).message}`;
  }
  const goals: GoalCheck[] = at100
    ? [
        {
          goal: 'journal events/s within 2× of Postgres’s own commit rate at 100 concurrent runs',
          measured: `${round(at100.journal, 0)} journal events/s against ${at100.floor} INSERT commits/s: the floor is ${ratio(at100.floor, at100.journal)}× the journal (one process); workers: ${rows
            .filter((r) => String(r.setup).includes('worker'))
            .map((r) => `${String(r.setup).split(' ')[0]} → ${r['floor ÷ journal']}×`)
            .join(', ')}`,
          met: ratio(at100.floor, at100.journal) <= 2,
          note: 'on 2 shared cores the agent loop itself (the SDK, JSON encoding, hashing) competes with Postgres for CPU',
        },
        ...(at1000
          ? [
              {
                goal: '1,000 concurrent runs on 4 workers within 2× of Postgres’s own commit rate (issue 31)',
                measured: `${round(at1000.journal, 0)} journal events/s against ${at1000.floor} INSERT commits/s from 1,000 writers on 24 connections: the floor is ${ratio(at1000.floor, at1000.journal)}× the journal`,
                met: ratio(at1000.floor, at1000.journal) <= 2,
              },
            ]
          : []),
      ]
    : [];
  return {
    id: '3',
    title: 'Throughput on one Postgres',
    rows: [
      ...rows,
      ...notify.map((n) => ({
        setup: `notify.ts: ${n.journal}, ${n.writers} writers, ${n.mode}`,
        'journal events/s': n.commitsPerSecond ?? null,
        'vs first mode': n.vsFirst ?? null,
        'unannounced runs': n.unannouncedRuns ?? null,
      })),
    ],
    goals,
    notes: [
      ...(notifyProblem ? [notifyProblem] : []),
      `One process: C loops each running the ${STEPS}-step agent again and again for ${seconds} s (runs in flight are finished and counted), over the journal's default pool of ${POOL} connections; events = the runs' last_seq (every append is one statement and one commit; a model step rides with the next record's, so 63 events take 42 commits: bench/journal-floor.ts counts them). Floor: one-row INSERT loops from C writers over a pool of ${POOL}.`,
      `Workers: bench/worker.ts processes (the Executor of npm run worker, with the bench agent; pool of 6 each, to stay within the shared server's connections), started first; the time runs from the first startRun of a batch of ${batch} runs to the last completion (the enqueueing overlaps the execution).`,
      'notify.ts rows: commit throughput of plain appends (one event a commit) with the NOTIFY inside the append statement, after commit per append, after commit coalesced (what PostgresStorage does), or none; "unannounced runs" counts runs whose last append was never heard by a LISTEN connection (must be 0).',
    ],
  };
}
