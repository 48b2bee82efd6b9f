/**
 * The workflows family's own schedules (workflow-scenarios.ts), found in the census by label, beside the
 * class schedules (which kill only the first `in-execute` of a scenario): a SIGKILL inside each kind of
 * step (retrySafe, check, a side effect with neither: blocked, then resolved done from the world's store;
 * killed before its request left: resolved not done and run once), an operator's resolve racing the
 * resumer's load; the event sent before the run waits for it, racing its wait (right before and right
 * after the suspend is committed) and again after a crash under the same id; a kill while the run sleeps;
 * kills inside the fan-out (in a child's side effect, right after a child's start, right after the
 * children were recorded, once a child completed and before the parent looked). `WORKFLOW_PLANS_QUICK` names the ones quick mode runs on each journal.
 */
import type { Census, PlannedSchedule } from './explore';
import type { EventSend, Faults } from './faults';

const NONE: Faults = { provider: {}, ids: 'script', races: [] };

/**
 * The plans quick mode runs (explorer.test.ts), per journal, to keep its time small: on Postgres the paths
 * no class schedule takes (the unknown refund resolved done and not done, the event racing the suspend and
 * sent again after a crash, and in the fan-out, whose child runs the spread counts as their parent's, a
 * child killed inside its side effect, right after a child's start, and once a child completed); on PGlite (each process opens it) the
 * blocked refund and the event racing the suspend. `npm run test:chaos -- --families workflows` runs all.
 */
export const WORKFLOW_PLANS_QUICK = {
  postgres: [
    'refund blocked',
    'refund not sent, blocked',
    'event racing the suspend',
    'event sent again after a crash',
    'fan-out child killed',
    'fan-out killed after a start',
    'fan-out child done, parent not woken',
  ],
  pglite: ['refund blocked', 'event racing the suspend'],
} as const;

export interface NamedPlan extends PlannedSchedule {
  /** What the plan is for (WORKFLOW_PLANS_QUICK picks by it). */
  name: string;
  /** Operator requests the journal must have accepted for the plan to have done what it is for (ScheduleResult.decisions). */
  makes?: string[];
}

export function workflowSchedules(censuses: readonly Census[]): NamedPlan[] {
  const plans: NamedPlan[] = [];
  /** The census index of the n-th boundary (0-based) of `scenario` with this label, or -1. */
  const at = (scenario: string, label: string, nth = 0) => {
    const boundaries = censuses.find((c) => c.scenario === scenario)?.boundaries ?? [];
    let seen = -1;
    return boundaries.findIndex((l) => l === label && ++seen === nth);
  };
  const add = (name: string, scenario: string, kills: number[], makes: string[] | undefined, faults: Partial<Faults> = {}) => {
    const sends = faults.events ?? [];
    const places = [...kills, ...sends.flatMap((e: EventSend) => (e.boundary === 'before' ? [] : [e.boundary]))];
    if (censuses.some((c) => c.scenario === scenario) && places.every((k) => k >= 0))
      plans.push({ name, scenario, kills, ...(makes ? { makes } : {}), faults: { ...NONE, ...faults }, seed: 31 });
  };
  // The event, sent by the schedule once the run waits for it (twice under its id: the second records nothing).
  const waited = ['event recorded', 'event not recorded'];
  const raced = ['race event recorded', 'event not recorded', 'event not recorded'];
  // Steps: each kind of side effect killed right after the service acted, before its outcome is journaled.
  add('ticket retried (retrySafe)', 'wf-steps', [at('wf-steps', 'in-execute:ticket')], []);
  add('email checked', 'wf-steps', [at('wf-steps', 'in-execute:email')], []);
  add('refund blocked', 'wf-steps', [at('wf-steps', 'in-execute:refund')], ['resolve done']);
  add('refund not sent, blocked', 'wf-steps', [at('wf-steps', 'after:tool-call-start(refund)')], ['resolve not-done']);
  // Whether the racing resolve lands first or the resumer blocks first (then resolved as above) is the race's.
  add('refund resolved racing the resume', 'wf-steps', [at('wf-steps', 'in-execute:refund')], undefined, {
    races: [{ invocation: 1, boundary: 0, action: 'resolve' }],
  });
  // The event: before the wait is recorded, racing the suspend of its wait, again after a crash.
  const started = at('wf-sleep-event', 'after:run-start');
  const suspend = (side: 'before' | 'after') => at('wf-sleep-event', `${side}:workflow-wait+run-suspend`, 1);
  add('event before the wait', 'wf-sleep-event', [], ['race event recorded'], { events: [{ invocation: 0, boundary: started }] });
  add('event racing the suspend', 'wf-sleep-event', [], raced, { events: [{ invocation: 0, boundary: suspend('before') }] });
  add('event after the suspend', 'wf-sleep-event', [], raced, { events: [{ invocation: 0, boundary: suspend('after') }] });
  add('event sent again after a crash', 'wf-sleep-event', [at('wf-sleep-event', 'after:workflow-wait-end')], ['race event recorded', 'event not recorded'], {
    events: [
      { invocation: 0, boundary: started },
      { invocation: 1, boundary: 'before' },
    ],
  });
  add('killed while sleeping', 'wf-sleep-event', [at('wf-sleep-event', 'after:workflow-wait+run-suspend')], waited);
  add('confirm checked', 'wf-sleep-event', [at('wf-sleep-event', 'in-execute:confirm')], waited);
  // The fan-out: a child killed inside its side effect, right after a child's start, right after the children were recorded.
  add('fan-out child killed', 'wf-children', [at('wf-children', 'in-execute:notice', 1)], []);
  add('fan-out killed after a start', 'wf-children', [at('wf-children', 'child/after:run-start', 2)], []);
  add('fan-out killed after its record', 'wf-children', [at('wf-children', 'after:workflow-wait', 1)], []);
  add('fan-out child done, parent not woken', 'wf-children', [at('wf-children', 'child/after:run-complete', 1)], []);
  return plans;
}
