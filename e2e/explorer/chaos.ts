/**
 * Long mode of the crash-schedule explorer:
 *
 *   npm run test:chaos -- --schedules N [--seed S] [--journal postgres|pglite] [--parallel 1..4]
 *                         [--faults kills,provider,ids,operators,database,stream,versions,events] [--scenarios base,shapes,tools,replay,versions,workflows] [--log]
 *   npm run test:chaos -- --journal J --replay '<plan JSON printed beside a violation>'
 *   npm run test:chaos -- --families workflows [--journal J]
 *
 * `--families` names scenario families (the same as `--scenarios`). Without `--schedules` it runs the
 * families' census and their class schedules (every boundary class of every scenario killed once) and, for
 * the workflows family, its own plans (workflow-schedules.ts: kills inside each kind of step, the event
 * sent racing the wait); with `--schedules N` the random schedules as below.
 *
 * Random schedules over the chosen scenario families (default all), on Postgres by default
 * (DATABASE_URL, a database of its own created and dropped). Each schedule draws, from a seed of its
 * own, 0 to 3 SIGKILLs anywhere in the run (the resumers included) and the faults of the chosen fault
 * families (default all; faults.ts). The run's seed is printed first: `--seed S` replays the same
 * schedules; each violation is printed with the plan that replays that one schedule. Prints the totals
 * and the rate; exits 1 on any violation. With `--log` adds one row to the table in
 * docs/reliability-log.md and rewrites the totals below it (reliability-log.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  census,
  classSchedules,
  describeViolation,
  formatTotals,
  openExplorer,
  type PlannedSchedule,
  randomSchedules,
  runAll,
  runnableScenarios,
  totalsOf,
} from './explore';
import { FAULT_FAMILIES, type FaultFamily } from './faults';
import { type JournalTarget, pgliteTarget, postgresTarget } from './journal-targets';
import { appendRow, parseRows, totalsLine } from './reliability-log';
import { IDLE_SESSION_TIMEOUT_MS, SCENARIO_FAMILIES, type ScenarioFamily, scenariosOf } from './scenarios';
import { VERSION_NAMES } from './versions';
import { workflowSchedules } from './workflow-schedules';

const ROOT = path.resolve(import.meta.dirname, '../..');
const LOG = path.join(ROOT, 'docs/reliability-log.md');

const USAGE =
  'usage: npm run test:chaos -- --schedules N [--seed S] [--journal postgres|pglite] [--parallel 1..4] ' +
  `[--faults ${FAULT_FAMILIES.join(',')}] [--scenarios|--families ${SCENARIO_FAMILIES.join(',')}] [--log]\n` +
  "       npm run test:chaos -- [--journal postgres|pglite] --replay '<plan JSON printed beside a violation>'\n" +
  `       npm run test:chaos -- --families ${SCENARIO_FAMILIES.join(',')} [--journal postgres|pglite] [--parallel 1..4]   (census and class schedules)`;

const list = <T extends string>(all: readonly T[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const names = v === undefined || v === 'all' ? [...all] : v.split(',').map((x) => x.trim());
      const unknown = names.filter((n) => !all.includes(n as T));
      if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown ${unknown.join(', ')}: one of ${all.join(', ')}` });
      return new Set(names as T[]);
    });

const planSchema = z.object({
  scenario: z.string(),
  kills: z.array(z.number().int().min(0)),
  faults: z
    .object({
      provider: z.record(z.string(), z.enum(['429', '500', '503', 'reset', 'oversize'])),
      ids: z.enum(['script', 'random', 'sequential']),
      races: z.array(
        z.object({ invocation: z.number().int(), boundary: z.number().int(), action: z.enum(['approve', 'reject', 'resolve', 'cancel', 'resume']) }),
      ),
      terminateHold: z.object({ invocation: z.number().int() }).optional(),
      stream: z.boolean().optional(),
      versions: z
        .array(
          z.discriminatedUnion('kind', [
            z.object({
              kind: z.literal('migrate'),
              to: z.enum(VERSION_NAMES),
              force: z.boolean(),
              invocation: z.number().int(),
              boundary: z.union([z.number().int(), z.literal('before')]),
            }),
            z.object({
              kind: z.literal('fork'),
              fraction: z.number().min(0).lt(1),
              instruction: z.string().optional(),
              invocation: z.union([z.number().int(), z.literal('after')]),
              boundary: z.union([z.number().int(), z.literal('before')]),
            }),
            z.object({
              kind: z.literal('restart'),
              invocation: z.union([z.number().int(), z.literal('after')]),
              boundary: z.union([z.number().int(), z.literal('before')]),
            }),
          ]),
        )
        .optional(),
      events: z.array(z.object({ invocation: z.number().int(), boundary: z.union([z.number().int(), z.literal('before')]) })).optional(),
    })
    .strict()
    .optional(),
  seed: z.number().int().optional(),
});

const argsSchema = z.object({
  schedules: z.coerce.number().int().nonnegative().default(0),
  faults: list<FaultFamily>(FAULT_FAMILIES),
  scenarios: list<ScenarioFamily>(SCENARIO_FAMILIES),
  replay: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const parsed = planSchema.safeParse(
        (() => {
          try {
            return JSON.parse(v) as unknown;
          } catch {
            return undefined;
          }
        })(),
      );
      if (!parsed.success) ctx.addIssue({ code: 'custom', message: `--replay: not a plan: ${z.prettifyError(parsed.error)}` });
      return parsed.data as PlannedSchedule | undefined;
    }),
  help: z.boolean().default(false),
  seed: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
  journal: z.enum(['postgres', 'pglite']).default('postgres'),
  parallel: z.coerce.number().int().min(1).max(4).default(2),
  log: z.boolean().default(false),
  /** --families given: without --schedules, the census and class schedules of those families. */
  classes: z.boolean().default(false),
});

function parse() {
  const { values } = parseArgs({
    options: {
      schedules: { type: 'string' },
      seed: { type: 'string' },
      journal: { type: 'string' },
      parallel: { type: 'string' },
      log: { type: 'boolean' },
      faults: { type: 'string' },
      scenarios: { type: 'string' },
      families: { type: 'string' },
      replay: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const { families, ...rest } = values;
  if (families !== undefined && rest.scenarios !== undefined && families !== rest.scenarios) {
    console.error(`test:chaos: --families and --scenarios name the same thing: give one\n${USAGE}`);
    process.exit(2);
  }
  const parsed = argsSchema.safeParse({ ...rest, scenarios: rest.scenarios ?? families, classes: families !== undefined });
  if (!parsed.success) {
    console.error(`test:chaos: ${z.prettifyError(parsed.error)}\n${USAGE}`);
    process.exit(2);
  }
  if (parsed.data.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (parsed.data.schedules === 0 && !parsed.data.replay && !parsed.data.classes) {
    console.error(`test:chaos: --schedules N (N > 0), --families F or --replay\n${USAGE}`);
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

async function openTarget(kind: 'postgres' | 'pglite', args: { faults: ReadonlySet<FaultFamily> }): Promise<JournalTarget> {
  if (kind === 'pglite') return pgliteTarget();
  const url = process.env.DATABASE_URL;
  if (!url) {
    console.error('test:chaos: DATABASE_URL is not set (long mode runs on Postgres; --journal pglite for the embedded journal).');
    process.exit(2);
  }
  return postgresTarget(url, args.faults.has('database') ? { idleSessionTimeoutMs: IDLE_SESSION_TIMEOUT_MS } : {});
}

const args = parse();
const seed = args.seed ?? Math.floor(Math.random() * 2 ** 32);
const started = performance.now();
const families = [...args.faults].join(',');
const scenarioFamilies = [...args.scenarios].join(',');
if (!args.replay && args.schedules > 0)
  console.log(
    `[explorer] seed ${seed} (replay: npm run test:chaos -- --schedules ${args.schedules} --seed ${seed} --journal ${args.journal} --faults ${families} --scenarios ${scenarioFamilies})`,
  );
const target = await openTarget(args.journal, args);
const explorer = await openExplorer(target, { poolSize: args.parallel + 1 });
let exitCode = 0;
let totalsOfCensus: ReturnType<typeof totalsOf> | undefined;
try {
  let plans: PlannedSchedule[];
  let broken: Awaited<ReturnType<typeof census>>['results'] = [];
  if (args.replay) plans = [args.replay];
  else {
    const scenarios = runnableScenarios(target, scenariosOf(args.scenarios, { clientTools: true }));
    if (!target.provideToolResult) console.log('[explorer] client-tool scenario left out: journal.provideToolResult is not on the Journal port');
    const counted = await census(explorer, scenarios);
    broken = counted.results.filter((r) => r.violations.length > 0);
    for (const r of broken) console.error(`[explorer] VIOLATION (census) ${describeViolation(r)}`);
    console.log(`[explorer] census: ${counted.census.map((c) => `${c.scenario} ${c.boundaries.length}`).join(', ')} boundaries`);
    if (args.schedules > 0) plans = randomSchedules(counted.census, args.schedules, seed, { families: args.faults, journal: args.journal });
    else {
      // Census and class schedules: every boundary class of every scenario killed once, and the workflows family's own plans.
      plans = [...classSchedules(counted.census), ...(args.scenarios.has('workflows') ? workflowSchedules(counted.census) : [])];
      console.log(`[explorer] ${plans.length} class and family schedules`);
    }
    totalsOfCensus = totalsOf(counted.results);
  }
  let done = 0;
  const results = await runAll(explorer, plans, args.parallel, (result) => {
    done += 1;
    if (result.violations.length > 0 || args.replay)
      console.error(`[explorer] ${result.violations.length ? 'VIOLATION' : 'no violation:'} ${describeViolation(result)}`);
    if (done % 50 === 0) console.log(`[explorer] ${done}/${plans.length} schedules, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  });
  const totals = totalsOf(results);
  totals.violations += broken.length;
  // Without --schedules the census runs count too (they are the family's schedules without a kill).
  if (!args.replay && args.schedules === 0 && totalsOfCensus) {
    totals.schedules += totalsOfCensus.schedules;
    totals.children += totalsOfCensus.children;
    totals.checks += totalsOfCensus.checks;
  }
  const seconds = (performance.now() - started) / 1000;
  const mode = args.schedules > 0 || args.replay ? `seed ${seed}, ${args.journal}, faults ${families}` : `${args.journal}, census and class schedules`;
  console.log(formatTotals(`${mode}, scenarios ${scenarioFamilies}`, totals, explorer.pool, seconds));
  if (totals.violations > 0) exitCode = 1;
  if (args.log && !args.replay) {
    const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    // The journal cell names the model too: the fault families drawn (and the scenario families, when not all).
    // Census and class schedules (no --schedules): `classes` instead of fault families.
    const model = `${args.schedules > 0 ? families : 'classes'}${args.scenarios.size < SCENARIO_FAMILIES.length ? `+${scenarioFamilies}` : ''}`;
    const row = { date, seed, journal: `${args.journal}/${model}`, ...totals, seconds: Math.round(seconds), commit: commit() };
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
