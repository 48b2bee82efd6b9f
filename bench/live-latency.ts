/**
 * Figure 4, live latency, and figure 6's Studio half, on the real Studio (bench/studio-server.ts):
 * - a signed-in client holds the run's SSE stream open (/api/runs/<run>/events, over HTTP); the bench
 *   appends one event at a time to that run through its own PostgresStorage; latency = from the
 *   append's commit (its promise resolving) to the event arriving in the client (same process clock).
 *   Idle, then with 100 runs executing (a bench worker process with 100 runs at once on the same database).
 * - the Studio server's resident memory (the process tree of scripts/studio-server.mjs) with 50 open event streams,
 *   against the same server with none.
 */
import { randomUUID } from 'node:crypto';
import type { JournalEvent, RunHold } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { encodeRunSegment } from '../lib/studio/reads/run-path';
import { processTree, rssMb } from './children';
import type { BenchContext, FigureResult, GoalCheck } from './report-types';
import { round, sleep, summary } from './stats';
import { openStream, type StudioServer, startStudio } from './studio-server';
import { enqueueRuns, startBenchWorkers } from './throughput';

const event = (step: number): JournalEvent => ({
  type: 'model-step',
  step,
  provider: 'bench',
  modelId: 'bench-1',
  latencyMs: 1,
  result: { content: [{ type: 'text', text: 'x'.repeat(300) }], finishReason: { unified: 'stop' } } as never,
});

async function newRun(storage: PostgresStorage, label: string): Promise<RunHold> {
  const hold = await storage.runs.hold(`bench:live:${label}:${randomUUID()}`);
  await hold.create({ prompt: 'bench', modelId: 'bench-1', provider: 'bench', toolNames: [] } as never);
  return hold;
}

/** `n` appends, one at a time with a pause between; returns commit→arrival per event (ms). */
async function latencies(server: StudioServer, hold: RunHold, n: number, pauseMs: number): Promise<{ samples: number[]; lost: number }> {
  const arrivals = new Map<number, number>();
  const stream = openStream(`${server.baseUrl}/api/runs/${encodeRunSegment(hold.runId)}/events`, server.cookie, (name, data, at) => {
    if (name !== 'events') return;
    for (const e of data as { seq: number }[]) if (!arrivals.has(e.seq)) arrivals.set(e.seq, at);
  });
  await stream.opened;
  await sleep(300);
  const commits = new Map<number, number>();
  try {
    for (let i = 0; i < n; i++) {
      const [recorded] = await hold.append([event(i)]);
      commits.set(recorded?.seq as number, performance.now());
      await sleep(pauseMs);
    }
    const deadline = performance.now() + 5000;
    while ([...commits.keys()].some((seq) => !arrivals.has(seq)) && performance.now() < deadline) await sleep(20);
  } finally {
    stream.close();
  }
  const samples = [...commits].flatMap(([seq, at]) => (arrivals.has(seq) ? [(arrivals.get(seq) as number) - at] : []));
  return { samples, lost: commits.size - samples.length };
}

function serverRss(server: StudioServer): number {
  return processTree(server.process.pid as number).reduce((sum, pid) => sum + (rssMb(pid) || 0), 0);
}

/** The Studio's memory rows, measured with figure 4's server; figure 6 reports them. */
export const studioMemory: FigureResult['rows'] = [];

export async function liveLatency(ctx: BenchContext): Promise<FigureResult> {
  const n = ctx.quick ? 40 : 120;
  const storage = new PostgresStorage({ connectionString: ctx.url });
  await storage.database();
  const server = await startStudio({ url: ctx.url, storage, log: ctx.log });
  const rows: FigureResult['rows'] = [];
  const goals: GoalCheck[] = [];
  const memory = studioMemory;
  memory.length = 0;
  let underLoad: ReturnType<typeof summary> | undefined;
  let idle: ReturnType<typeof summary> | undefined;
  try {
    ctx.log(`figure 4: Studio up at ${server.baseUrl} (${server.reusedBuild ? 'existing build' : 'built now'}); ${n} appends idle`);
    const warm = await newRun(storage, 'warm');
    await latencies(server, warm, 5, 20); // compiles nothing (production build), opens the Studio's pool and LISTEN
    await warm.release();
    const idleHold = await newRun(storage, 'idle');
    const idleRun = await latencies(server, idleHold, n, 20);
    await idleHold.release();
    idle = summary(idleRun.samples, 2);
    rows.push({ condition: 'idle', ...idle, 'events lost': idleRun.lost });

    ctx.log('figure 4: with 100 runs executing (a bench worker, 100 at once)');
    const prefix = `bench:live-load:${randomUUID().slice(0, 8)}:`;
    await enqueueRuns(ctx.url, prefix, ctx.quick ? 150 : 300);
    const [worker] = startBenchWorkers(ctx.url, 1, 100);
    try {
      await worker?.waitFor((l) => l.type === 'started', 90_000);
      await sleep(1500);
      const loadHold = await newRun(storage, 'load');
      const executingBefore = await executing(storage);
      const loaded = await latencies(server, loadHold, n, 20);
      const executingAfter = await executing(storage);
      await loadHold.release();
      underLoad = summary(loaded.samples, 2);
      rows.push({
        condition: `100 runs executing (leased: ${executingBefore} at start, ${executingAfter} at the end)`,
        ...underLoad,
        'events lost': loaded.lost,
      });
    } finally {
      await worker?.stop();
      await parkRuns(storage, prefix);
    }

    ctx.log('figure 6: the Studio server with 50 open event streams');
    const before = serverRss(server);
    const holds = await Promise.all(Array.from({ length: 50 }, (_, i) => newRun(storage, `mem-${i}`)));
    let received = 0;
    const streams = holds.map((hold) =>
      openStream(`${server.baseUrl}/api/runs/${encodeRunSegment(hold.runId)}/events`, server.cookie, (name) => {
        if (name === 'events') received += 1;
      }),
    );
    await Promise.all(streams.map((s) => s.opened));
    const samples: number[] = [];
    for (let round_ = 0; round_ < (ctx.quick ? 5 : 10); round_++) {
      await Promise.all(holds.map((hold, i) => hold.append([event(round_ * 100 + i)])));
      await sleep(300);
      samples.push(serverRss(server));
    }
    for (const s of streams) s.close();
    await Promise.all(holds.map((h) => h.release()));
    const open = summary(samples, 1);
    memory.push({ condition: 'Studio server, no stream open', 'RSS MB': round(before, 1) });
    memory.push({
      condition: `Studio server, 50 open event streams (each run appended to ${samples.length}×)`,
      'RSS MB': open.median,
      'RSS MB max': Math.max(...samples.map((s) => round(s, 1))),
      'messages received': received,
    });
  } finally {
    await server.stop();
    await storage.close();
  }
  if (underLoad && idle) {
    goals.push({
      goal: 'live latency p50 < 100 ms, p99 < 500 ms under load',
      measured: `idle p50 ${idle.median} / p99 ${idle.p99} ms; with 100 runs executing p50 ${underLoad.median} / p99 ${underLoad.p99} ms`,
      met: underLoad.median < 100 && underLoad.p99 < 500,
    });
  }
  return {
    id: '4',
    title: 'Live latency: an append’s commit → the event in a signed-in Studio client (the real SSE endpoint over HTTP)',
    rows,
    goals,
    notes: [
      `${n} appends per condition, 20 ms apart, each a 300-byte model-step event to a run whose stream /api/runs/<run>/events is open in the client. Path: commit → NOTIFY from the appending process’s side session (after commit, coalesced) → the Studio’s LISTEN connection → the run’s follower reads the journal after its sequence number → SSE over HTTP → the client.`,
      'Under load: a bench worker process (the Executor of npm run worker with the bench agent) executing 100 runs at once on the same database, the Studio server and the client on the same 2 cores.',
      `Memory (figure 6) is in figure 6’s table. The Studio: \`scripts/studio-server.mjs\` in ${server.app} on ${server.reusedBuild ? 'its existing build' : 'a build made by this run'}.`,
      'Browser responsiveness on a long run (virtualised timeline) is covered by e2e/studio/long-run.spec.ts (a 2 501-event run in a real Chromium), not re-tested here.',
    ],
  };
}

/** The load's runs still queued are taken off the queue, so later figures' workers do not find them. */
async function parkRuns(storage: PostgresStorage, prefix: string): Promise<void> {
  const db = await storage.database();
  const { sql } = await import('drizzle-orm');
  await db.execute(sql`update gnl.run_queue set runnable = false where run_id like ${`${prefix}%`}`);
}

async function executing(storage: PostgresStorage): Promise<number> {
  const db = await storage.database();
  const { sql } = await import('drizzle-orm');
  const rows = (await db.execute(sql`select count(*)::int as n from gnl.run_queue where lease_owner is not null and lease_expires_at > now()`)) as unknown as {
    n: number;
  }[];
  return rows[0]?.n ?? 0;
}
