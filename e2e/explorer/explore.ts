/**
 * The explorer: census runs that enumerate every boundary a scenario passes, the schedules built from
 * them (every boundary class once, or random multi-crash schedules from a seed), a runner that keeps
 * at most `parallel` schedules going, and the totals.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { bundleChild } from './bundle';
import type { JournalTarget } from './journal-targets';
import { ChildPool } from './pool';
import { runSchedule, type ScheduleResult } from './schedule';
import { SCENARIOS, type Scenario, scenarioNamed } from './scenarios';

export interface PlannedSchedule {
  scenario: string;
  kills: number[];
}

export interface Census {
  scenario: string;
  /** Every boundary of a run without kills, in order, across its processes. */
  boundaries: string[];
}

export interface Totals {
  schedules: number;
  kills: number;
  children: number;
  checks: number;
  violations: number;
  busyRetries: number;
}

export interface Explorer {
  pool: ChildPool;
  target: JournalTarget;
  bundleMs: number;
  run(plan: PlannedSchedule): Promise<ScheduleResult>;
  close(): Promise<void>;
}

/** Bundles the child (or reuses a bundle) and opens a warm pool on the target. */
export async function openExplorer(target: JournalTarget, options: { poolSize: number; bundle?: string }): Promise<Explorer> {
  const built = options.bundle ? { file: options.bundle, ms: 0, owned: false } : await bundleChild();
  const pool = new ChildPool(built.file, options.poolSize, target.childEnv);
  return {
    pool,
    target,
    bundleMs: built.ms,
    run: (plan) => runSchedule({ scenario: scenarioNamed(plan.scenario), target, pool, kills: plan.kills }),
    close: async () => {
      await pool.close();
      if (built.owned) rmSync(path.dirname(built.file), { recursive: true, force: true });
    },
  };
}

export async function census(explorer: Explorer, scenarios: readonly Scenario[] = SCENARIOS): Promise<{ census: Census[]; results: ScheduleResult[] }> {
  const results = await runAll(
    explorer,
    scenarios.map((s) => ({ scenario: s.name, kills: [] })),
    2,
  );
  return { census: results.map((r) => ({ scenario: r.scenario, boundaries: r.boundaries })), results };
}

/**
 * A boundary's class: where it is (before or after an append, inside an execute) and the event types,
 * without tool names: `after:model-step`, `before:tool-call-start`, `in-execute`.
 */
export function boundaryClass(label: string): string {
  return label.replace(/\[[^\]]*\]|\([^)]*\)/g, '').replace(/^in-execute:.*$/, 'in-execute');
}

/** Every boundary class of every scenario, killed once at its first occurrence. */
export function classSchedules(censuses: readonly Census[]): PlannedSchedule[] {
  return censuses.flatMap((c) => {
    const seen = new Set<string>();
    const plans: PlannedSchedule[] = [];
    c.boundaries.forEach((label, index) => {
      const cls = boundaryClass(label);
      if (seen.has(cls)) return;
      seen.add(cls);
      plans.push({ scenario: c.scenario, kills: [index] });
    });
    return plans;
  });
}

/**
 * A few schedules with two and three crashes in a row: die inside the side effect, then kill the
 * resumer at its first boundary (before its run-resume), or at its second and the next one at its third.
 */
export function multiCrashSchedules(censuses: readonly Census[], scenarios: readonly string[]): PlannedSchedule[] {
  return censuses
    .filter((c) => scenarios.includes(c.scenario))
    .flatMap((c) => {
      const inside = c.boundaries.findIndex((label) => label.startsWith('in-execute:'));
      const first = inside >= 0 ? inside : Math.floor(c.boundaries.length / 2);
      return [
        { scenario: c.scenario, kills: [first, 0] },
        { scenario: c.scenario, kills: [first, 1, 2] },
      ];
    });
}

/** mulberry32: a small seeded generator, so a seed replays the same schedules. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random schedules: a scenario, 1 to 3 kills, the first anywhere in the census, each next one anywhere in what a resumer can pass. */
export function randomSchedules(censuses: readonly Census[], count: number, seed: number): PlannedSchedule[] {
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const plans: PlannedSchedule[] = [];
  for (let i = 0; i < count; i++) {
    const c = censuses[pick(censuses.length)] as Census;
    const n = c.boundaries.length;
    const kills = [pick(n)];
    const more = pick(3);
    for (let k = 0; k < more; k++) kills.push(pick(Math.max(2, n - (kills[0] as number) + 4)));
    plans.push({ scenario: c.scenario, kills });
  }
  return plans;
}

/** Runs the plans, at most `parallel` at a time, in order of the plan list. */
export async function runAll(
  explorer: Explorer,
  plans: readonly PlannedSchedule[],
  parallel: number,
  onResult?: (result: ScheduleResult, index: number) => void,
): Promise<ScheduleResult[]> {
  const results: ScheduleResult[] = new Array(plans.length);
  let next = 0;
  const lane = async () => {
    while (next < plans.length) {
      const index = next++;
      const result = await explorer.run(plans[index] as PlannedSchedule);
      results[index] = result;
      onResult?.(result, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, lane));
  return results;
}

export function totalsOf(results: readonly ScheduleResult[]): Totals {
  return results.reduce<Totals>(
    (t, r) => ({
      schedules: t.schedules + 1,
      kills: t.kills + r.kills,
      children: t.children + r.children,
      checks: t.checks + r.checks,
      violations: t.violations + r.violations.length,
      busyRetries: t.busyRetries + r.busyRetries,
    }),
    { schedules: 0, kills: 0, children: 0, checks: 0, violations: 0, busyRetries: 0 },
  );
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A violation, with the schedule that replays it. */
export function describeViolation(result: ScheduleResult): string {
  return `[${result.journal}] scenario ${result.scenario}, schedule [${result.schedule.join(', ')}] (killed at ${result.killedAt.join(' → ') || 'nothing'}):\n  - ${result.violations.join('\n  - ')}`;
}

export function formatTotals(label: string, totals: Totals, pool: ChildPool, seconds: number): string {
  const s = pool.stats;
  return (
    `[explorer] ${label}: ${totals.schedules} schedules, ${totals.kills} kills (SIGKILL), ${totals.children} child processes, ` +
    `${totals.checks} invariant checks, ${totals.violations} violations; ${seconds.toFixed(1)} s ` +
    `(${((totals.schedules / seconds) * 60).toFixed(0)} schedules/min). Child start: module load ${median(s.loadMs).toFixed(0)} ms median (hidden by the warm pool), ` +
    `waited for a warm child ${median(s.waitMs).toFixed(0)} ms, command to journal open ${median(s.openMs).toFixed(0)} ms median; busy retries ${totals.busyRetries}.`
  );
}
