/**
 * The Studio's runs-page queries at scale: server time (EXPLAIN ANALYZE: planning + execution, median
 * of 5 after one warm-up) of the first page, a page 50 000 runs deep, the status and agent filters,
 * a run-id prefix search, a tool-name search (common and rare) and an idempotency-key search, over
 * 100 000 runs and 2 000 000 events seeded with INSERT … SELECT generate_series.
 *
 * It never touches the database it is given: it creates a throwaway database beside it
 * (`gnl_scale_<random>`), migrates it with GNL's migrations, seeds, measures and drops it.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/studio-queries.ts
 *   (STUDIO_BENCH_RUNS=100000 by default; 20 events per run; STUDIO_BENCH_KEEP=1 keeps the database,
 *   STUDIO_BENCH_REUSE=<its name> measures it again without seeding)
 *
 * Other benchmarks call measureStudioQueries(sql) with a postgres.js client of their own.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { PostgresStorage } from '../lib/durable/storage';
import { type RunSearch, runSearchStatement, toolEventCountStatement } from '../lib/studio/reads/run-search';
import { DATABASE_URL, printTable, round, writeResults } from './stats';

export interface StudioQueryTiming {
  query: string;
  /** Rows the page returned (limit + 1 when there is a next page). */
  rows: number;
  medianMs: number;
  maxMs: number;
}

export interface StudioQueryResults {
  runs: number;
  events: number;
  seedSeconds: number;
  timings: StudioQueryTiming[];
}

const EVENTS_PER_RUN = 20;
const REPEAT = 5;

/** Seeds a throwaway database beside the one `sql` is connected to, measures the runs page's queries, drops it. */
export async function measureStudioQueries(
  sql: postgres.Sql,
  options: {
    runs?: number /** Leave the database for a look with psql (its name is printed). */;
    keep?: boolean /** A database this script seeded and kept earlier with the same `runs`: measured again, not seeded or dropped. */;
    reuse?: string;
  } = {},
): Promise<StudioQueryResults> {
  const runs = options.runs ?? 100_000;
  const reuse = options.reuse;
  const database = reuse ?? `gnl_scale_${randomBytes(6).toString('hex')}`;
  if (!reuse) await sql.unsafe(`create database ${database}`);
  const url = connectionString(sql, database);
  const storage = new PostgresStorage({ connectionString: url, max: 2 });
  // As the Studio runs them (run-search.ts searchRuns): no parallel workers, no JIT.
  const client = postgres(url, {
    max: 1,
    onnotice: () => {},
    connection: { max_parallel_workers_per_gather: '0', jit: 'off' } as unknown as postgres.Options<never>['connection'],
  });
  try {
    await storage.database(); // migrations, 0006 included
    const started = performance.now();
    if (!reuse) await seed(client, runs);
    const seedSeconds = round((performance.now() - started) / 1000, 1);
    const [deep] = await client.unsafe<{ created_at: string; run_id: string }[]>(
      'select created_at::text as created_at, run_id from gnl.runs order by created_at desc, run_id desc offset $1 limit 1',
      [Math.floor(runs / 2)],
    );
    const [keyed] = await client.unsafe<{ key: string }[]>(
      `select payload->>'idempotencyKey' as key from gnl.run_events where run_id = $1 and type = 'tool-call-start' limit 1`,
      [runId(Math.floor(runs / 3))],
    );
    const cases: [string, RunSearch][] = [
      ['first page', { limit: 50 }],
      [`page ${Math.floor(runs / 2)} runs deep (cursor)`, { limit: 50, cursor: deep ? { createdAt: deep.created_at, runId: deep.run_id } : undefined }],
      ['status = blocked', { status: 'blocked', limit: 50 }],
      ['agent = ops (2%)', { agent: 'ops', limit: 50 }],
      ['status = blocked and agent = ops', { status: 'blocked', agent: 'ops', limit: 50 }],
      ['run-id prefix "run_ab" (1/256)', { q: 'run_ab', limit: 50 }],
      ['run-id prefix "run_abc1" (rare)', { q: 'run_abc1', limit: 50 }],
      ['tool issueRefund (1/3 of runs)', { q: 'issueRefund', limit: 50 }],
      ['tool rareAudit (1/1000 of runs)', { q: 'rareAudit', limit: 50 }],
      ['idempotency key (one run)', { q: keyed?.key ?? 'none', limit: 50 }],
      ['no match', { q: 'no-such-thing', limit: 50 }],
    ];
    const dialect = new PgDialect();
    const timings: StudioQueryTiming[] = [];
    for (const [name, search] of cases) {
      // A search is two statements: how common the word is as a tool name, then the page.
      const statements = search.q ? [toolEventCountStatement(search.q)] : [];
      const toolEvents = search.q ? ((await client.unsafe<{ n: number }[]>(...queryOf(dialect, toolEventCountStatement(search.q))))[0]?.n ?? 0) : 0;
      statements.push(runSearchStatement(search, toolEvents));
      timings.push(await timeQuery(client, dialect, name, statements));
    }
    return { runs, events: runs * EVENTS_PER_RUN, seedSeconds, timings };
  } finally {
    await client.end({ timeout: 5 });
    await storage.close();
    if (options.keep || reuse) console.log(`kept database ${database}`);
    else await sql.unsafe(`drop database if exists ${database} with (force)`);
  }
}

function queryOf(dialect: PgDialect, statement: SQL): [string, postgres.ParameterOrJSON<never>[]] {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  return [text, params as postgres.ParameterOrJSON<never>[]];
}

/** Server time of the statements together (planning + execution of each), median of REPEAT after a warm-up. */
async function timeQuery(client: postgres.Sql, dialect: PgDialect, name: string, statements: SQL[]): Promise<StudioQueryTiming> {
  const samples: number[] = [];
  let rows = 0;
  for (let i = 0; i <= REPEAT; i++) {
    let total = 0;
    for (const statement of statements) {
      const [text, params] = queryOf(dialect, statement);
      const [row] = await client.unsafe<{ 'QUERY PLAN': [{ 'Planning Time': number; 'Execution Time': number; Plan: { 'Actual Rows': number } }] }[]>(
        `explain (analyze, format json) ${text}`,
        params,
      );
      const plan = row?.['QUERY PLAN'][0];
      if (!plan) throw new Error(`EXPLAIN gave no plan for ${name}`);
      rows = plan.Plan['Actual Rows'];
      total += plan['Planning Time'] + plan['Execution Time'];
    }
    if (i > 0) samples.push(total);
  }
  samples.sort((a, b) => a - b);
  return { query: name, rows, medianMs: round(samples[Math.floor(samples.length / 2)] as number), maxMs: round(samples[samples.length - 1] as number) };
}

/** The seeded run i: `'run_' || md5(i::text)`, as in SQL. */
const runId = (i: number) => `run_${createHash('md5').update(String(i)).digest('hex')}`;

/** 100 000 runs of 20 events: run-start, then (model-step, tool-call-start, tool-call-end) × 6, and one more model step. */
async function seed(client: postgres.Sql, runs: number): Promise<void> {
  await client.unsafe(
    `insert into gnl.runs (run_id, status, last_seq, step_count, input, pending, created_at, updated_at)
     select 'run_' || md5(i::text),
       case when i % 100 < 80 then 'completed' when i % 100 < 90 then 'running' when i % 100 < 94 then 'waiting-approval'
            when i % 100 < 97 then 'blocked' when i % 100 < 99 then 'failed' else 'canceled' end,
       ${EVENTS_PER_RUN}, 7,
       jsonb_build_object('agent', case when abs(hashtext(i::text)) % 100 < 50 then 'support' when abs(hashtext(i::text)) % 100 < 75 then 'billing'
            when abs(hashtext(i::text)) % 100 < 90 then 'triage' when abs(hashtext(i::text)) % 100 < 98 then 'research' else 'ops' end,
         'prompt', 'Customer asks about order o_' || i, 'modelId', 'bench-1', 'provider', 'bench',
         'toolNames', jsonb_build_array('lookupOrder', 'issueRefund', 'searchDocs', 'sendEmail', 'getCustomer', 'rareAudit')),
       '[]'::jsonb, timestamptz '2026-01-01' + i * interval '10 seconds', timestamptz '2026-01-01' + i * interval '10 seconds' + interval '1 minute'
     from generate_series(1, $1::int) i`,
    [runs],
  );
  // Events in slices, so one statement never holds millions of rows in memory.
  const slice = 10_000;
  for (let from = 1; from <= runs; from += slice) {
    await client.unsafe(
      `insert into gnl.run_events (run_id, seq, type, payload, created_at)
       select 'run_' || md5(i::text), s,
         case when s = 1 then 'run-start' when (s - 2) % 3 = 0 then 'model-step' when (s - 2) % 3 = 1 then 'tool-call-start' else 'tool-call-end' end,
         case
           when s = 1 then jsonb_build_object('input', jsonb_build_object('agent', 'support', 'prompt', 'Customer asks about order o_' || i))
           when (s - 2) % 3 = 0 then jsonb_build_object('step', c, 'provider', 'bench', 'modelId', 'bench-1', 'latencyMs', 800,
             'result', jsonb_build_object('content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', repeat('x', 300))),
               'finishReason', jsonb_build_object('unified', 'tool-calls'),
               'usage', jsonb_build_object('inputTokens', jsonb_build_object('total', 1200 + c), 'outputTokens', jsonb_build_object('total', 80))))
           else jsonb_build_object('toolCallId', 'call_' || c, 'toolName', tool, 'input', jsonb_build_object('orderId', 'o_' || i),
             'idempotencyKey', 'gnl1a_' || md5(i || ':' || c), 'attempt', 1)
             || case when (s - 2) % 3 = 1 then jsonb_build_object('sideEffect', true)
                else jsonb_build_object('output', jsonb_build_object('ok', true), 'durationMs', 120, 'source', 'executed') end
         end,
         timestamptz '2026-01-01' + i * interval '10 seconds' + s * interval '1 second'
       from generate_series($1::int, $2::int) i, generate_series(1, ${EVENTS_PER_RUN}) s,
         lateral (select (s - 2) / 3 as c) call,
         lateral (select case when i % 3 = 0 and call.c = 0 then 'issueRefund' when i % 1000 = 0 and call.c = 1 then 'rareAudit'
                              else (array['lookupOrder', 'searchDocs', 'sendEmail', 'getCustomer'])[1 + (i + call.c) % 4] end as tool) t`,
      [from, Math.min(runs, from + slice - 1)],
    );
  }
  // The running runs are queued; half of their leases lapsed an hour ago.
  await client.unsafe(
    `insert into gnl.run_queue (run_id, agent, runnable, lease_owner, last_lease_owner, lease_expires_at, heartbeat_at, claimed_at, claims)
     select run_id, 'support', true, 'bench:1:' || left(run_id, 8), 'bench:1:' || left(run_id, 8),
       now() + case when hashtext(run_id) % 2 = 0 then interval '-1 hour' else interval '1 hour' end, now() - interval '1 hour', now() - interval '2 hours', 1
     from gnl.runs where status = 'running'`,
  );
  await client.unsafe('analyze gnl.runs; analyze gnl.run_events; analyze gnl.run_queue');
}

function connectionString(sql: postgres.Sql, database: string): string {
  const o = sql.options as unknown as { host: string[]; port: number[]; user: string; pass: string | null };
  const auth = `${encodeURIComponent(o.user)}${o.pass ? `:${encodeURIComponent(o.pass)}` : ''}`;
  return `postgres://${auth}@${o.host[0]}:${o.port[0]}/${database}`;
}

if (process.argv[1] && import.meta.filename === path.resolve(process.argv[1])) {
  const sql = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const results = await measureStudioQueries(sql, {
      runs: Number(process.env.STUDIO_BENCH_RUNS ?? 100_000),
      keep: process.env.STUDIO_BENCH_KEEP === '1',
      ...(process.env.STUDIO_BENCH_REUSE ? { reuse: process.env.STUDIO_BENCH_REUSE } : {}),
    });
    printTable(
      `Studio runs page at ${results.runs} runs / ${results.events} events (seeded in ${results.seedSeconds} s): server time`,
      results.timings.map((t) => ({ ...t })),
    );
    console.log(`results: ${writeResults('studio-queries', results)}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
