/**
 * Retention policy: how many days each agent's ended runs are kept. An agent's own `retentionDays`
 * (defineAgent) wins; else the fleet default, GNL_RETENTION_DAYS (unset: keep forever). Only the agents
 * of the registry given are covered: workers of different deployments may share a database, and a
 * deployment never drops the runs of an agent it does not know (nor runs no agent started).
 */
import { z } from 'zod';
import { type AgentRegistry, retentionDaysSchema } from '@/lib/agents';

/** The agents whose ended runs are dropped, and after how many days. */
export interface RetentionPolicy {
  agents: readonly { agent: string; days: number }[];
}

export const retentionPolicySchema = z.object({
  agents: z.array(z.object({ agent: z.string().min(1), days: z.number().int().min(1).max(36_500) })),
});

/** GNL_RETENTION_DAYS, GNL_MEMORY_RETENTION_DAYS, GNL_RETENTION_INTERVAL_MS or GNL_RETENTION_BATCH is not what it must be. */
export class RetentionSettingsError extends Error {
  override readonly name = 'RetentionSettingsError';
  constructor(
    readonly setting: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${setting} ${message} (docs/operations.md#retention)`, options);
  }
}

/** The scheduled job's settings (retention-ticker.ts). */
export interface RetentionSettings {
  /** The fleet default in days; undefined: runs of agents without `retentionDays` are kept forever. */
  defaultDays?: number | undefined;
  /** At most one pass per interval across every executor. Default 3 600 000 ms (an hour). */
  intervalMs?: number;
  /** Runs selected per batch (each dropped in its own transaction). Default 100. */
  batchSize?: number;
  /** Batches per pass at most; the rest waits for the next pass. Default 50. */
  maxBatches?: number;
  /** GNL_MEMORY_RETENTION_DAYS: memory older than this is deleted (memory-retention.ts); undefined: kept forever. */
  memoryDays?: number | undefined;
}

/** The policy for `registry`'s agents and workflows (their current versions) under the fleet default `defaultDays`. */
export function retentionPolicy(args: { registry: AgentRegistry; defaultDays?: number | undefined }): RetentionPolicy {
  const agents: { agent: string; days: number }[] = [];
  // A workflow's runs record its name where an agent's record the agent's (a name is one or the other).
  for (const owner of [...args.registry.listAgents(), ...args.registry.listWorkflows()]) {
    const days = owner.retentionDays ?? args.defaultDays;
    if (typeof days === 'number') agents.push({ agent: owner.name, days });
  }
  return { agents };
}

const wholeNumber = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The settings from the environment: GNL_RETENTION_DAYS and GNL_MEMORY_RETENTION_DAYS (days or 'forever'), GNL_RETENTION_INTERVAL_MS, GNL_RETENTION_BATCH. */
export function retentionSettingsFromEnv(env: Record<string, string | undefined> = process.env): RetentionSettings {
  const settings: RetentionSettings = {};
  const defaultDays = daysSetting(env, 'GNL_RETENTION_DAYS');
  if (defaultDays !== undefined) settings.defaultDays = defaultDays;
  const memoryDays = daysSetting(env, 'GNL_MEMORY_RETENTION_DAYS');
  if (memoryDays !== undefined) settings.memoryDays = memoryDays;
  const interval = env.GNL_RETENTION_INTERVAL_MS?.trim();
  if (interval) {
    const parsed = wholeNumber(1_000, 7 * 86_400_000).safeParse(interval);
    if (!parsed.success)
      throw new RetentionSettingsError('GNL_RETENTION_INTERVAL_MS', `must be a whole number of milliseconds from 1000 to a week (got "${interval}")`, {
        cause: parsed.error,
      });
    settings.intervalMs = parsed.data;
  }
  const batch = env.GNL_RETENTION_BATCH?.trim();
  if (batch) {
    const parsed = wholeNumber(1, 10_000).safeParse(batch);
    if (!parsed.success)
      throw new RetentionSettingsError('GNL_RETENTION_BATCH', `must be a whole number from 1 to 10000 (got "${batch}")`, { cause: parsed.error });
    settings.batchSize = parsed.data;
  }
  return settings;
}

/** A days setting: whole days from 1 to 36500, or 'forever' (undefined, as unset); anything else stops the start naming it. */
function daysSetting(env: Record<string, string | undefined>, name: 'GNL_RETENTION_DAYS' | 'GNL_MEMORY_RETENTION_DAYS'): number | undefined {
  const days = env[name]?.trim();
  if (!days) return undefined;
  const parsed = retentionDaysSchema.safeParse(/^\d+$/.test(days) ? Number(days) : days);
  if (!parsed.success)
    throw new RetentionSettingsError(name, `must be a whole number of days from 1 to 36500, or 'forever' (got "${days}")`, { cause: parsed.error });
  return parsed.data === 'forever' ? undefined : parsed.data;
}
