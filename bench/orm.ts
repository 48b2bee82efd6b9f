/**
 * Figure 1b, the ORM on the hot path: bench/append.ts (one append through drizzle's execute(sql`…`)
 * against the raw prepared statement the journal sends, the same SQL text), run as a child on the
 * bench database with fewer rounds.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, spawnTsx } from './children';
import type { BenchContext, FigureResult } from './report-types';
import { ratio } from './stats';

export async function ormVsRaw(ctx: BenchContext): Promise<FigureResult> {
  const child = spawnTsx(path.join(ROOT, 'bench', 'append.ts'), [], {
    DATABASE_URL: ctx.url,
    BENCH_ROUNDS: ctx.quick ? '1' : '3',
    BENCH_PER_ROUND: ctx.quick ? '60' : '150',
  });
  const code = await child.exited;
  if (code !== 0) throw new Error(`bench/append.ts exited ${code}: ${child.stderr().slice(-1500)}`);
  const { results } = JSON.parse(readFileSync(path.join(ROOT, 'bench', 'results', 'append.json'), 'utf8')) as {
    results: { variant: string; n: number; medianMs: number; p90Ms: number; p99Ms: number }[];
  };
  const drizzle = results.find((r) => r.variant.startsWith('postgres: drizzle'));
  const raw = results.find((r) => r.variant.startsWith('postgres: raw prepared (postgres.js'));
  const journal = results.find((r) => r.variant.includes('(the journal)') && r.variant.startsWith('postgres'));
  return {
    id: '1b',
    title: 'The ORM on the hot path: one append through drizzle and through the raw prepared statement',
    rows: results.map((r) => ({ variant: r.variant, n: r.n, median: r.medianMs, p90: r.p90Ms, p99: r.p99Ms })),
    goals:
      drizzle && raw
        ? [
            {
              goal: 'raw prepared SQL on the hot path if the ORM costs a measurable share of the step overhead',
              measured: `drizzle ${drizzle.medianMs} ms, raw prepared ${raw.medianMs} ms (${ratio(drizzle.medianMs, raw.medianMs)}×); the journal's fenced append ${journal?.medianMs} ms. The hot path is raw prepared statements already`,
              met: true,
            },
          ]
        : [],
    notes: [
      'drizzle’s execute on postgres.js sends a parameterised statement unprepared (described first: two round trips); the journal sends its appends as named prepared statements (one round trip). Listings, migrations and the Studio’s queries keep drizzle.',
    ],
  };
}
