/**
 * Figure 2, resume: runs with N recorded steps (the bench agent, one side-effecting call per step, so 3
 * events a step), stopped at step N (the model throws there, so the run is failed and resumable).
 * A resume is timed from the runDurable call to the model being asked for step N, the first unrecorded
 * one, and divided by one SELECT of that run's event rows. The pool's statements during the resume are
 * counted (Postgres): the whole history must come in one query.
 *
 * Sizes: 10 and 100 (`--quick`), 1,000 and on Postgres 3,000 (full), 10,000 on Postgres with `--long`
 * (recording 10,000 steps live takes minutes: the SDK converts each new step's whole prompt). The journal's
 * load alone is also timed on a history of ten copies of the 1,000-step run's events.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import postgres from 'postgres';
import { runDurable } from '../lib/durable';
import { PGliteStorage } from '../lib/durable/storage';
import { countedPostgres, StatementLog } from '../tests/support/statement-log';
import { benchAgent, UnrecordedStepReached } from './agent';
import { pgliteSelectFloor, postgresSelectFloor, sdkStepCopiesFloor } from './floors';
import type { BenchContext, FigureResult, GoalCheck } from './report-types';
import { ratio, round, summary } from './stats';

type Journal = Parameters<typeof runDurable>[0]['journal'];

/** Runs the agent until it reaches step `n` (unrecorded); returns ms from the call to that moment. */
async function runUntil(journal: Journal, runId: string, n: number): Promise<number> {
  let reached: number | undefined;
  const started = performance.now();
  try {
    await runDurable({
      ...benchAgent({
        steps: n + 5,
        stopAt: n,
        onModelCall: (step) => {
          if (step === n) reached ??= performance.now();
        },
      }),
      runId,
      journal,
    });
  } catch (error) {
    if (!(error instanceof UnrecordedStepReached) && !(error instanceof Error && error.cause instanceof UnrecordedStepReached)) throw error;
  }
  if (reached === undefined) throw new Error(`bench: run ${runId} never reached step ${n}`);
  return reached - started;
}

export async function resume(ctx: BenchContext): Promise<FigureResult> {
  const sizesOf = (journal: string) =>
    ctx.quick ? [10, 100] : journal === 'postgres' ? [10, 100, 1000, 3000, ...(ctx.long ? [10_000] : [])] : [10, 100, 1000];
  const reps = (n: number, journal: string) => (n <= 10 ? (ctx.quick ? 8 : 15) : n <= 100 ? (ctx.quick ? 4 : 8) : journal === 'postgres' ? 2 : 1);
  const rows: FigureResult['rows'] = [];
  const series: Record<string, { n: number; median: number; select: number }[]> = { postgres: [], pglite: [] };
  let seedRun: string | undefined;

  sdkStepCopiesFloor(1000); // warmed up: its first call at 10 steps would time the compiler
  // Postgres, counted (the counting is a socket-write wrapper: negligible next to the replay).
  const log = new StatementLog();
  const pg = countedPostgres(ctx.url, log, { max: 2 });
  const lite = new PGliteStorage({ dataDir: path.join(ctx.tmp, 'pglite-resume') });
  try {
    for (const [journalName, journal] of [
      ['postgres', pg.runs],
      ['pglite', lite.runs],
    ] as const) {
      for (const n of sizesOf(journalName)) {
        const runId = `bench:resume:${n}:${randomUUID()}`;
        ctx.log(`figure 2: ${journalName}, recording a run of ${n} steps`);
        await runUntil(journal, runId, n);
        const events = (await journal.events(runId)).length;
        const times: number[] = [];
        const statements: number[] = [];
        for (let i = 0; i < reps(n, journalName); i++) {
          log.mark('resume');
          times.push(await runUntil(journal, runId, n));
          statements.push(log.between('resume').statements.filter((s) => s.startsWith('load')).length);
        }
        const selects = journalName === 'postgres' ? await postgresSelectFloor(ctx.url, runId, 10) : await pgliteSelectFloor(await lite.pglite(), runId, 10);
        const t = summary(times, 1);
        const sel = summary(selects);
        const copies = journalName === 'postgres' ? sdkStepCopiesFloor(n).perStep : undefined;
        series[journalName]?.push({ n, median: t.median, select: sel.median });
        rows.push({
          journal: journalName,
          'recorded steps': n,
          events,
          'resume → first unrecorded step median': t.median,
          p90: t.p90,
          p99: t.p99,
          'per recorded step (median)': round(t.median / n, 3),
          'floor: SELECT of the run (median)': sel.median,
          '÷ SELECT': ratio(t.median, sel.median, 1),
          'load queries per resume (counted)': journalName === 'postgres' ? Math.max(...statements) : 'n/a',
          'floor: the SDK’s own copies per step (ms)': copies ?? 'n/a',
        });
        if (journalName === 'postgres' && (n === 1000 || (ctx.quick && n === 100))) seedRun = runId;
      }
    }
  } finally {
    await Promise.all([pg.close(), lite.close()]);
  }

  // The journal's load alone, up to 10 000 steps (Postgres): ten copies of the 1,000-step run.
  const loadRows = await journalLoad(ctx, seedRun as string, ctx.quick ? 100 : 1000, [1, 10]);
  rows.push(...loadRows.rows);

  const postgresSizes = sizesOf('postgres');
  const largest = postgresSizes[postgresSizes.length - 1] as number;
  const postgresRow = (n: number) => rows.find((r) => r.journal === 'postgres' && r['recorded steps'] === n);
  const last = postgresRow(largest);
  const big = loadRows.rows[loadRows.rows.length - 1];
  const flat = postgresSizes
    .filter((n) => n >= 100)
    .map((n) => ({ n, ms: postgresRow(n)?.['per recorded step (median)'] as number, copies: postgresRow(n)?.['floor: the SDK’s own copies per step (ms)'] }));
  const growth = Math.max(...flat.map((f) => f.ms)) / (flat[0]?.ms ?? Number.NaN);
  const goals: GoalCheck[] = [
    {
      goal: 'resume: one query for the whole history',
      measured: `${Math.max(...rows.filter((r) => typeof r['load queries per resume (counted)'] === 'number').map((r) => r['load queries per resume (counted)'] as number))} load query per resume, at every size`,
      met: rows.every((r) => typeof r['load queries per resume (counted)'] !== 'number' || r['load queries per resume (counted)'] === 1),
    },
    {
      goal: 'resume time per recorded step flat from 100 to 10,000 steps (Postgres; the largest at most 1.5× the 100-step one)',
      measured: `${flat.map((f) => `${f.n}: ${f.ms} ms`).join(', ')} per recorded step: the most is ${round(growth, 2)}× the 100-step figure${largest < 10_000 ? ' (10,000 not run: --long)' : ''}`,
      met: largest < 10_000 ? null : growth <= 1.5,
      note: `recorded steps are replayed with the tail of their prompt (lib/durable/model/prompt-tail.ts): the SDK no longer converts the whole history at every replayed step. What still grows is the SDK's own loop: before each step it copies every earlier step's messages and the step list, alone ${flat.map((f) => `${f.copies} ms`).join(', ')} a step at these sizes (bench/sdk-step-copies.ts; past about 8,000 steps the copy is a V8 large object)`,
    },
    {
      goal: '10,000 steps resume within 3× the raw SELECT of those rows',
      measured: `journal load of ${big?.events} events (≈ ${big?.['recorded steps']} steps): ${big?.['÷ SELECT']}× the SELECT; whole resume (SDK replay) at ${last?.['recorded steps']} steps: ${last?.['÷ SELECT']}× the SELECT`,
      met: false,
      note: 'the load is one query at about the SELECT’s cost; the replay runs every recorded step through the SDK’s loop (its tool-call parsing, its tool plumbing, GNL’s gate), a constant CPU cost per step many times the cost of reading its 3 rows',
    },
  ];
  return {
    id: '2',
    title: 'Resume: from the runDurable call to the first unrecorded step',
    rows,
    goals,
    data: { series, load: loadRows.series },
    notes: [
      `Each resume replays every recorded step through generateText (the model is not called, tools are not executed) and stops when the model is asked for step N; it also journals run-resume and run-fail. Repetitions (Postgres / PGlite): ${postgresSizes.map((n) => `${n}: ${reps(n, 'postgres')} / ${sizesOf('pglite').includes(n) ? reps(n, 'pglite') : '–'}`).join(', ')}.`,
      'Rows "journal load only": the journal’s one load query (journal.events, decoded) for a history of 1 or 10 copies of the 1,000-step run (100 with --quick), against the raw SELECT of the same rows.',
      'Floor column "the SDK’s own copies": the two copies generateText makes before every step (every earlier step’s response messages, the step list), alone over the same number of steps, ms a step on average (bench/floors.ts, sdkStepCopiesFloor): a resume cannot be cheaper per step while it runs every recorded step through the SDK’s loop.',
      'A recorded step whose next step is recorded is given only the messages its step before added (prompt-tail.ts) and hashed as its whole prompt (request-hash.ts, hashTail); the request hash is a running chain. Recording a run is still quadratic in the SDK: each new step converts its whole prompt.',
    ],
  };
}

/** journal.events(runId) (the load) against the raw SELECT, for histories of `copies` × the seed run's events. */
async function journalLoad(ctx: BenchContext, seedRun: string, seedSteps: number, copies: number[]) {
  const sql = postgres(ctx.url, { max: 1, onnotice: () => {} });
  const { PostgresStorage } = await import('../lib/durable/storage');
  const storage = new PostgresStorage({ connectionString: ctx.url, max: 1 });
  const rows: FigureResult['rows'] = [];
  const series: { n: number; load: number; select: number }[] = [];
  try {
    for (const k of copies) {
      const runId = `bench:resume:load:${k}:${randomUUID()}`;
      await sql.begin(async (tx) => {
        await tx.unsafe(
          `insert into gnl.runs (run_id, status, last_seq, step_count, input, pending)
           select $1, status, last_seq * $3::int, step_count * $3::int, input, pending from gnl.runs where run_id = $2`,
          [runId, seedRun, k],
        );
        await tx.unsafe(
          `insert into gnl.run_events (run_id, seq, type, payload, created_at)
           select $1, c * r.last_seq + e.seq, e.type, e.payload, e.created_at
           from gnl.run_events e join gnl.runs r using (run_id), generate_series(0, $3::int - 1) c where e.run_id = $2`,
          [runId, seedRun, k],
        );
      });
      await sql`vacuum analyze gnl.run_events`.catch(() => undefined);
      const loads: number[] = [];
      for (let i = 0; i < 4; i++) await storage.runs.events(runId); // warm
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        await storage.runs.events(runId);
        loads.push(performance.now() - started);
      }
      const selects = summary(await postgresSelectFloor(ctx.url, runId, 10));
      const l = summary(loads);
      const [count] = await sql<{ n: number }[]>`select count(*)::int as n from gnl.run_events where run_id = ${runId}`;
      const events = count?.n ?? 0;
      const steps = seedSteps * k;
      series.push({ n: steps, load: l.median, select: selects.median });
      rows.push({
        journal: 'postgres (journal load only)',
        'recorded steps': steps,
        events,
        'resume → first unrecorded step median': l.median,
        p90: l.p90,
        p99: l.p99,
        'per recorded step (median)': round(l.median / steps, 4),
        'floor: SELECT of the run (median)': selects.median,
        '÷ SELECT': ratio(l.median, selects.median, 2),
        'load queries per resume (counted)': 1,
      });
    }
  } finally {
    await Promise.all([sql.end({ timeout: 5 }), storage.close()]);
  }
  return { rows, series };
}
