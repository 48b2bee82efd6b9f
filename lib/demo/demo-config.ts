/**
 * The demo's settings from the environment, read when needed (never at import, never throwing for a
 * missing variable):
 *   GNL_DEMO_SERVICE_URL   where the tools find the outside service (default http://127.0.0.1:4010)
 *   GNL_DEMO_SERVICE_PORT  the port `npm run demo:service` listens on (default 4010)
 *   GNL_DEMO_CHECKS        "0" / "off" / "false": issueRefund and sendEmail get no `check`, so a crash
 *                          after their call blocks the run until an operator resolves it (default on)
 *   GNL_DEMO_APPROVAL_EXPIRES_MS  a refund's approval question expires after this many milliseconds
 *                          (the executor expires it then; default: never)
 *   GNL_DEMO_CRASH_AT      a crash point for the whole process (crash-points.ts)
 *   GNL_DEMO_CRASH_POINTS  1 / 0: whether the Studio's Demo page may arm crash points (default: on for
 *                          the embedded journal, off on Postgres; crash-points-allowed.ts)
 *   GNL_MODEL, OPENAI_API_KEY, ANTHROPIC_API_KEY   the model (demo-model.ts)
 *   GNL_DEMO_SCHEDULE_CRON a cron (e.g. "*\/5 * * * *", or six fields with seconds): the demo declares a
 *                          schedule starting the support agent on it (agents/schedules.ts); unset: none
 *   GNL_DEMO_SCHEDULE_TZ, GNL_DEMO_SCHEDULE_MISSED   its time zone (default UTC) and missed-slot policy
 *                          ('skip' or 'latest', default skip)
 */
import { DEFAULT_SERVICE_PORT } from './outside-service';

/** An environment: process.env, or a plain object in tests. */
export type Env = Record<string, string | undefined>;

export const SERVICE_URL_ENV = 'GNL_DEMO_SERVICE_URL';
export const SERVICE_PORT_ENV = 'GNL_DEMO_SERVICE_PORT';
export const CHECKS_ENV = 'GNL_DEMO_CHECKS';

export function demoServiceUrl(env: Env = process.env): string {
  return env[SERVICE_URL_ENV] || `http://127.0.0.1:${DEFAULT_SERVICE_PORT}`;
}

export function demoServicePort(env: Env = process.env): number {
  const raw = env[SERVICE_PORT_ENV];
  if (raw === undefined || raw === '') return DEFAULT_SERVICE_PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new TypeError(`${SERVICE_PORT_ENV}="${raw}" is not a port number (0 to 65535).`);
  return port;
}

export const APPROVAL_EXPIRES_ENV = 'GNL_DEMO_APPROVAL_EXPIRES_MS';

/** GNL_DEMO_APPROVAL_EXPIRES_MS as a positive whole number of milliseconds; unset or empty: undefined (never expires). */
export function demoApprovalExpiresInMs(env: Env = process.env): number | undefined {
  const raw = (env[APPROVAL_EXPIRES_ENV] ?? '').trim();
  if (raw === '') return undefined;
  const ms = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(ms) || ms <= 0) {
    throw new TypeError(`${APPROVAL_EXPIRES_ENV}="${raw}" is not a positive whole number of milliseconds.`);
  }
  return ms;
}

export function demoChecks(env: Env = process.env): boolean {
  return !['0', 'off', 'false', 'no'].includes((env[CHECKS_ENV] ?? '').trim().toLowerCase());
}

export const SCHEDULE_CRON_ENV = 'GNL_DEMO_SCHEDULE_CRON';

/** The demo schedule's timing from the environment, or undefined when GNL_DEMO_SCHEDULE_CRON is unset (defineSchedule checks it). */
export function demoScheduleTiming(env: Env = process.env): { cron: string; timeZone: string; missed: 'skip' | 'latest' } | undefined {
  const cron = env[SCHEDULE_CRON_ENV]?.trim();
  if (!cron) return undefined;
  const missed = (env.GNL_DEMO_SCHEDULE_MISSED ?? '').trim() || 'skip';
  if (missed !== 'skip' && missed !== 'latest') throw new TypeError(`GNL_DEMO_SCHEDULE_MISSED="${missed}" must be "skip" or "latest".`);
  return { cron, timeZone: (env.GNL_DEMO_SCHEDULE_TZ ?? '').trim() || 'UTC', missed };
}
