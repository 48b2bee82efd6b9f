/**
 * Figure 1, step overhead: the 20-step agent (zero-latency model, one side-effecting call per step)
 * with plain generateText and with runDurable on Postgres and on PGlite, interleaved. Overhead per step
 * = (durable run − median plain run) / steps, per sample. The statements, round trips and commits of
 * each step are counted on the real drivers (tests/support/statement-log.ts) in a separate run.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { PGliteStorage, PostgresStorage } from '../lib/durable/storage';
import { countedPostgres, countPGlite, StatementLog } from '../tests/support/statement-log';
import { runJournaled, runPlain } from './agent';
import { pgliteInsertFloor, postgresInsertFloor } from './floors';
import type { BenchContext, FigureResult, GoalCheck } from './report-types';
import { ratio, round, summary } from './stats';

const STEPS = 20;
const WRITE = /^\s*(with r as|insert|update|delete)/i;

interface Counts {
  statements: number;
  roundTrips: number;
  commits: number;
}

/** Counts per step (model call + its side-effecting call) and per part, from one run on a warm connection. */
function stepCounts(log: StatementLog): { perStep: Counts; modelAndStart: Counts; end: Counts } {
  const add = (a: Counts, b: Counts): Counts => ({
    statements: a.statements + b.statements,
    roundTrips: a.roundTrips + b.roundTrips,
    commits: a.commits + b.commits,
  });
  const count = (mark: string): Counts => {
    const part = log.between(mark);
    const texts = statementsAfter(log, mark);
    return { statements: part.statements.length, roundTrips: part.roundTrips, commits: texts.filter((t) => WRITE.test(t)).length };
  };
  let modelAndStart: Counts = { statements: 0, roundTrips: 0, commits: 0 };
  let end: Counts = { statements: 0, roundTrips: 0, commits: 0 };
  for (let step = 0; step < STEPS; step++) {
    modelAndStart = add(modelAndStart, count(`model ${step}`));
    end = add(end, count(`execute ${step}`));
  }
  const per = (c: Counts): Counts => ({
    statements: round(c.statements / STEPS, 2),
    roundTrips: round(c.roundTrips / STEPS, 2),
    commits: round(c.commits / STEPS, 2),
  });
  return { perStep: per(add(modelAndStart, end)), modelAndStart: per(modelAndStart), end: per(end) };
}

/** The raw texts of the pool's statements between mark `from` and the next mark. */
function statementsAfter(log: StatementLog, from: string): string[] {
  const start = log.entries.findLastIndex((e) => e.kind === 'mark' && e.label === from);
  const next = log.entries.findIndex((e, i) => i > start && e.kind === 'mark');
  return log.entries.slice(start + 1, next < 0 ? undefined : next).flatMap((e) => (e.kind === 'statement' && e.role === 'gnl' ? [e.text] : []));
}

const hooks = (log: StatementLog) => ({
  onModelCall: (step: number) => log.mark(`model ${step}`),
  onExecute: (step: number) => log.mark(`execute ${step}`),
});

async function countPostgres(url: string) {
  const log = new StatementLog();
  const storage = countedPostgres(url, log, { max: 1 });
  try {
    await runJournaled(storage.runs, `bench:count:${randomUUID()}`, STEPS); // prepares every statement on the connection
    log.entries.length = 0;
    log.mark('invoke');
    await runJournaled(storage.runs, `bench:count:${randomUUID()}`, STEPS, hooks(log));
    log.mark('returned');
    await storage.notificationsSent();
    const all = log.entries.flatMap((e) => (e.kind === 'statement' ? [e] : []));
    const notifies = all.filter((e) => e.role === 'gnl-holds' && /pg_notify/.test(e.text)).length;
    const holdStatements = all.filter((e) => e.role === 'gnl-holds' && /advisory/.test(e.text)).length;
    const poolWrites = all.filter((e) => e.role === 'gnl' && WRITE.test(e.text)).length;
    return { ...stepCounts(log), notifies, holdStatements, poolWrites, poolStatements: all.filter((e) => e.role === 'gnl').length };
  } finally {
    await storage.close();
  }
}

async function countPGliteRun(dataDir: string) {
  const storage = new PGliteStorage({ dataDir });
  try {
    const log = new StatementLog();
    await runJournaled(storage.runs, `bench:count:${randomUUID()}`, STEPS);
    await countPGlite(storage, log);
    log.mark('invoke');
    await runJournaled(storage.runs, `bench:count:${randomUUID()}`, STEPS, hooks(log));
    log.mark('returned');
    const all = log.entries.flatMap((e) => (e.kind === 'statement' ? [e] : []));
    return { ...stepCounts(log), poolStatements: all.length, poolWrites: all.filter((e) => WRITE.test(e.text)).length };
  } finally {
    await storage.close();
  }
}

export async function stepOverhead(ctx: BenchContext): Promise<FigureResult> {
  const reps = ctx.quick ? 8 : 30;
  const floorN = ctx.quick ? 300 : 800;
  const pg = new PostgresStorage({ connectionString: ctx.url });
  const lite = new PGliteStorage({ dataDir: path.join(ctx.tmp, 'pglite-overhead') });
  const samples = { plain: [] as number[], postgres: [] as number[], pglite: [] as number[] };
  let floors: { postgres: number[]; pglite: number[] };
  try {
    for (let i = 0; i < 3; i++) {
      await runPlain(STEPS);
      await runJournaled(pg.runs, `bench:overhead:${randomUUID()}`, STEPS);
      await runJournaled(lite.runs, `bench:overhead:${randomUUID()}`, STEPS);
    }
    ctx.log(`figure 1: ${reps} runs of ${STEPS} steps each way, interleaved`);
    const time = async (list: number[], run: () => Promise<void>) => {
      const started = performance.now();
      await run();
      list.push(performance.now() - started);
    };
    for (let i = 0; i < reps; i++) {
      await time(samples.plain, () => runPlain(STEPS));
      await time(samples.postgres, () => runJournaled(pg.runs, `bench:overhead:${randomUUID()}`, STEPS));
      await time(samples.pglite, () => runJournaled(lite.runs, `bench:overhead:${randomUUID()}`, STEPS));
    }
    floors = { postgres: await postgresInsertFloor(ctx.url, floorN), pglite: await pgliteInsertFloor(await lite.pglite(), floorN) };
  } finally {
    await Promise.all([pg.close(), lite.close()]);
  }
  ctx.log('figure 1: counting statements on the real drivers');
  const counts = { postgres: await countPostgres(ctx.url), pglite: await countPGliteRun(path.join(ctx.tmp, 'pglite-count')) };

  const plainMedian = summary(samples.plain).median;
  const rows: FigureResult['rows'] = [];
  const goals: GoalCheck[] = [];
  const data: Record<string, unknown> = {};
  for (const journal of ['postgres', 'pglite'] as const) {
    const perStep = samples[journal].map((ms) => (ms - plainMedian) / STEPS);
    const s = summary(perStep);
    const floor = summary(floors[journal]);
    const c = counts[journal].perStep;
    const perCommit = s.median / c.commits;
    rows.push({
      journal,
      'plain run (median)': round(plainMedian, 2),
      'durable run (median)': summary(samples[journal]).median,
      'overhead/step median': s.median,
      'overhead/step p90': s.p90,
      'overhead/step p99': s.p99,
      'floor: 1-row INSERT commit (median)': floor.median,
      'floor p90': floor.p90,
      'floor p99': floor.p99,
      'statements/step': c.statements,
      'round trips/step': c.roundTrips,
      'commits/step': c.commits,
      'model step + start: statements': counts[journal].modelAndStart.statements,
      'side effect end: statements': counts[journal].end.statements,
      'overhead/commit median': round(perCommit),
      'overhead/commit ÷ floor': ratio(perCommit, floor.median),
      'overhead/step ÷ (floor × commits)': ratio(s.median, floor.median * c.commits),
    });
    data[journal] = { overheadPerStep: s, floor, counts: counts[journal] };
    if (journal === 'postgres') {
      goals.push({
        goal: 'cost per journal append ≤ 1.5× the single-commit floor on Postgres',
        measured: `${round(perCommit, 3)} ms per commit = ${ratio(perCommit, floor.median)}× the floor (${floor.median} ms); step overhead ${s.median} ms for ${c.commits} commits`,
        met: ratio(perCommit, floor.median) <= 1.5,
      });
      goals.push({
        goal: 'one round trip and at most one commit per journaled event (1 per model step, 2 per side-effecting call)',
        measured: `${counts.postgres.modelAndStart.statements} statement(s) (model step + the call's start) and ${counts.postgres.end.statements} (its end) per step; ${c.roundTrips} round trips, ${c.commits} commits per step; NOTIFY after commit on the side session: ${counts.postgres.notifies} for ${counts.postgres.poolWrites} writes`,
        met: c.roundTrips <= 3 && c.commits <= 3,
      });
    }
  }
  return {
    id: '1',
    title: `Step overhead (${STEPS}-step agent, one side-effecting call per step; zero-latency model)`,
    rows,
    goals,
    data,
    notes: [
      `Interleaved: ${reps} runs each of plain generateText, runDurable on Postgres, runDurable on PGlite (a fresh run each). Overhead per step = (durable run − median plain run) / ${STEPS}; it includes the run's fixed costs (hold, create, load, complete, release) spread over the steps.`,
      `A step here is one model call and its side-effecting tool call: 3 journal events (model-step, tool-call-start, tool-call-end). Counted on a warm connection: statements and socket writes on the pool (Postgres) or calls into the engine (PGlite); a commit is a statement that writes (each is its own transaction).`,
      `Run totals (counted run, Postgres): ${counts.postgres.poolStatements} pool statements, ${counts.postgres.poolWrites} of them writes; side session: ${counts.postgres.holdStatements} hold statements and ${counts.postgres.notifies} coalesced NOTIFY statements (after commit, never awaited).`,
    ],
  };
}
