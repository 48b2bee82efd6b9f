/**
 * Figure 6, memory: the resident set of a worker process (bench/worker.ts: the Executor of
 * `npm run worker`) executing 500 runs at once, sampled from /proc every 200 ms, against the same
 * process idle; and the Studio server with 50 open event streams (measured with figure 4's server).
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { rssMb } from './children';
import { studioMemory } from './live-latency';
import type { BenchContext, FigureResult } from './report-types';
import { round, sleep, summary } from './stats';
import { enqueueRuns, startBenchWorkers, waitCompleted } from './throughput';

export async function memory(ctx: BenchContext): Promise<FigureResult> {
  // Quick mode: 200 (the figure is defined at 500; the full run measures that).
  const runs = ctx.quick ? 200 : 500;
  const prefix = `bench:memory:${randomUUID().slice(0, 8)}:`;
  const sql = postgres(ctx.url, { max: 1, onnotice: () => {} });
  ctx.log(`figure 6: enqueueing ${runs} runs, then one worker with concurrency ${runs}`);
  await enqueueRuns(ctx.url, prefix, runs);
  const [worker] = startBenchWorkers(ctx.url, 1, runs);
  if (!worker) throw new Error('bench: no worker');
  const samples: number[] = [];
  let maxLeased = 0;
  let idle = Number.NaN;
  let done: Awaited<ReturnType<typeof waitCompleted>> | undefined;
  try {
    await worker.waitFor((l) => l.type === 'started', 90_000);
    idle = rssMb(worker.child.pid as number);
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        samples.push(rssMb(worker.child.pid as number));
        const [row] = await sql<
          { n: number }[]
        >`select count(*)::int as n from gnl.run_queue where run_id like ${`${prefix}%`} and lease_owner is not null and lease_expires_at > now()`;
        maxLeased = Math.max(maxLeased, row?.n ?? 0);
        await sleep(200);
      }
    })();
    done = await waitCompleted(sql, prefix, runs, ctx.quick ? 90_000 : 180_000);
    sampling = false;
    await sampler;
  } finally {
    await worker.stop();
    await sql.end({ timeout: 5 });
  }
  const s = summary(samples.filter(Number.isFinite), 1);
  return {
    id: '6',
    title: 'Memory (resident set)',
    rows: [
      { process: 'worker, started, no run', 'RSS MB': round(idle, 1) },
      {
        process: `worker executing ${runs} runs at once (most leased at one time: ${maxLeased}; completed ${done?.completed ?? 0}/${runs})`,
        'RSS MB': s.median,
        'RSS MB p90': s.p90,
        'RSS MB max': Math.max(...samples.filter(Number.isFinite).map((x) => round(x, 1))),
      },
      ...studioMemory.map((r) => ({ process: String(r.condition), 'RSS MB': r['RSS MB'] ?? null, 'RSS MB max': r['RSS MB max'] ?? null })),
    ],
    notes: [
      `The worker's RSS sampled every 200 ms from /proc while its ${runs} runs (the ${20}-step bench agent) executed; "most leased at one time" is read from gnl.run_queue meanwhile.`,
      studioMemory.length
        ? 'The Studio rows: the process tree of the Studio’s server (scripts/studio-server.mjs, figure 4’s), with 50 signed-in SSE clients, each on its own run, every run appended to meanwhile.'
        : 'The Studio rows are missing: figure 4 did not run.',
    ],
  };
}
