/**
 * Rows of usage-sql.ts's modelTokenSumsSql, checked with zod at this edge and turned into the core's
 * ModelTokens (what lib/cost prices). Server-side: the rows come from the journal's database.
 */
import { z } from 'zod';
import type { ModelTokens } from '@/lib/durable/projection';

const num = z.coerce.number();

/** One row: a model's billed tokens in a group (a run, an agent's day). */
export const modelTokensRow = z.object({
  provider: z.string(),
  model_id: z.string(),
  steps: num,
  unmetered: num,
  uncached_input: num,
  cache_read: num,
  cache_write: num,
  output: num,
  reasoning: num,
});

export type ModelTokensRow = z.infer<typeof modelTokensRow>;

export function toModelTokens(row: ModelTokensRow): ModelTokens {
  return {
    provider: row.provider,
    modelId: row.model_id,
    steps: row.steps,
    unmetered: row.unmetered,
    uncachedInput: row.uncached_input,
    cacheRead: row.cache_read,
    cacheWrite: row.cache_write,
    output: row.output,
    reasoning: row.reasoning,
  };
}

/** Rows grouped by a key of theirs (a run id, an agent's day), each group's models in row order. */
export function groupModelTokens<R extends ModelTokensRow>(rows: readonly R[], key: (row: R) => string): Map<string, ModelTokens[]> {
  const groups = new Map<string, ModelTokens[]>();
  for (const row of rows) {
    const k = key(row);
    groups.set(k, [...(groups.get(k) ?? []), toModelTokens(row)]);
  }
  return groups;
}
