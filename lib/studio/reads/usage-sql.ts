/**
 * The core's token-usage reader (lib/durable/model-usage.ts) as SQL over a jsonb `usage`, built from
 * the same USAGE_PATHS: each count is the first path holding a JSON number, as readTokenUsage reads it,
 * so the runs page's sums and the Studio's and CLI's counts cannot drift (usage-sql.test.ts compares
 * them on both databases). Pure SQL building (drizzle `sql`); never throws on a junk payload.
 */
import { type SQL, sql } from 'drizzle-orm';
import { TOTAL_COUNTS, USAGE_PATHS, type UsageCount } from '@/lib/durable/model-usage';

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
    return sql`case when jsonb_typeof(${value}) = 'number' then ${value}::numeric end`;
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
