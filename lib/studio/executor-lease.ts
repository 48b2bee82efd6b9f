/**
 * The lease of the Studio's own executor (GNL_STUDIO_LEASE_MS): how long its claim on a run holds
 * without a heartbeat (renewed every third of it), as a worker's `--lease-ms`. On Postgres, when the
 * Studio's process dies, another executor (the restarted Studio, a worker) takes its runs up once their
 * leases lapse: 30 s by default. Shorter, a crashed Studio's runs go on sooner; but a process stalled
 * longer than the lease (a long pause of its machine) loses its runs to another executor, whose hold
 * fences the stalled one's writes off (docs/executors.md). Checked at start (boot.ts checkStudioSettings).
 */
import { z } from 'zod';

export const STUDIO_LEASE_ENV = 'GNL_STUDIO_LEASE_MS';

/** From a second to an hour, in whole milliseconds. */
const leaseMs = z.coerce.number().int().min(1_000).max(3_600_000);

/** The executor's lease option from the environment: `{}` (the executor's default) when unset. */
export function studioLeaseFromEnv(env: Record<string, string | undefined> = process.env): { leaseMs?: number } {
  const value = env[STUDIO_LEASE_ENV]?.trim();
  if (!value) return {};
  const parsed = leaseMs.safeParse(value);
  if (!parsed.success)
    throw new Error(`${STUDIO_LEASE_ENV} must be a whole number of milliseconds from 1000 to 3600000 (an hour), got "${value}"`, { cause: parsed.error });
  return { leaseMs: parsed.data };
}
