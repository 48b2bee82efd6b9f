/**
 * Long mode of the crash-schedule explorer:
 *
 *   npm run test:chaos -- --schedules N [--seed S] [--journal postgres|pglite] [--parallel 1..4] [--log]
 *
 * Random multi-crash schedules (1 to 3 SIGKILLs each, anywhere in the run, the resumers included) over
 * every scenario, on Postgres by default (DATABASE_URL, a database of its own created and dropped). The
 * seed is printed first: `--seed S` replays the same schedules. Prints the totals, and each violation
 * with the schedule that replays it; exits 1 on any violation. With `--log` adds one row to the table in
 * docs/reliability-log.md and rewrites the totals below it (reliability-log.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { census, describeViolation, formatTotals, openExplorer, randomSchedules, runAll, totalsOf } from './explore';
import { type JournalTarget, pgliteTarget, postgresTarget } from './journal-targets';
import { appendRow, parseRows, totalsLine } from './reliability-log';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOG = path.join(ROOT, 'docs/reliability-log.md');

const argsSchema = z.object({
  schedules: z.coerce.number().int().positive(),
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  journal: z.enum(['postgres', 'pglite']).default('postgres'),
  parallel: z.coerce.number().int().min(1).max(4).default(2),
  log: z.boolean().default(false),
});

function parse() {
  const { values } = parseArgs({
    options: {
      schedules: { type: 'string' },
      seed: { type: 'string' },
      journal: { type: 'string' },
      parallel: { type: 'string' },
      log: { type: 'boolean' },
    },
  });
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) {
    console.error(
      `test:chaos: ${z.prettifyError(parsed.error)}\nusage: npm run test:chaos -- --schedules N [--seed S] [--journal postgres|pglite] [--parallel 1..4] [--log]`,
    );
    process.exit(2);
  }
  return parsed.data;
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

async function openTarget(kind: 'postgres' | 'pglite'): Promise<JournalTarget> {
  if (kind === 'pglite') return pgliteTarget();
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('test:chaos: DATABASE_URL is not set (long mode runs on Postgres; --journal pglite for the embedded journal).');
    process.exit(2);
  }
  return postgresTarget(url);
}

const args = parse();
const seed = args.seed ?? Math.floor(Math.random() * 2 ** 32);
const started = performance.now();
console.log(`[explorer] seed ${seed} (replay: npm run test:chaos -- --schedules ${args.schedules} --seed ${seed} --journal ${args.journal})`);
const target = await openTarget(args.journal);
const explorer = await openExplorer(target, { poolSize: args.parallel + 1 });
let exitCode = 0;
try {
  const counted = await census(explorer);
  const broken = counted.results.filter((r) => r.violations.length > 0);
  for (const r of broken) console.error(describeViolation(r));
  console.log(`[explorer] census: ${counted.census.map((c) => `${c.scenario} ${c.boundaries.length}`).join(', ')} boundaries`);
  const plans = randomSchedules(counted.census, args.schedules, seed);
  let done = 0;
  const results = await runAll(explorer, plans, args.parallel, (result) => {
    done += 1;
    if (result.violations.length > 0) console.error(`[explorer] VIOLATION ${describeViolation(result)}`);
    if (done % 50 === 0) console.log(`[explorer] ${done}/${plans.length} schedules, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  });
  const totals = totalsOf(results);
  totals.violations += broken.length;
  const seconds = (performance.now() - started) / 1000;
  console.log(formatTotals(`seed ${seed}, ${args.journal}`, totals, explorer.pool, seconds));
  if (totals.violations > 0) exitCode = 1;
  if (args.log) {
    const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const row = { date, seed, journal: args.journal, ...totals, seconds: Math.round(seconds), commit: commit() };
    const logged = appendRow(readFileSync(LOG, 'utf8'), row);
    writeFileSync(LOG, logged);
    console.log(`[explorer] appended to ${path.relative(ROOT, LOG)}: ${totalsLine(parseRows(logged))}`);
  }
} catch (error) {
  console.error('[explorer] the explorer itself failed:', error);
  exitCode = 1;
} finally {
  await explorer.close();
  await target.close();
}
process.exit(exitCode);
