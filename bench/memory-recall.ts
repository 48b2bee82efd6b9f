/**
 * `npm run bench:recall [-- --quick]`: memory recall latency (docs/memory.md) on both journals, by the
 * exact search (a resource's embeddings read in batches and scored in the process, no extension): one resource holding
 * 10,000 and 100,000 facts (--quick: 1,000 and 10,000), with 256-dimension embeddings (and 1,536, an
 * OpenAI text-embedding-3-small's, at the smaller size), top 5. The rows are random unit vectors, 500 a
 * statement; each figure is the median and p90 of 15 searches after 2 warm-ups. Written to
 * bench/results/recall-<timestamp>.json. Databases of its own: `gnl_bench_recall` (dropped and created)
 * on the server of DATABASE_URL (default postgres://postgres@127.0.0.1:5432), PGlite in a temporary folder.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { unitVector } from '../lib/durable';
import type { Storage } from '../lib/durable/storage';
import { query } from '../lib/durable/storage/sql-rows';
import { onBothJournals } from './both-journals';
import { summary } from './stats';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [1_000, 10_000] : [10_000, 100_000];
const RUNS = 15;
const DB = 'gnl_bench_recall';

async function fill(storage: Storage, resource: string, count: number, dims: number): Promise<number> {
  const started = performance.now();
  const db = await storage.database();
  // Random unit vectors made here, as the store writes them (float32 bytes), 500 rows a statement.
  for (let from = 0; from < count; from += 500) {
    const values = [];
    for (let n = from; n < Math.min(from + 500, count); n++) {
      const floats = Float32Array.from(unitVector(Array.from({ length: dims }, () => Math.random() - 0.5)));
      const bytes = new Uint8Array(floats.buffer);
      values.push(sql`(${resource}, 'fact', ${`fact ${n}`}, ${bytes}, ${`${resource}:${n}`}, 0)`);
    }
    await query(db, sql`insert into gnl.memory_items (resource, kind, text, embedding, key, ordinal) values ${sql.join(values, sql`, `)}`);
  }
  return performance.now() - started;
}

async function searchMs(storage: Storage, resource: string, dims: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const embedding = unitVector(Array.from({ length: dims }, () => Math.random() - 0.5));
    const started = performance.now();
    const found = await storage.memory.search({ resource, embedding, topK: 5 });
    const ms = performance.now() - started;
    if (found.length !== 5) throw new Error(`recall found ${found.length} items, not 5`);
    if (i >= 2) samples.push(ms);
  }
  return samples;
}

const rows: { journal: string; items: number; dims: number; fillMs: number; medianMs: number; p90Ms: number }[] = [];
async function measure(name: string, storage: Storage) {
  const cases = [...SIZES.map((items) => ({ items, dims: 256 })), { items: SIZES[0] as number, dims: 1536 }];
  for (const { items, dims } of cases) {
    const resource = `bench-${items}-${dims}`;
    const fillMs = await fill(storage, resource, items, dims);
    const s = summary(await searchMs(storage, resource, dims));
    rows.push({ journal: name, items, dims, fillMs: Math.round(fillMs), medianMs: s.median, p90Ms: s.p90 });
    console.log(`[bench:recall] ${name}: ${items} items × ${dims} dims: median ${s.median} ms, p90 ${s.p90} ms (filled in ${Math.round(fillMs)} ms)`);
  }
}

await onBothJournals(DB, measure);
const results = path.join(import.meta.dirname, 'results');
mkdirSync(results, { recursive: true });
const file = path.join(results, `recall-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ at: new Date().toISOString(), node: process.version, cores: os.cpus().length, loadAverage: os.loadavg(), quick, rows }, null, 2)}\n`,
);
console.log(
  [
    '',
    '| journal | items | dims | recall median | p90 |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.journal} | ${r.items} | ${r.dims} | ${r.medianMs} ms | ${r.p90Ms} ms |`),
  ].join('\n'),
);
console.log(`[bench:recall] results: ${path.relative(process.cwd(), file)}`);
