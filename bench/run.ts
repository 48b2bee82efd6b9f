/**
 * `npm run bench` (full, under 10 minutes on 2 cores) and `npm run bench -- --quick` (under 2 minutes):
 * figures 1–6 of issue 6, each with median/p90/p99 and as a ratio to a floor measured in the same run, and
 * figure 7 of issue 14 (what resumable streams cost the journal's commit rate, bench/stream-log.ts),
 * written to bench/results/<timestamp>.json and .md with the chart (SVG), which is also copied to
 * docs/images/bench-overhead-resume.svg. It never fails on a number; it fails only when something
 * could not run (and says what).
 *
 * Databases of its own: `gnl_bench` (dropped and created at the start) on the server of DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432), PGlite in a temporary folder.
 *
 *   npm run bench [-- --quick] [-- --only 1,2]      (figure 7 alone: npm run bench -- --only 7)
 *   npm run bench -- --only 2 --long                 (figure 2 with a 10,000-step resume: minutes to record)
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { chartSvg } from './chart';
import { writeReport } from './report';
import type { BenchContext, FigureResult } from './report-types';
import { completedAnswer } from './completed';
import { resume } from './resume';
import { DATABASE_URL, databaseUrl, round } from './stats';
import { stepOverhead } from './step-overhead';
import { throughput } from './throughput';
import { ormVsRaw } from './orm';
import { liveLatency } from './live-latency';
import { memory } from './memory';
import { studioScale } from './studio-scale';
import { streamLog } from './stream-log';

const DATABASE = 'gnl_bench';

async function recreateDatabase(serverUrl: string): Promise<string> {
  const admin = postgres(databaseUrl(serverUrl, 'postgres'), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists ${DATABASE} with (force)`);
    await admin.unsafe(`create database ${DATABASE}`);
    const [row] = await admin<{ version: string }[]>`select version()`;
    return row?.version.split(' on ')[0] ?? 'PostgreSQL';
  } finally {
    await admin.end({ timeout: 5 });
  }
}

const FIGURES: Record<string, (ctx: BenchContext) => Promise<FigureResult>> = {
  '1': stepOverhead,
  '1b': ormVsRaw,
  '2': resume,
  '2b': completedAnswer,
  '3': throughput,
  '4': liveLatency,
  '5': studioScale,
  '6': memory,
  '7': streamLog,
};

async function main() {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, long: { type: 'boolean', default: false }, only: { type: 'string' } },
    strict: true,
  });
  const quick = values.quick ?? false;
  const only = values.only?.split(',').map((s) => s.trim());
  const started = performance.now();
  const at = new Date();
  const loadStart = os.loadavg().map((l) => round(l, 2));
  const url = databaseUrl(DATABASE_URL, DATABASE);
  const postgresVersion = await recreateDatabase(DATABASE_URL);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'gnl-bench-'));
  const resultsDir = path.join(import.meta.dirname, 'results');
  mkdirSync(resultsDir, { recursive: true });
  const stamp = at.toISOString().replace(/[:.]/g, '-');
  const ctx: BenchContext = {
    quick,
    long: values.long ?? false,
    url,
    tmp,
    log: (message) => console.log(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`),
  };
  ctx.log(`GNL bench (${quick ? 'quick' : 'full'}) on ${url}; load average ${loadStart.join(' ')}`);
  const figures: FigureResult[] = [];
  const failures: string[] = [];
  try {
    for (const [id, figure] of Object.entries(FIGURES)) {
      if (only && !only.includes(id)) continue;
      const figureStarted = performance.now();
      try {
        const result = await figure(ctx);
        figures.push(result);
        console.log(`\nFigure ${result.id}: ${result.title}`);
        console.table(result.rows);
        for (const goal of result.goals ?? [])
          console.log(`  goal: ${goal.goal}: ${goal.measured} → ${goal.met === null ? 'n/a' : goal.met ? 'met' : 'NOT met'}`);
      } catch (error) {
        failures.push(`figure ${id}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        console.error(`figure ${id} could not run:`, error);
      }
      ctx.log(`figure ${id} took ${round((performance.now() - figureStarted) / 1000, 1)} s`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  figures.sort((a, b) => a.id.localeCompare(b.id, 'en', { numeric: true }));
  const charts: string[] = [];
  const machine = {
    at: at.toISOString(),
    node: process.version,
    cpus: os.cpus()[0]?.model ?? 'unknown CPU',
    cores: os.cpus().length,
    memoryGb: round(os.totalmem() / 2 ** 30, 1),
    postgres: postgresVersion,
    loadAverage: { start: loadStart, end: os.loadavg().map((l) => round(l, 2)) },
    mode: quick ? ('quick' as const) : ('full' as const),
    command: `npm run bench${quick || only || values.long ? ' --' : ''}${quick ? ' --quick' : ''}${only ? ` --only ${only.join(',')}` : ''}${values.long ? ' --long' : ''}`,
    durationS: round((performance.now() - started) / 1000, 0),
  };
  if (figures.some((f) => f.id === '1' || f.id === '2')) {
    const svg = path.join(resultsDir, `${stamp}-overhead-resume.svg`);
    writeFileSync(
      svg,
      chartSvg(
        figures,
        `${machine.command}, ${machine.at.slice(0, 16).replace('T', ' ')} UTC, ${machine.cores} cores, load average ${machine.loadAverage.start[0]}–${machine.loadAverage.end[0]}`,
      ),
    );
    charts.push(path.basename(svg));
    if (!quick && !only) {
      copyFileSync(svg, path.join(import.meta.dirname, '..', 'docs', 'images', 'bench-overhead-resume.svg'));
      ctx.log('chart copied to docs/images/bench-overhead-resume.svg');
    }
  }
  const written = writeReport(path.join(resultsDir, stamp), machine, figures, charts);
  console.log(`\n${written.md}\n${written.json}\n(${machine.durationS} s; load average ${machine.loadAverage.end.join(' ')})`);
  if (failures.length > 0) {
    console.error(`\n${failures.length} figure(s) could not run:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
}

await main();
