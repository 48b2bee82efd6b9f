/**
 * Which runs a bulk action looks at: by status, agent, agent version, the tool a run waits on, and age.
 * Parsed with zod at the edge (the CLI's flags and the Studio's form both arrive here). Ages are
 * durations ("2h", "30m", "7d") the preview turns into instants by the database's clock, once: the
 * apply and every later count use the same instants, so "older than 2h" does not drift between steps.
 */
import { RUN_STATUSES } from '@/lib/durable';
import { z } from 'zod';

const DAY_MS = 86_400_000;
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: DAY_MS };
const MAX_AGE_MS = 3650 * DAY_MS;

/** "90s", "30m", "2h", "7d" (or "1h30m") in milliseconds; undefined when it is not one. */
export function parseAge(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^(\d+[smhd])+$/.test(trimmed)) return undefined;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+)([smhd])/g)) total += Number(amount) * (UNITS[unit as string] as number);
  return total > 0 && total <= MAX_AGE_MS ? total : undefined;
}

const printable = (value: string) => !/[\p{Cc}\p{Cs}]/u.test(value);
const name = (what: string) => z.string().trim().min(1, `${what}: give a value`).max(200).refine(printable, `${what} must contain only printable characters`);
const age = (what: string) =>
  z
    .string()
    .refine((text) => parseAge(text) !== undefined, `${what}: a duration like 90s, 30m, 2h or 7d`)
    .transform((text) => parseAge(text) as number);

export const bulkFilterSchema = z
  .object({
    status: z.enum(RUN_STATUSES).optional(),
    agent: name('agent').optional(),
    /** The agent version the run recorded at its start (`input.agentVersion`). */
    version: name('version').optional(),
    /** The run waits on a call of this tool (one of its pending items names it). */
    tool: name('tool').optional(),
    /** Created longer ago than this duration. */
    olderThan: age('olderThan').optional(),
    /** Created more recently than this duration. */
    newerThan: age('newerThan').optional(),
  })
  .strict();

export type BulkFilterInput = z.input<typeof bulkFilterSchema>;
export type BulkFilterParsed = z.output<typeof bulkFilterSchema>;

/** A filter as the preview resolved it: ages as instants (ISO, database clock). What the preview row records. */
export interface BulkFilter {
  status?: (typeof RUN_STATUSES)[number];
  agent?: string;
  version?: string;
  tool?: string;
  /** Only runs created before this instant (from olderThan). */
  createdBefore?: string;
  /** Only runs created after this instant (from newerThan). */
  createdAfter?: string;
}

/** Resolves the ages against `now` (the database's clock). */
export function resolveFilter(parsed: BulkFilterParsed, now: Date): BulkFilter {
  const { olderThan, newerThan, ...rest } = parsed;
  return {
    ...rest,
    ...(olderThan !== undefined ? { createdBefore: new Date(now.getTime() - olderThan).toISOString() } : {}),
    ...(newerThan !== undefined ? { createdAfter: new Date(now.getTime() - newerThan).toISOString() } : {}),
  };
}

/** The filter in words, for the CLI and the Studio ("status waiting-approval, agent support, older than …"). */
export function describeFilter(filter: BulkFilter): string {
  const parts = [
    filter.status && `status ${filter.status}`,
    filter.agent && `agent ${filter.agent}`,
    filter.version && `version ${filter.version}`,
    filter.tool && `waiting on ${filter.tool}`,
    filter.createdBefore && `created before ${filter.createdBefore}`,
    filter.createdAfter && `created after ${filter.createdAfter}`,
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : 'every run';
}
