/**
 * Quick mode of the crash-schedule explorer (issues 7 and 11), on PGlite and on Postgres (skipped,
 * visibly, without DATABASE_URL): a census of every scenario of every family through the real OpenAI
 * provider and the model server; every boundary class killed once with a real SIGKILL (on Postgres:
 * each class once, spread over the scenarios, to stay within a few minutes); the world's faults family
 * by family (familySchedules: provider faults, id shapes, operators racing the run, the hold's session
 * terminated); a few schedules with two and three crashes in a row; and seeded random schedules of
 * every family; runs that outlive deploys (issue 15: migrated and forked by an operator at their
 * boundaries, versionSchedules; restarted by restartRun, issue 27); the workflows family (durable
 * workflows run with runWorkflow: census on both journals, their boundary classes in the spread on
 * Postgres, a child run's counted as its parent's, and their own plans, workflowSchedules: inside each
 * kind of step, the event racing the wait, in the fan-out). Every schedule is resumed in other processes (none runs two of its commands: pool.ts) until the run settles and judged from the
 * outside world's own store, the model server's requests and the journal's rows. The number of
 * schedules run must equal the number enumerated, so the suite cannot pass on an empty census. A fault
 * kind the runtime still gets wrong FAILS here, with the plan that replays it: nothing is excluded.
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
  describeViolation,
  type Explorer,
  familySchedules,
  formatTotals,
  multiCrashSchedules,
  openExplorer,
  randomSchedules,
  runAll,
  runnableScenarios,
  spreadClass,
  spreadClassSchedules,
  totalsOf,
  versionSchedules,
} from './explore';
import { FAULT_FAMILIES } from './faults';
import { type JournalTarget, pgliteTarget, postgresTarget } from './journal-targets';
import type { ScheduleResult } from './schedule';
import { IDLE_SESSION_TIMEOUT_MS } from './scenarios';
import { WORKFLOW_PLANS_QUICK, workflowSchedules } from './workflow-schedules';

/** The seed of quick mode's random schedules (fixed: a failure replays with it). */
const QUICK_SEED = 20261201;
const QUICK_RANDOM = 6;
/** PGlite's census: the base family, the agents its fault schedules use, and the workflows. */
const PGLITE_CENSUS = new Set<string>(['base', 'client-tool', 'versions', 'workflows']);

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
if (DATABASE_URL) targets.push({ name: 'postgres', open: () => postgresTarget(DATABASE_URL as string, { idleSessionTimeoutMs: IDLE_SESSION_TIMEOUT_MS }) });
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
      target.name === 'postgres'
        ? 'census: every scenario of every family completes without a kill through the real provider, side effects inside their execute'
        : 'census: the base scenarios, the client-tool agent and the workflows complete without a kill (the agents through the real provider)',
      async () => {
        // PGlite's children open the journal in ~2 s: it runs the agents its families below use, Postgres all of them.
        const scenarios = runnableScenarios(journal).filter((s) => target.name === 'postgres' || PGLITE_CENSUS.has(s.family) || PGLITE_CENSUS.has(s.name));
        if (!journal.provideToolResult) console.warn('[explorer] client-tool scenario left out: journal.provideToolResult is not on the Journal port');
        const counted = await census(explorer, scenarios);
        all.push(...counted.results);
        censuses = counted.census;
        expectNoViolations(counted.results);
        expect(censuses.map((c) => c.scenario)).toEqual(scenarios.map((s) => s.name));
        for (const scenario of scenarios) {
          const boundaries = censuses.find((c) => c.scenario === scenario.name)?.boundaries ?? [];
          // (A new model step rides with the next append, RunSession.defer: a step and its call's start are one boundary.)
          expect(boundaries.length).toBeGreaterThanOrEqual(6);
          for (const tool of Object.keys(scenario.sideEffects)) {
            // A policy that denies in the first process keeps its tool out of the census run.
            if (scenario.options !== 'policy-flip') expect(boundaries).toContain(`in-execute:${tool}`);
          }
        }
      },
      TIMEOUT_MS,
    );

    // Postgres runs the schedules that need many processes (its children open the journal in 1 ms, PGlite's in ~2 s).
    if (target.name === 'postgres')
      it(
        'every boundary class, killed once by a real SIGKILL (spread over the scenarios) and resumed: no invariant broken',
        async () => {
          const plans = spreadClassSchedules(censuses);
          expect(plans).toHaveLength(new Set(censuses.flatMap((c) => c.boundaries.map(spreadClass))).size);
          expect(plans.length).toBeGreaterThanOrEqual(20);
          const results = await runAll(explorer, plans, 2, progress(`${target.name} classes`));
          all.push(...results);
          expect(results.filter(Boolean)).toHaveLength(plans.length);
          expect(results.map((r) => r.kills)).toEqual(plans.map(() => 1));
          expectNoViolations(results);
        },
        TIMEOUT_MS,
      );

    it(
      "the world's faults, family by family (provider faults the SDK retries and outlasting its retries, oversize answers, id shapes, operators racing every decision, the hold's session killed): no invariant broken",
      async () => {
        // PGlite: the families where its own code runs (decisions through the same storage; ids); Postgres: all.
        const every = familySchedules(censuses, target.name);
        const plans =
          target.name === 'postgres' ? every : every.filter((p) => p.faults && (p.faults.races.length > 0 || p.faults.ids !== 'script' || p.faults.stream));
        expect(plans).toHaveLength(target.name === 'postgres' ? 33 : 18);
        const results = await runAll(explorer, plans, 2, progress(`${target.name} faults`));
        all.push(...results);
        expect(results.filter(Boolean)).toHaveLength(plans.length);
        expectNoViolations(results);
      },
      TIMEOUT_MS,
    );

    it(
      'runs that outlive deploys: migrated (a changed prompt, an added tool, forced without a tool it used), forked (stopped by a SIGKILL, racing a live process, once done) and restarted (after a SIGKILL, racing a live process): no invariant broken',
      async () => {
        // PGlite (~2 s per child's journal open): three plans, both scenarios, a migration and a fork stopped by a kill, a fork once done, a restart after a kill.
        const every = versionSchedules(censuses);
        expect(every).toHaveLength(8);
        const plans = target.name === 'postgres' ? every : [every[2], every[4], every[6]].filter((p) => p !== undefined);
        const results = await runAll(explorer, plans, 2, progress(`${target.name} versions`));
        all.push(...results);
        expect(results.filter(Boolean)).toHaveLength(plans.length);
        const totals = totalsOf(results);
        // The schedules made what they were for (a refused migration or fork would leave nothing to judge).
        expect(totals.migrations).toBeGreaterThanOrEqual(target.name === 'postgres' ? 4 : 2);
        expect(totals.forks).toBeGreaterThanOrEqual(target.name === 'postgres' ? 5 : 2);
        expect(totals.restarts).toBeGreaterThanOrEqual(target.name === 'postgres' ? 2 : 1);
        expectNoViolations(results);
      },
      TIMEOUT_MS,
    );

    it(
      'workflows: a SIGKILL inside each kind of step, the event sent before, racing and after the wait (and again after a crash), kills in the fan-out: no invariant broken',
      async () => {
        // Postgres: seven of the family's fifteen plans; PGlite: two (the blocked refund, the event racing the suspend). test:chaos --families workflows runs all.
        const every = workflowSchedules(censuses);
        expect(every).toHaveLength(15);
        const quick: readonly string[] = WORKFLOW_PLANS_QUICK[target.name];
        const plans = every.filter((p) => quick.includes(p.name));
        expect(plans.map((p) => p.name)).toEqual(quick);
        const results = await runAll(explorer, plans, 2, progress(`${target.name} workflows`));
        all.push(...results);
        expect(results.filter(Boolean)).toHaveLength(plans.length);
        // Each plan made what it was for: its kills, and the operator's requests (a resolve, the event's sends).
        expect(results.map((r) => r.kills)).toEqual(plans.map((p) => p.kills.length));
        expect(results.map((r, i) => (plans[i]?.makes ? r.decisions : undefined))).toEqual(plans.map((p) => p.makes));
        expectNoViolations(results);
      },
      TIMEOUT_MS,
    );

    if (target.name === 'postgres')
      it(
        `two and three crashes in a row, and ${QUICK_RANDOM} random schedules of every fault family (seed ${QUICK_SEED}): no invariant broken`,
        async () => {
          const multi = multiCrashSchedules(censuses, ['side-effect']);
          const random = randomSchedules(censuses, QUICK_RANDOM, QUICK_SEED, { families: new Set(FAULT_FAMILIES), journal: target.name });
          const results = await runAll(explorer, [...multi, ...random], 2, progress(`${target.name} random`));
          all.push(...results);
          expect(results.slice(0, multi.length).map((r) => r.kills)).toEqual(multi.map((p) => p.kills.length));
          expect(results).toHaveLength(multi.length + random.length);
          expectNoViolations(results);
        },
        TIMEOUT_MS,
      );
  });
}
