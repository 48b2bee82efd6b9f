/**
 * `npx tsx bench/bulk.ts [runs]`: a bulk cancel at scale (docs/bulk-actions.md), on both journals: `runs`
 * queued runs of one agent (default 2,000) started, then the dry run that counts and snapshots them and the
 * cancel that journals each with who and why, timed; every run is checked canceled after. The suite's
 * bulk test covers the same paths (paging included) with fewer runs; scale is measured here, not there.
 * Databases of its own: `gnl_bench_bulk` (dropped and created) on the server of DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432), PGlite in a temporary folder. Written to bench/results/bulk-<timestamp>.json.
 */
import os from 'node:os';
import { supportAgent } from '../agents/support';
import { createAgentRegistry } from '../lib/agents';
import { startOutsideService } from '../lib/demo';
import type { Storage } from '../lib/durable/storage';
import { applyBulk, previewBulk, startRun } from '../lib/executor';
import { onBothJournals } from './both-journals';
import { printTable, writeResults } from './stats';

const RUNS = Number(process.argv[2] ?? 2_000);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`runs: a positive whole number, not ${process.argv[2]}`);
const DB = 'gnl_bench_bulk';
const OPS = 'bench@example.com';

const service = await startOutsideService();
const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
const rows: Record<string, unknown>[] = [];

async function measure(journal: string, storage: Storage): Promise<void> {
  const t0 = performance.now();
  for (let n = 0; n < RUNS; n++) await startRun({ storage, registry, agent: 'support', input: { prompt: `Customer c_7 has question ${n}` } });
  const t1 = performance.now();
  const preview = await previewBulk({ storage, action: 'cancel', by: OPS, filter: { agent: 'support' } });
  const t2 = performance.now();
  const applied = await applyBulk({ storage, previewId: preview.previewId, action: 'cancel', by: OPS, reason: 'bench' });
  const t3 = performance.now();
  if (preview.counts.wouldChange !== RUNS || applied.counts.changed !== RUNS)
    throw new Error(`expected ${RUNS} runs, got ${JSON.stringify({ preview: preview.counts, applied: applied.counts })}`);
  // Every run canceled, by the journal's own count (the running ones left: none).
  const left = await storage.runs.listRuns({ status: 'running', limit: 1 });
  if (left.runs.length > 0) throw new Error(`run ${left.runs[0]?.runId} is still running after the cancel`);
  const row = {
    journal,
    runs: RUNS,
    startMs: Math.round(t1 - t0),
    dryRunMs: Math.round(t2 - t1),
    cancelMs: Math.round(t3 - t2),
    cancelPerRunMs: Number(((t3 - t2) / RUNS).toFixed(2)),
  };
  rows.push(row);
  console.log(`[bench:bulk] ${journal}: ${RUNS} runs started in ${row.startMs} ms; dry run ${row.dryRunMs} ms; cancel ${row.cancelMs} ms`);
}

try {
  await onBothJournals(DB, measure);
} finally {
  await service.close();
}
printTable(
  `bulk cancel of ${RUNS} queued runs (load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')})`,
  rows,
);
console.log(
  `[bench:bulk] results: ${writeResults('bulk', { at: new Date().toISOString(), node: process.version, cores: os.cpus().length, loadAverage: os.loadavg(), rows })}`,
);
