/**
 * What the runs on a page cost: their model steps' billed tokens summed per run and model in one
 * statement (each run's events read on the primary key's run_id range), priced with lib/cost.
 */
import { type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { type Cost, costOf, type PriceTable } from '@/lib/cost';
import { groupModelTokens, modelTokensRow } from './model-token-rows';
import { modelTokenSumsSql } from './usage-sql';

export interface CostDb {
  execute(statement: SQL): Promise<unknown>;
}

const runRow = modelTokensRow.extend({ run_id: z.string() });

/** Rows `{ run_id, provider, model_id, steps, … }` for these runs' model steps. */
export function runModelTokensStatement(runIds: readonly string[]): SQL {
  const ids = sql.join(
    runIds.map((id) => sql`${id}`),
    sql`, `,
  );
  return sql`select e.run_id, ${modelTokenSumsSql()}
    from gnl.run_events e where e.run_id in (${ids}) and e.type = 'model-step'
    group by e.run_id, 2, 3 order by e.run_id, min(e.seq)`;
}

/** Each run's cost under `prices` (a run without model steps: nothing, $0). */
export async function runCosts(db: CostDb, runIds: readonly string[], prices: PriceTable): Promise<Map<string, Cost>> {
  if (runIds.length === 0) return new Map();
  const result = await db.execute(runModelTokensStatement(runIds));
  const rows = z.array(runRow).parse(Array.isArray(result) ? result : (result as { rows: unknown[] }).rows);
  const byRun = groupModelTokens(rows, (row) => row.run_id);
  return new Map(runIds.map((id) => [id, costOf(byRun.get(id) ?? [], prices)]));
}
