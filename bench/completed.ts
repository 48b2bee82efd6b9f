/**
 * Figure 2b, a completed run answered again (issue 17): the bench agent's run of 20 side-effecting steps
 * and its answer (21 model steps) is completed once, then runDurable is called again with its runId, timed
 * from the call to the result, on the new path (the answer rebuilt from its run-complete record, no loop)
 * and the old one (replayDurable: the SDK loop through the recording model), alternately, in the same
 * process and minute, so the ratio holds on a loaded machine. The pool's statements per answer are counted.
 *
 *   npm run bench -- --only 2b     (or tsx bench/completed.ts: this figure alone, printed)
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { runDurable } from '../lib/durable';
import { encodeJson } from '../lib/durable/journal';
import { replayDurable } from '../lib/durable/run';
import { PGliteStorage } from '../lib/durable/storage';
import { countedPostgres, StatementLog } from '../tests/support/statement-log';
import { benchAgent, runJournaled } from './agent';
import { pgliteSelectFloor, postgresSelectFloor } from './floors';
import type { BenchContext, FigureResult } from './report-types';
import { ratio, summary } from './stats';

type Journal = Parameters<typeof runDurable>[0]['journal'];

const STEPS = 20;

async function timed(journal: Journal, runId: string, path: 'record' | 'replay'): Promise<number> {
  const { executed: _executed, ...agent } = benchAgent({ steps: STEPS });
  const call = path === 'record' ? runDurable : replayDurable;
  const started = performance.now();
  const result = await call({ ...agent, runId, journal });
  const ms = performance.now() - started;
  if (result.status !== 'completed' || result.steps.length !== STEPS + 1) throw new Error(`bench: ${runId} answered ${result.status}`);
  return ms;
}

/**
 * What the read before the hold costs a call that is not on a completed run: a new run of one step, started
 * by runDurable (which reads first) and by replayDurable (which does not), alternately.
 */
async function newRunCost(journal: Journal, journalName: string, reps: number): Promise<FigureResult['rows']> {
  const times = { record: [] as number[], replay: [] as number[] };
  for (let i = 0; i < reps; i++) {
    for (const way of i % 2 === 0 ? (['record', 'replay'] as const) : (['replay', 'record'] as const)) {
      const { executed: _executed, ...agent } = benchAgent({ steps: 0 });
      const call = way === 'record' ? runDurable : replayDurable;
      const started = performance.now();
      await call({ ...agent, runId: `bench:completed:new:${randomUUID()}`, journal });
      times[way].push(performance.now() - started);
    }
  }
  const withRead = summary(times.record);
  const withoutRead = summary(times.replay);
  return [
    { journal: journalName, path: 'a new run of 1 step: runDurable (reads first)', 'answer median': withRead.median, p90: withRead.p90, p99: withRead.p99 },
    {
      journal: journalName,
      path: 'a new run of 1 step: replayDurable (no read first)',
      'answer median': withoutRead.median,
      p90: withoutRead.p90,
      p99: withoutRead.p99,
    },
  ];
}

export async function completedAnswer(ctx: BenchContext): Promise<FigureResult> {
  const reps = ctx.quick ? 15 : 40;
  const rows: FigureResult['rows'] = [];
  const log = new StatementLog();
  const pg = countedPostgres(ctx.url, log, { max: 2 });
  const lite = new PGliteStorage({ dataDir: path.join(ctx.tmp, 'pglite-completed') });
  try {
    for (const [journalName, journal] of [
      ['postgres', pg.runs],
      ['pglite', lite.runs],
    ] as const) {
      const runId = `bench:completed:${randomUUID()}`;
      ctx.log(`figure 2b: ${journalName}, completing a run of ${STEPS} steps`);
      await runJournaled(journal, runId, STEPS);
      const recorded = await journal.events(runId);
      const events = recorded.length;
      const bytes = (event: unknown) => JSON.stringify(encodeJson(event)).length;
      const answerBytes = recorded.filter((e) => e.type === 'run-complete').reduce((n, e) => n + bytes(e), 0);
      const journalBytes = recorded.reduce((n, e) => n + bytes(e), 0);
      for (let i = 0; i < 3; i++) {
        await timed(journal, runId, 'record');
        await timed(journal, runId, 'replay');
      }
      const times = { record: [] as number[], replay: [] as number[] };
      const statements = { record: 0, replay: 0 };
      for (let i = 0; i < reps; i++) {
        for (const way of i % 2 === 0 ? (['record', 'replay'] as const) : (['replay', 'record'] as const)) {
          log.mark(way);
          times[way].push(await timed(journal, runId, way));
          statements[way] = Math.max(statements[way], log.between(way).statements.length);
        }
      }
      const selects = summary(
        journalName === 'postgres' ? await postgresSelectFloor(ctx.url, runId, 10) : await pgliteSelectFloor(await lite.pglite(), runId, 10),
      );
      const record = summary(times.record);
      const replay = summary(times.replay);
      for (const [way, t] of [
        ['from its record (new)', record],
        ['SDK replay (old)', replay],
      ] as const) {
        rows.push({
          journal: journalName,
          path: way,
          events,
          'answer median': t.median,
          p90: t.p90,
          p99: t.p99,
          'floor: SELECT of the run (median)': selects.median,
          '÷ SELECT': ratio(t.median, selects.median, 1),
          'statements per answer (counted)': journalName === 'postgres' ? statements[way === 'SDK replay (old)' ? 'replay' : 'record'] : 'n/a',
        });
      }
      rows.push({ journal: journalName, path: 'old ÷ new (medians)', events, 'answer median': ratio(replay.median, record.median, 1) });
      rows.push(...(await newRunCost(journal, journalName, reps)));
      rows.push({ journal: journalName, path: `run-complete with its answer: ${answerBytes} of the run's ${journalBytes} bytes of JSON`, events });
    }
  } finally {
    await Promise.all([pg.close(), lite.close()]);
  }
  return {
    id: '2b',
    title: `A completed run answered again (${STEPS} side-effecting steps and the answer): from its record vs the SDK replay`,
    rows,
    notes: [
      `${reps} answers per path and journal, the two paths alternating (3 of each first, untimed). Timed from the runDurable call to its result.`,
      'New path: one load of the run (no hold: completed-answer.ts), the result rebuilt from run-complete’s recorded answer (completed-result.ts). Old path (replayDurable): hold, one load, then every step through generateText and the recording model (prompt converted and hashed each step), release.',
      'Statements per answer: those on the pool (the hold’s are on its side session and not counted here).',
    ],
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { mkdtempSync } = await import('node:fs');
  const os = await import('node:os');
  const { DATABASE_URL, databaseUrl, printTable } = await import('./stats');
  const postgres = (await import('postgres')).default;
  const admin = postgres(databaseUrl(DATABASE_URL, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe('drop database if exists gnl_bench_completed with (force)');
  await admin.unsafe('create database gnl_bench_completed');
  await admin.end({ timeout: 5 });
  const started = performance.now();
  const ctx: BenchContext = {
    quick: process.argv.includes('--quick'),
    url: databaseUrl(DATABASE_URL, 'gnl_bench_completed'),
    tmp: mkdtempSync(path.join(os.tmpdir(), 'gnl-bench-completed-')),
    log: (message) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`),
  };
  const figure = await completedAnswer(ctx);
  printTable(figure.title, figure.rows);
  for (const note of figure.notes) console.log(`- ${note}`);
}
