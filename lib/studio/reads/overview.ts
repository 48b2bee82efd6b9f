/**
 * The Overview page's read (server-only): the five statements of overview-sql.ts on the journal the
 * environment names, their rows checked with zod at this edge and shaped for the charts (overview-shape.ts).
 */
import 'server-only';
import type { SQL } from 'drizzle-orm';
import { z } from 'zod';
import { addCosts, costOf, costUsd, NO_COST, type PriceTable } from '@/lib/cost';
import { pagePriceTable } from '@/lib/cost/price-file';
import type { PendingItem } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { groupModelTokens, type ModelTokensRow, modelTokensRow } from './model-token-rows';
import {
  decisionTimesStatement,
  modelTokensByAgentDayStatement,
  oldestWaitingStatement,
  type OverviewScope,
  statusByDayStatement,
  tokensByAgentDayStatement,
} from './overview-sql';
import { daysBetween, type Overview, pivotByDay, waitingSince } from './overview-shape';

const num = z.coerce.number();
const statusRow = z.object({ day: z.string(), status: z.string(), runs: num });
const decisionRow = z.object({ decisions: num, median_s: num.nullable(), p90_s: num.nullable() });
const tokenRow = z.object({ day: z.string(), agent: z.string(), tokens: num });
const costRow = modelTokensRow.extend({ day: z.string(), agent: z.string() });
const waitingRow = z.object({
  run_id: z.string(),
  status: z.string(),
  agent: z.string().nullable(),
  pending: z.array(z.looseObject({ kind: z.string() })),
  updated_at: z.union([z.date(), z.string()]),
});

export interface OverviewDb {
  execute(statement: SQL): Promise<unknown>;
}

async function rows(db: OverviewDb, statement: SQL): Promise<unknown[]> {
  const result = await db.execute(statement);
  return Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
}

const agentName = (agent: string) => agent || '(no agent)';

/** Cost per agent per day (the known part, USD) and per agent over the window, priced with `prices`. */
function costs(rows: readonly (ModelTokensRow & { day: string; agent: string })[], days: readonly string[], prices: PriceTable) {
  const byDay = [...groupModelTokens(rows, (r) => JSON.stringify([r.day, r.agent])).entries()].map(([key, models]) => {
    const [day, agent] = JSON.parse(key) as [string, string];
    return { day, agent, usd: costUsd(costOf(models, prices)) };
  });
  const byAgent = [...groupModelTokens(rows, (r) => r.agent).entries()]
    .map(([agent, models]) => ({ agent: agentName(agent), cost: costOf(models, prices) }))
    .sort((a, b) => a.agent.localeCompare(b.agent));
  return {
    costByDay: pivotByDay(
      byDay,
      days,
      (r) => agentName(r.agent),
      (r) => r.usd,
    ).rows,
    costByAgent: byAgent,
    cost: byAgent.reduce((sum, a) => addCosts(sum, a.cost), NO_COST),
  };
}

/** The overview of the last `days` UTC days (today included), of every agent or one; costs under `prices` (default: the Studio's table). */
export async function readOverview(db: OverviewDb, options: { days: number; agent?: string; now?: Date; prices?: PriceTable }): Promise<Overview> {
  const now = options.now ?? new Date();
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (options.days - 1)));
  const scope: OverviewScope = { since: first.toISOString(), ...(options.agent !== undefined ? { agent: options.agent } : {}) };
  const days = daysBetween(first, now);
  const prices = options.prices ?? pagePriceTable();
  const [status, decided, tokens, waiting, billed] = await Promise.all([
    rows(db, statusByDayStatement(scope)).then((r) => z.array(statusRow).parse(r)),
    rows(db, decisionTimesStatement(scope)).then((r) => decisionRow.parse(r[0])),
    rows(db, tokensByAgentDayStatement(scope)).then((r) => z.array(tokenRow).parse(r)),
    rows(db, oldestWaitingStatement(scope)).then((r) => (r[0] === undefined ? undefined : waitingRow.parse(r[0]))),
    rows(db, modelTokensByAgentDayStatement(scope)).then((r) => z.array(costRow).parse(r)),
  ]);
  const byStatus = pivotByDay(
    status,
    days,
    (r) => r.status,
    (r) => r.runs,
  );
  const byAgent = pivotByDay(
    tokens,
    days,
    (r) => agentName(r.agent),
    (r) => r.tokens,
  );
  const oldest = waiting ? waitingSince(waiting.pending as unknown as PendingItem[], new Date(waiting.updated_at).toISOString()) : undefined;
  return {
    since: first.toISOString().slice(0, 10),
    days: options.days,
    statuses: byStatus.names,
    statusByDay: byStatus.rows,
    decisions: { count: decided.decisions, medianS: decided.median_s, p90S: decided.p90_s },
    agents: byAgent.names,
    tokensByDay: byAgent.rows,
    ...costs(billed, days, prices),
    pricesProblem: prices.problem ?? null,
    oldestWaiting:
      waiting && oldest
        ? {
            runId: waiting.run_id,
            status: waiting.status,
            agent: waiting.agent,
            since: oldest.since,
            ...(oldest.item ? { item: { kind: oldest.item.kind, toolName: oldest.item.toolName } } : {}),
          }
        : null,
  };
}

/** The overview on the Studio's journal. */
export async function loadOverview(options: { days: number; agent?: string }): Promise<Overview> {
  // Charts may lag a moment: on the read replica when one is set (GNL_READ_DATABASE_URL, read-replica.ts).
  return storageFromEnv().readReplica((db) => readOverview(db as unknown as OverviewDb, options));
}
