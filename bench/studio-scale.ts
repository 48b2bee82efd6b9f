/**
 * Figure 5, the Studio at scale: server time of the runs page's queries over 100 000 runs and 2 000 000
 * events (bench/studio-queries.ts measureStudioQueries: seeded with INSERT … SELECT generate_series in a
 * throwaway database, EXPLAIN ANALYZE of the Studio's own search statement), and the run page of a
 * 5 000-event run through the Studio's own server functions (lib/studio/reads/runs.ts getRunView: the
 * summary, the chunk-aligned tail, the totals over every event; getEventsChunk: one earlier chunk),
 * timed in this process against the bench database.
 */
import postgres from 'postgres';
import type { BenchContext, FigureResult, GoalCheck } from './report-types';
import { databaseUrl, ratio, summary } from './stats';

const LONG_EVENTS = 5000;

/** A 5 000-event run (run-start, then model-step, tool-call-start, tool-call-end …) in the bench database. */
async function seedLongRun(sql: postgres.Sql, runId: string): Promise<void> {
  await sql.unsafe(
    `insert into gnl.runs (run_id, status, last_seq, step_count, input, pending)
     values ($1, 'running', $2::int, ($2::int - 1) / 3, jsonb_build_object('prompt', 'A long run', 'modelId', 'bench-1', 'provider', 'bench', 'toolNames', jsonb_build_array('record')), '[]'::jsonb)`,
    [runId, LONG_EVENTS],
  );
  await sql.unsafe(
    `insert into gnl.run_events (run_id, seq, type, payload, created_at)
     select $1, s,
       case when s = 1 then 'run-start' when (s - 2) % 3 = 0 then 'model-step' when (s - 2) % 3 = 1 then 'tool-call-start' else 'tool-call-end' end,
       case
         when s = 1 then jsonb_build_object('input', jsonb_build_object('prompt', 'A long run', 'modelId', 'bench-1', 'provider', 'bench', 'toolNames', jsonb_build_array('record')))
         when (s - 2) % 3 = 0 then jsonb_build_object('step', (s - 2) / 3, 'provider', 'bench', 'modelId', 'bench-1', 'latencyMs', 800,
           'result', jsonb_build_object('content', jsonb_build_array(jsonb_build_object('type', 'tool-call', 'toolCallId', 'call_' || (s - 2) / 3, 'toolName', 'record', 'input', '{"item":"x"}')),
             'finishReason', jsonb_build_object('unified', 'tool-calls'),
             'usage', jsonb_build_object('inputTokens', jsonb_build_object('total', 1200), 'outputTokens', jsonb_build_object('total', 80))))
         else jsonb_build_object('toolCallId', 'call_' || (s - 2) / 3, 'toolName', 'record', 'input', jsonb_build_object('item', repeat('x', 200)),
           'idempotencyKey', 'gnl1a_' || md5(s::text), 'attempt', 1)
           || case when (s - 2) % 3 = 1 then jsonb_build_object('sideEffect', true)
              else jsonb_build_object('output', jsonb_build_object('recorded', 'x'), 'durationMs', 12, 'source', 'executed') end
       end,
       now() - interval '1 day' + s * interval '1 second'
     from generate_series(1, $2::int) s`,
    [runId, LONG_EVENTS],
  );
  await sql.unsafe('analyze gnl.run_events');
}

async function timed(n: number, once: () => Promise<unknown>): Promise<number[]> {
  await once();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return samples;
}

export async function studioScale(ctx: BenchContext): Promise<FigureResult> {
  const runs = ctx.quick ? 10_000 : 100_000;
  const rows: FigureResult['rows'] = [];
  const goals: GoalCheck[] = [];
  const notes: string[] = [];

  // The run page of a 5 000-event run, through lib/studio (storageFromEnv reads DATABASE_URL: the bench database).
  process.env.DATABASE_URL = ctx.url;
  await import('./server-only-hook');
  const studio = await import('../lib/studio/reads/runs');
  const sql = postgres(ctx.url, { max: 1, onnotice: () => {} });
  const runId = `bench:long:${Date.now()}`;
  try {
    const { storageFromEnv } = await import('../lib/durable/storage');
    await storageFromEnv().database(); // migrated (when this figure runs alone)
    await seedLongRun(sql, runId);
    const view = await timed(10, async () => {
      const v = await studio.getRunView(runId);
      if (!v || v.totals === undefined) throw new Error('bench: the long run has no view');
    });
    const chunk = await timed(10, () => studio.getEventsChunk(runId, 0));
    const select = await timed(10, () =>
      sql.unsafe('select seq, type, payload, created_at from gnl.run_events where run_id = $1 order by seq', [runId], { prepare: true }),
    );
    const s = summary(select);
    for (const [what, samples] of [
      [`run page: getRunView (summary, tail, totals over all ${LONG_EVENTS} events)`, view],
      ['run page: getEventsChunk (one earlier chunk of 200)', chunk],
    ] as const) {
      const t = summary(samples);
      rows.push({
        query: what,
        'server time median': t.median,
        p90: t.p90,
        p99: t.p99,
        'floor: SELECT of all the run’s rows': s.median,
        '÷ floor': ratio(t.median, s.median),
      });
    }
  } finally {
    await sql.end({ timeout: 5 });
    const { storageFromEnv } = await import('../lib/durable/storage');
    await storageFromEnv().close();
  }

  // The runs page at scale.
  ctx.log(`figure 5: seeding ${runs} runs / ${runs * 20} events in a throwaway database and timing the runs page's queries`);
  let measure:
    | ((
        sql: postgres.Sql,
        o: { runs?: number },
      ) => Promise<{ runs: number; events: number; seedSeconds: number; timings: { query: string; rows: number; medianMs: number; maxMs: number }[] }>)
    | undefined;
  try {
    measure = (await import('./studio-queries')).measureStudioQueries;
  } catch (error) {
    notes.push(`bench/studio-queries.ts could not be loaded (${(error as Error).message}): the runs page was not measured.`);
  }
  if (measure) {
    const admin = postgres(databaseUrl(ctx.url, 'postgres'), { max: 1, onnotice: () => {} });
    try {
      const result = await measure(admin, { runs });
      for (const t of result.timings)
        rows.push({ query: `runs page: ${t.query} (rows ${t.rows})`, 'server time median': t.medianMs, p90: null, p99: null, max: t.maxMs });
      notes.push(
        `Runs page: ${result.runs} runs and ${result.events} events seeded in ${result.seedSeconds} s; server time is EXPLAIN ANALYZE planning + execution of the Studio's search statement (lib/studio/reads/run-search.ts), median of 5 after a warm-up (p90/p99 not taken: 5 samples).`,
      );
      const first = result.timings.find((t) => t.query === 'first page');
      const worst = [...result.timings].sort((a, b) => b.medianMs - a.medianMs)[0];
      if (first) {
        goals.push({
          goal: `runs page under 100 ms server time at 100,000 runs`,
          measured: `${result.runs} runs: first page ${first.medianMs} ms; slowest case "${worst?.query}" ${worst?.medianMs} ms`,
          met: result.runs >= 100_000 ? result.timings.every((t) => t.medianMs < 100) : null,
          ...(result.runs < 100_000 ? { note: `quick mode seeds ${result.runs} runs` } : {}),
        });
      }
    } finally {
      await admin.end({ timeout: 5 });
    }
  }
  notes.push(
    `Run page: a ${LONG_EVENTS}-event run seeded in the bench database; getRunView is what the run page's server component calls. Floor: one SELECT of all the run's rows. In-process timing (no HTTP, no React render).`,
    'Browser responsiveness on a long run (virtualised timeline) is covered by e2e/studio/long-run.spec.ts in a real Chromium, not re-tested here.',
  );
  return { id: '5', title: `The Studio at scale (${runs.toLocaleString('en')} runs)`, rows, goals, notes };
}
