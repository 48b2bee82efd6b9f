/**
 * The Overview page's data as its charts take it. Browser-safe and pure: the server shapes the rows of
 * overview-sql.ts with these, the page's client components draw them.
 */
import type { Cost } from '@/lib/cost';
import type { PendingItem } from '@/lib/durable';

/** One chart row per day: `day` and a count per series (0 where the day had none). */
export type DayRow = { day: string } & Record<string, number | string>;

export interface Overview {
  /** The window's first day and its length (UTC days). */
  since: string;
  days: number;
  statuses: string[];
  statusByDay: DayRow[];
  decisions: { count: number; medianS: number | null; p90S: number | null };
  agents: string[];
  tokensByDay: DayRow[];
  /** The known part of each agent's cost per day, in USD (lib/cost; unpriced steps are in `costByAgent`). */
  costByDay: DayRow[];
  /** Each agent's cost over the window, with what it could not price; sorted by agent. */
  costByAgent: { agent: string; cost: Cost }[];
  /** Every agent's cost over the window. */
  cost: Cost;
  /** Why the price table is empty (a bad GNL_PRICES_FILE); null when it is not. */
  pricesProblem: string | null;
  oldestWaiting: { runId: string; status: string; agent: string | null; since: string; item?: Pick<PendingItem, 'kind' | 'toolName'> } | null;
}

/** The UTC days from `since` through `until`, as YYYY-MM-DD. */
export function daysBetween(since: Date, until: Date): string[] {
  const days: string[] = [];
  const day = new Date(Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate()));
  while (day.getTime() <= until.getTime()) {
    days.push(day.toISOString().slice(0, 10));
    day.setUTCDate(day.getUTCDate() + 1);
  }
  return days;
}

/** Rows of (day, series, value) as one row per day of `days` with every series of `series`, missing ones 0. */
export function pivotByDay<R extends { day: string }>(rows: readonly R[], days: readonly string[], series: (row: R) => string, value: (row: R) => number) {
  const names = [...new Set(rows.map(series))].sort();
  const byDay = new Map<string, DayRow>(days.map((day) => [day, { day, ...Object.fromEntries(names.map((n) => [n, 0])) }]));
  for (const row of rows) {
    const target = byDay.get(row.day);
    if (target) target[series(row)] = Number(target[series(row)] ?? 0) + value(row);
  }
  return { names, rows: [...byDay.values()] };
}

/** When a waiting run's oldest undecided item began waiting: its request, or its uncertain attempt's start. */
export function waitingSince(pending: readonly PendingItem[], fallback: string): { since: string; item?: PendingItem } {
  const open = pending.filter((item) => !item.decision);
  const at = (item: PendingItem) => (item.kind === 'side-effect' ? item.startedAt : item.requestedAt);
  const oldest = [...open].sort((a, b) => Date.parse(at(a)) - Date.parse(at(b)))[0];
  return oldest ? { since: at(oldest), item: oldest } : { since: fallback };
}
