/**
 * Crash points: the demo's tools can SIGKILL the process that executes the run, for real (no finally,
 * no flush, no release), at the worst moments: right after the outside service performed an operation
 * and answered, before the tool's result is recorded in the journal.
 *
 * Off unless asked, in one of two ways:
 *   - for one invocation: `withCrashPoint('after-refund-answered', () => runAgent(…))` (an executor
 *     keeps the crash point a run was started with and wraps each invocation of that run);
 *   - for a whole process: GNL_DEMO_CRASH_AT=after-refund-answered.
 *
 * A crash point fires only when the service answers that it performed the operation NOW (HTTP 201).
 * After the crash the operation is settled by `check`, answered as a repeat under the same key, or
 * blocked: it is never performed again, so a crash point fires at most once per operation even when
 * the option stays on for the resume.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';
import type { Env } from './demo-config';

export const CRASH_POINTS = ['after-ticket-created', 'after-refund-answered', 'after-email-sent'] as const;

/**
 * - 'after-ticket-created': createTicket, the service created the ticket and answered;
 * - 'after-refund-answered': issueRefund, the service issued the refund and answered;
 * - 'after-email-sent': sendEmail, the service sent the email and answered.
 * Each time before the tool returns, so the journal has the call's start and no outcome.
 */
export type CrashPoint = (typeof CRASH_POINTS)[number];

export const CRASH_AT_ENV = 'GNL_DEMO_CRASH_AT';

export const crashPointSchema = z.enum(CRASH_POINTS, { error: `a crash point is one of ${CRASH_POINTS.join(', ')}` });

const current = new AsyncLocalStorage<{ crashAt: CrashPoint | undefined }>();

/** Runs `fn` with this crash point armed for every tool call it makes (undefined: none, overriding the environment). */
export function withCrashPoint<T>(crashAt: CrashPoint | undefined, fn: () => T): T {
  if (crashAt !== undefined) crashPointSchema.parse(crashAt);
  return current.run({ crashAt }, fn);
}

/** The crash point armed here: the invocation's (withCrashPoint), else GNL_DEMO_CRASH_AT, else none. A bad value throws, naming the valid ones. */
export function armedCrashPoint(env: Env = process.env): CrashPoint | undefined {
  const scoped = current.getStore();
  if (scoped) return scoped.crashAt;
  const raw = env[CRASH_AT_ENV];
  if (raw === undefined || raw === '' || raw === 'none') return undefined;
  const parsed = crashPointSchema.safeParse(raw);
  if (!parsed.success) throw new TypeError(`${CRASH_AT_ENV}="${raw}" is not a crash point: use one of ${CRASH_POINTS.join(', ')} (or leave it unset).`);
  return parsed.data;
}

/** Kills this process with SIGKILL if `point` is armed. */
export function crashIfArmed(point: CrashPoint, armed: CrashPoint | undefined): void {
  if (armed !== point) return;
  process.stderr.write(`[gnl demo ${process.pid}] crash point ${point}: SIGKILL\n`);
  process.kill(process.pid, 'SIGKILL');
}
