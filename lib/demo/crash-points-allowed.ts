/**
 * Whether an operator may arm a crash point from the Studio (the Demo page's "Crash point"). A crash
 * point SIGKILLs the Studio's server: right for the first-five-minutes demo on the embedded journal,
 * where that is the point, and wrong on a shared Postgres deployment, where any operator could take the
 * server down. So: on by default on the embedded journal, off on Postgres, and GNL_DEMO_CRASH_POINTS
 * decides when set (1: on, 0: off, anything else is an error where it is read: the Demo page and the
 * action). Where they are off, the Demo page
 * says so and the server action refuses to start a run with one.
 *
 * This governs the Studio's action only: GNL_DEMO_CRASH_AT (crash-points.ts) is the process's own
 * environment, set by whoever starts it.
 */
import type { Env } from './demo-config';

export const CRASH_POINTS_ENV = 'GNL_DEMO_CRASH_POINTS';

export type CrashPointsPolicy = { allowed: true; why: string } | { allowed: false; why: string };

/** `sharedJournal`: other processes, and so other people, reach this journal (Postgres); false on the embedded one. */
export function crashPointsAllowed(args: { sharedJournal: boolean; env?: Env }): CrashPointsPolicy {
  const raw = (args.env ?? process.env)[CRASH_POINTS_ENV];
  if (raw === '1') return { allowed: true, why: `${CRASH_POINTS_ENV}=1 turns them on.` };
  if (raw === '0') return { allowed: false, why: `Crash points are off: ${CRASH_POINTS_ENV}=0.` };
  if (raw !== undefined && raw !== '') throw new TypeError(`${CRASH_POINTS_ENV} must be 1 or 0 (got ${JSON.stringify(raw)}).`);
  return args.sharedJournal
    ? {
        allowed: false,
        why: `Crash points are off: this Studio runs on Postgres (DATABASE_URL), where one would let any operator kill the server. ${CRASH_POINTS_ENV}=1 turns them on.`,
      }
    : { allowed: true, why: `On for the embedded journal's demo (${CRASH_POINTS_ENV}=0 turns them off).` };
}
