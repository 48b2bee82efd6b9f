/**
 * Quick mode of the crash-schedule explorer (issue 7): every boundary class of every scenario killed
 * once with a real SIGKILL, and a few schedules with two and three crashes in a row, on PGlite and on
 * Postgres (skipped, visibly, without DATABASE_URL). Every schedule is resumed in fresh processes until
 * the run completes and judged from the outside world's own store and the journal's rows. The number
 * of schedules run must equal the number enumerated, so the suite cannot pass on an empty census.
 * Long mode: `npm run test:chaos -- --schedules N` (chaos.ts).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL } from '@/tests/support/journals';
import { bundleChild } from './bundle';
import {
  type Census,
  census,
  classSchedules,
  describeViolation,
  type Explorer,
  formatTotals,
  multiCrashSchedules,
  openExplorer,
  runAll,
  totalsOf,
} from './explore';
import { type JournalTarget, pgliteTarget, postgresTarget } from './journal-targets';
import type { ScheduleResult } from './schedule';
import { SCENARIOS } from './scenarios';

// Generous: the machines that run the suite are shared; nothing here is timed.
const TIMEOUT_MS = 60 * 60_000;

/** One bundle for both journals (the test run's own, or one built here and removed when the file is done). */
let bundle: Promise<{ file: string; ms: number; owned: boolean }> | undefined;
const sharedBundle = () => {
  bundle ??= bundleChild();
  return bundle;
};
afterAll(async () => {
  const built = await bundle;
  if (built?.owned) rmSync(path.dirname(built.file), { recursive: true, force: true });
});

interface Target {
  name: 'pglite' | 'postgres';
  open(): Promise<JournalTarget>;
}

const targets: Target[] = [{ name: 'pglite', open: () => pgliteTarget() }];
if (DATABASE_URL) targets.push({ name: 'postgres', open: () => postgresTarget(DATABASE_URL as string) });
else describe.skip('crash-schedule explorer [postgres] (skipped: DATABASE_URL is not set)', () => it('runs on Postgres', () => {}));

/** Progress and violations as they happen (a long quick mode on a loaded machine is not silent). */
function progress(name: string) {
  return (result: ScheduleResult, index: number) => {
    if (result.violations.length > 0) console.error(`[explorer] VIOLATION ${describeViolation(result)}`);
    if ((index + 1) % 20 === 0) console.log(`[explorer] ${name}: ${index + 1} schedules done`);
  };
}

function expectNoViolations(results: readonly ScheduleResult[]): void {
  const broken = results.filter((r) => r.violations.length > 0);
  expect(broken.map(describeViolation)).toEqual([]);
}

for (const target of targets) {
  describe(`crash-schedule explorer [${target.name}]`, () => {
    let journal: JournalTarget;
    let explorer: Explorer;
    let censuses: Census[] = [];
    const all: ScheduleResult[] = [];
    let started = 0;

    beforeAll(async () => {
      started = performance.now();
      journal = await target.open();
      explorer = await openExplorer(journal, { poolSize: 3, bundle: (await sharedBundle()).file });
    }, TIMEOUT_MS);

    afterAll(async () => {
      if (explorer) {
        console.log(formatTotals(`quick mode on ${target.name}`, totalsOf(all), explorer.pool, (performance.now() - started) / 1000));
        await explorer.close();
      }
      await journal?.close();
    }, TIMEOUT_MS);

    it(
      'census: every scenario completes without a kill and passes its boundaries, side effects inside their execute',
      async () => {
        const counted = await census(explorer);
        all.push(...counted.results);
        censuses = counted.census;
        expectNoViolations(counted.results);
        expect(censuses.map((c) => c.scenario)).toEqual(SCENARIOS.map((s) => s.name));
        for (const scenario of SCENARIOS) {
          const boundaries = censuses.find((c) => c.scenario === scenario.name)?.boundaries ?? [];
          expect(boundaries.length).toBeGreaterThanOrEqual(8);
          for (const tool of Object.keys(scenario.sideEffects)) expect(boundaries).toContain(`in-execute:${tool}`);
        }
      },
      TIMEOUT_MS,
    );

    it(
      'every boundary class of every scenario, killed once by a real SIGKILL and resumed: no invariant broken',
      async () => {
        const plans = classSchedules(censuses);
        expect(plans.length).toBeGreaterThanOrEqual(SCENARIOS.length * 8);
        const results = await runAll(explorer, plans, 2, progress(`${target.name} classes`));
        all.push(...results);
        expect(results.filter(Boolean)).toHaveLength(plans.length);
        expect(results.map((r) => r.kills)).toEqual(plans.map(() => 1));
        expectNoViolations(results);
      },
      TIMEOUT_MS,
    );

    it(
      'two and three crashes in a row (inside the side effect, then the resumers): no invariant broken',
      async () => {
        const plans = multiCrashSchedules(censuses, ['side-effect', 'approval']);
        expect(plans).toHaveLength(4);
        const results = await runAll(explorer, plans, 2);
        all.push(...results);
        expect(results.map((r) => r.kills)).toEqual(plans.map((p) => p.kills.length));
        expectNoViolations(results);
      },
      TIMEOUT_MS,
    );
  });
}
