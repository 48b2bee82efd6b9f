/**
 * The explorer: census runs that enumerate every boundary a scenario passes, the schedules built from
 * them (every boundary class once, the world's faults family by family, or random schedules from a
 * seed: kills and faults drawn per schedule from a seed of its own), a runner that keeps at most
 * `parallel` schedules going, and the totals.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { bundleChild } from './bundle';
import type { JournalTarget } from './journal-targets';
import { drawFaults, type FaultFamily, type Faults, hasFaults, type OperatorAction, type ProviderFault } from './faults';
import { ChildPool } from './pool';
import { seededRandom } from './random';
import { runSchedule, type ScheduleResult } from './schedule';
import { SCENARIOS, type Scenario, scenarioNamed } from './scenarios';
import type { VersionOp } from './versions';

export interface PlannedSchedule {
  scenario: string;
  kills: number[];
  /** The world's faults besides the kills (none when absent). */
  faults?: Faults;
  /** The schedule's own seed (its random tool call ids; the draw that made it). */
  seed?: number;
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
  /** Migrations the journal accepted, forks run to their end, restarts run until they settle or stop (versions.ts). */
  migrations: number;
  forks: number;
  restarts: number;
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
    run: (plan) =>
      runSchedule({
        scenario: scenarioNamed(plan.scenario),
        target,
        pool,
        kills: plan.kills,
        ...(plan.faults ? { faults: plan.faults } : {}),
        ...(plan.seed !== undefined ? { seed: plan.seed } : {}),
      }),
    close: async () => {
      await pool.close();
      if (built.owned) rmSync(path.dirname(built.file), { recursive: true, force: true });
    },
  };
}

/** The scenarios this journal can run (a client-side tool needs journal.provideToolResult). */
export function runnableScenarios(target: JournalTarget, scenarios: readonly Scenario[] = SCENARIOS): Scenario[] {
  return scenarios.filter((s) => !s.clientTool || target.provideToolResult);
}

export async function census(
  explorer: Explorer,
  scenarios: readonly Scenario[] = runnableScenarios(explorer.target),
): Promise<{ census: Census[]; results: ScheduleResult[] }> {
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
 * The class quick mode's spread counts a boundary in: its boundaryClass, a workflow's child run's
 * (`child/…`) counted as its parent's (the workflows family's own plans kill inside the children; every
 * child class is killed by `npm run test:chaos -- --families workflows`, whose classSchedules keep them apart).
 */
export function spreadClass(label: string): string {
  return boundaryClass(label).replace(/^child\//, '');
}

/** Each boundary class once (spreadClass), spread over the scenarios: taken boundary by boundary, round-robin over the scenarios. */
export function spreadClassSchedules(censuses: readonly Census[]): PlannedSchedule[] {
  const seen = new Set<string>();
  const plans: PlannedSchedule[] = [];
  const longest = Math.max(...censuses.map((c) => c.boundaries.length));
  for (let index = 0; index < longest; index++) {
    for (const c of censuses) {
      const label = c.boundaries[index];
      if (label === undefined) continue;
      const cls = spreadClass(label);
      if (seen.has(cls)) continue;
      seen.add(cls);
      plans.push({ scenario: c.scenario, kills: [index] });
    }
  }
  return plans;
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

export { seededRandom } from './random';

/**
 * Random schedules: each gets a seed of its own from the run's seed, and from it a scenario, 0 to 3
 * kills (the first anywhere in the census, each next one anywhere a resumer can pass) and the faults of
 * the chosen families (a workflow's event sends with `events`). A schedule with no fault at all gets one kill. `replaySchedule` rebuilds one.
 */
export function randomSchedules(
  censuses: readonly Census[],
  count: number,
  seed: number,
  options: { families?: ReadonlySet<FaultFamily>; journal?: JournalTarget['kind'] } = {},
): PlannedSchedule[] {
  const families = options.families ?? new Set<FaultFamily>(['kills']);
  const master = seededRandom(seed);
  return Array.from({ length: count }, () => drawSchedule(censuses, Math.floor(master() * 2 ** 32), families, options.journal ?? 'pglite'));
}

export function drawSchedule(censuses: readonly Census[], seed: number, families: ReadonlySet<FaultFamily>, journal: JournalTarget['kind']): PlannedSchedule {
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const c = censuses[pick(censuses.length)] as Census;
  const n = c.boundaries.length;
  const kills: number[] = [];
  if (families.has('kills')) {
    kills.push(pick(n));
    for (let more = pick(3); more > 0; more--) kills.push(pick(Math.max(2, n - (kills[0] as number) + 4)));
  }
  const steps = scenarioNamed(c.scenario).script.length;
  const agent = scenarioNamed(c.scenario).agent ? { kills: kills.length } : undefined;
  const faults = drawFaults({ random, steps, boundaries: n, families, journal, ...(agent ? { agent } : {}) });
  // A workflow's event, sent at one or two places of the first processes besides once the run waits (drawn last: other scenarios draw as before).
  if (families.has('events') && scenarioNamed(c.scenario).workflow?.event && random() < 0.7) {
    faults.events = Array.from({ length: 1 + pick(2) }, () => ({ invocation: pick(2), boundary: random() < 0.3 ? ('before' as const) : pick(n + 2) }));
  }
  if (kills.length === 0 && !hasFaults(faults)) kills.push(pick(n));
  return { scenario: c.scenario, kills, faults, seed };
}

/**
 * A boundary's label and one per event its append holds: a new model step rides with the next append
 * (RunSession.defer), so `after:model-step[refund]+tool-call-start(refund)` is also `after:model-step[refund]`
 * and `after:tool-call-start(refund)`, and a plan aimed at either finds it.
 */
export function eventLabels(label: string): string[] {
  const at = /^(before|after):(.+)$/.exec(label);
  if (!at?.[2]?.includes('+')) return [label];
  return [label, ...at[2].split('+').map((part) => `${at[1]}:${part}`)];
}

/**
 * The world's faults, family by family, on the scenarios each is about: every provider fault, each id
 * shape, each operator request at the boundaries where a run decides (right after a resume's load, at
 * its approval question, inside its side effect), the hold's session terminated inside a side effect.
 */
export function familySchedules(censuses: readonly Census[], journal: JournalTarget['kind']): PlannedSchedule[] {
  const has = (name: string) => censuses.some((c) => c.scenario === name);
  const boundaryOf = (name: string, label: (l: string) => boolean) =>
    censuses.find((c) => c.scenario === name)?.boundaries.findIndex((l) => eventLabels(l).some(label)) ?? -1;
  const none: Faults = { provider: {}, ids: 'script', races: [] };
  const plans: PlannedSchedule[] = [];
  const add = (scenario: string, kills: number[], faults: Partial<Faults>, seed = 1) => {
    if (has(scenario)) plans.push({ scenario, kills, faults: { ...none, ...faults }, seed });
  };
  const provider = (entries: [string, ProviderFault][]) => ({ provider: Object.fromEntries(entries) });
  add(
    'side-effect',
    [],
    provider([
      ['0:1', '429'],
      ['0:2', '503'],
      ['1:1', '500'],
    ]),
  );
  add(
    'side-effect',
    [],
    provider([
      ['1:1', '500'],
      ['1:2', '429'],
      ['1:3', '503'],
    ]),
  );
  add('approval', [], provider([['0:1', 'reset']]));
  add('side-effect', [], provider([['1:1', 'oversize']]));
  add('parallel', [], provider([['0:1', '429']]));
  const inside = boundaryOf('side-effect', (l) => l.startsWith('in-execute:'));
  if (inside >= 0)
    add(
      'side-effect',
      [inside],
      provider([
        ['1:2', '429'],
        ['2:1', '503'],
      ]),
    );
  for (const ids of ['random', 'sequential'] as const) {
    add('many-steps', [], { ids }, 7);
    add('approval', [], { ids }, 7);
  }
  const race = (scenario: string, invocation: number, label: (l: string) => boolean, action: OperatorAction, kills: number[] = []) => {
    // Invocation 0 passes the census's boundaries; a later one starts at `loaded` (its boundary 0).
    const boundary = invocation === 0 ? boundaryOf(scenario, label) : 0;
    if (boundary >= 0) add(scenario, kills, { races: [{ invocation, boundary, action }] });
  };
  const atQuestion = (l: string) => l === 'after:tool-approval-request(approvedRefund)' || l.startsWith('after:tool-approval-request');
  race('approval', 0, atQuestion, 'approve');
  race('approval', 0, atQuestion, 'reject');
  race('approval', 1, () => true, 'approve');
  race('approval', 1, () => true, 'reject');
  race('approval', 1, () => true, 'cancel');
  race('side-effect', 0, (l) => l.startsWith('in-execute:'), 'cancel');
  race('side-effect', 0, (l) => l.startsWith('after:model-step'), 'resume');
  const asked = boundaryOf('approval', (l) => l.startsWith('after:tool-approval-request'));
  if (asked >= 0) {
    // Killed after the question, before the suspend: the resumer loads an undecided question, and the
    // operator decides (or cancels) between its load and its first append.
    for (const action of ['approve', 'reject', 'cancel'] as const) add('approval', [asked], { races: [{ invocation: 1, boundary: 0, action }] });
  }
  if (inside >= 0) {
    // Killed inside the side effect: the resumer, right after its load, races the operator's resolve.
    add('side-effect', [inside], { races: [{ invocation: 1, boundary: 0, action: 'resolve' }] });
    add('side-effect', [inside], { races: [{ invocation: 1, boundary: 0, action: 'resume' }] });
  }
  // Issue 11's replay defects, each at the boundary that shows it: a journaled policy denial replayed, a
  // repair done again, equal-args twins with an unknown outcome, a computed default derived again.
  const killAt = (scenario: string, label: (l: string) => boolean) => {
    const at = boundaryOf(scenario, label);
    if (at >= 0) add(scenario, [at], {});
  };
  killAt('policy-flip', (l) => l === 'before:run-complete');
  killAt('repaired', (l) => l === 'in-execute:memo');
  killAt('twins', (l) => l === 'after:tool-call-start(note)');
  killAt('zod-default', (l) => l === 'after:tool-call-start(stamp)');
  // Streamed (streamDurable over the provider's server-sent events): plain, cut mid-stream on the step
  // that calls the side effect, killed inside it and at the question, and with per-response ids renamed as they stream.
  add('side-effect', [], { stream: true });
  add('side-effect', [], { stream: true, ...provider([['1:1', 'reset']]) });
  if (inside >= 0) add('side-effect', [inside], { stream: true });
  if (asked >= 0) add('approval', [asked], { stream: true, races: [{ invocation: 1, boundary: 0, action: 'approve' }] });
  add('many-steps', [], { stream: true, ids: 'sequential' }, 7);
  if (journal === 'postgres') {
    add('side-effect', [], { terminateHold: { invocation: 0 } });
    add('check', [], { terminateHold: { invocation: 0 } });
  }
  return plans;
}

/**
 * Runs that outlive deploys (versions.ts), on the agent scenarios: the operator migrates the run while
 * it is stopped where a SIGKILL left it (inside a side effect, right after a model step, at an approval
 * question), to a changed prompt, an added tool, and unsafely (forced) without a tool the run used;
 * migrates racing a live process; forks it stopped, racing a live process inside a side effect, and once
 * it completed (with an instruction). Every plan has at least one migration or fork.
 */
export function versionSchedules(censuses: readonly Census[]): PlannedSchedule[] {
  const none: Faults = { provider: {}, ids: 'script', races: [] };
  const plans: PlannedSchedule[] = [];
  const at = (scenario: string, label: (l: string) => boolean) =>
    censuses.find((c) => c.scenario === scenario)?.boundaries.findIndex((l) => eventLabels(l).some(label)) ?? -1;
  const add = (scenario: string, kills: number[], versions: VersionOp[]) => {
    if (censuses.some((c) => c.scenario === scenario) && kills.every((k) => k >= 0)) plans.push({ scenario, kills, faults: { ...none, versions }, seed: 15 });
  };
  const inRefund = at('agent-refund', (l) => l === 'in-execute:refund');
  const afterStep = at('agent-refund', (l) => l.startsWith('after:model-step') && l.includes('refund'));
  const afterLookup = at('agent-refund', (l) => l.startsWith('after:tool-call-end') && l.includes('lookup'));
  add('agent-refund', [inRefund], [{ kind: 'migrate', to: 'v2-prompt', force: false, invocation: 1, boundary: 'before' }]);
  add('agent-refund', [afterStep], [{ kind: 'migrate', to: 'v4-unsafe', force: true, invocation: 1, boundary: 'before' }]);
  add(
    'agent-refund',
    [afterLookup],
    [
      { kind: 'fork', fraction: 0.99, invocation: 1, boundary: 'before' },
      { kind: 'migrate', to: 'v3-tool', force: false, invocation: 1, boundary: 'before' },
    ],
  );
  add(
    'agent-refund',
    [],
    [
      { kind: 'migrate', to: 'v2-prompt', force: false, invocation: 0, boundary: Math.max(0, afterLookup) },
      { kind: 'fork', fraction: 0.99, invocation: 0, boundary: Math.max(0, inRefund) },
      { kind: 'fork', fraction: 0.5, instruction: 'Do the same again, carefully.', invocation: 'after', boundary: 'before' },
    ],
  );
  const asked = at('agent-steps', (l) => l.startsWith('after:tool-approval-request'));
  const lastRefund = censuses.find((c) => c.scenario === 'agent-steps')?.boundaries.lastIndexOf('in-execute:refund') ?? -1;
  add(
    'agent-steps',
    [asked],
    [
      { kind: 'migrate', to: 'v3-tool', force: false, invocation: 1, boundary: 'before' },
      { kind: 'fork', fraction: 0.6, invocation: 'after', boundary: 'before' },
    ],
  );
  add('agent-steps', [lastRefund], [{ kind: 'fork', fraction: 0.9, invocation: 1, boundary: 'before' }]);
  // Restarts (issue 27): after a kill inside the last refund (two refunds done, answered from the old run's
  // record; the third of unknown outcome, which stops the restart), and racing the live process once its
  // refund ended (answered; the old run canceled under it).
  add('agent-steps', [lastRefund], [{ kind: 'restart', invocation: 2, boundary: 'before' }]);
  const refundEnded = at('agent-refund', (l) => l.startsWith('after:tool-call-end') && l.includes('refund'));
  add('agent-refund', [], [{ kind: 'restart', invocation: 0, boundary: Math.max(0, refundEnded) }]);
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
      migrations: t.migrations + r.migrations,
      forks: t.forks + r.forks,
      restarts: t.restarts + r.restarts,
    }),
    { schedules: 0, kills: 0, children: 0, checks: 0, violations: 0, busyRetries: 0, migrations: 0, forks: 0, restarts: 0 },
  );
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A violation, with the schedule that replays it. */
export function describeViolation(result: ScheduleResult): string {
  return (
    `[${result.journal}] scenario ${result.scenario}, kills [${result.schedule.join(', ')}] (killed at ${result.killedAt.join(' → ') || 'nothing'}), faults: ${result.faults}\n` +
    `  replay: npm run test:chaos -- --journal ${result.journal} --replay '${result.replay}'\n  - ${result.violations.join('\n  - ')}`
  );
}

export function formatTotals(label: string, totals: Totals, pool: ChildPool, seconds: number): string {
  const s = pool.stats;
  return (
    `[explorer] ${label}: ${totals.schedules} schedules, ${totals.kills} kills (SIGKILL), ${totals.children} child commands in ${s.spawned} processes (${s.reused} in a child reused from another schedule), ` +
    `${totals.migrations} migrations, ${totals.forks} forks, ${totals.restarts} restarts, ${totals.checks} invariant checks, ${totals.violations} violations; ${seconds.toFixed(1)} s ` +
    `(${((totals.schedules / seconds) * 60).toFixed(0)} schedules/min). Child start: module load ${median(s.loadMs).toFixed(0)} ms median (hidden by the warm pool), ` +
    `waited for a warm child ${median(s.waitMs).toFixed(0)} ms, command to journal open ${median(s.openMs).toFixed(0)} ms median; busy retries ${totals.busyRetries}.`
  );
}
