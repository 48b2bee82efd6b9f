/**
 * The core's token-usage reader (lib/durable/usage/model-usage.ts) as SQL over a jsonb `usage`, built from
 * the same USAGE_PATHS: each count is the first path holding a JSON number, as readTokenUsage reads it,
 * so the runs page's sums and the Studio's and CLI's counts cannot drift (usage-sql.test.ts compares
 * them on both databases). Pure SQL building (drizzle `sql`); never throws on a junk payload.
 */
import { type SQL, sql } from 'drizzle-orm';
import { MAX_TOKEN_COUNT, TOTAL_COUNTS, USAGE_PATHS, type UsageCount } from '@/lib/durable/usage';

const KEY = /^[A-Za-z]+$/;

/** `'{a,b}'`: a path of the core's constant keys (checked, so nothing but a letter reaches the raw text). */
function pathLiteral(path: readonly string[]): SQL {
  for (const key of path) if (!KEY.test(key)) throw new Error(`USAGE_PATHS key "${key}" is not a plain name.`);
  return sql.raw(`'{${path.join(',')}}'`);
}

/** One count of a usage object, as numeric; null when no path holds a number (not reported). */
export function usageCountSql(usage: SQL, count: UsageCount): SQL {
  const tries = USAGE_PATHS[count].map((path) => {
    const value = sql`(${usage} #> ${pathLiteral(path)})`;
    // A number within the core's bounds (isTokenCount); junk beyond them reads as not reported.
    return sql`case when jsonb_typeof(${value}) = 'number' and ${value}::numeric between 0 and ${sql.raw(String(MAX_TOKEN_COUNT))} then ${value}::numeric end`;
  });
  return sql`coalesce(${sql.join(tries, sql`, `)})`;
}

/** Tokens a model-step payload reports: the core's TOTAL_COUNTS (input plus output), 0 for one not reported. */
export function stepTokensSql(payload: SQL): SQL {
  const usage = sql`(${payload}->'result'->'usage')`;
  return sql`(${sql.join(
    TOTAL_COUNTS.map((count) => sql`coalesce(${usageCountSql(usage, count)}, 0)`),
    sql` + `,
  )})`;
}

/**
 * The core's billed tokens of a model-step payload (billedTokens, and ModelTokens' `reasoning` and
 * `unmetered`), as SQL expressions: uncached input is `noCache`, else the input total less cache reads
 * and writes (never below 0); a count not reported adds 0; a step is unmetered without input or output.
 */
export function billedTokensSql(payload: SQL): Record<'uncachedInput' | 'cacheRead' | 'cacheWrite' | 'output' | 'reasoning' | 'unmetered', SQL> {
  const usage = sql`(${payload}->'result'->'usage')`;
  const count = (c: UsageCount) => usageCountSql(usage, c);
  const zeroIfNone = (c: UsageCount) => sql`coalesce(${count(c)}, 0)`;
  return {
    uncachedInput: sql`coalesce(${count('noCache')}, greatest(0, ${zeroIfNone('input')} - ${zeroIfNone('cacheRead')} - ${zeroIfNone('cacheWrite')}))`,
    cacheRead: zeroIfNone('cacheRead'),
    cacheWrite: zeroIfNone('cacheWrite'),
    output: zeroIfNone('output'),
    reasoning: zeroIfNone('reasoning'),
    unmetered: sql`(case when ${count('input')} is null or ${count('output')} is null then 1 else 0 end)`,
  };
}

/**
 * Select-list items summing model-step events (alias `e`) per model, for a `group by` on provider and
 * model_id: `provider, model_id, steps, unmetered, uncached_input, cache_read, cache_write, output, reasoning`.
 */
export function modelTokenSumsSql(): SQL {
  const billed = billedTokensSql(sql`e.payload`);
  return sql`coalesce(e.payload->>'provider', '') as provider, coalesce(e.payload->>'modelId', '') as model_id, count(*)::int as steps,
    sum(${billed.unmetered})::int as unmetered, sum(${billed.uncachedInput})::float8 as uncached_input,
    sum(${billed.cacheRead})::float8 as cache_read, sum(${billed.cacheWrite})::float8 as cache_write,
    sum(${billed.output})::float8 as output, sum(${billed.reasoning})::float8 as reasoning`;
}
