/**
 * `node bench/pglite-open.mjs [rounds]`: what opening an embedded journal's data folder costs a fresh
 * process, with PGlite's default start parameters and with the embedded journal's own
 * (lib/durable/storage/pglite-storage.ts: 16 MB of shared buffers; 32 MB before, for comparison). Each round is a new process that
 * opens the folder, reads once and closes: its wall time to ready and its CPU (user + system).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const rounds = Number(process.argv[2] ?? 8);
const pglite = pathToFileURL(path.resolve(import.meta.dirname, '../node_modules/@electric-sql/pglite/dist/index.js')).href;
const child = (params) => `
  const { PGlite } = await import(${JSON.stringify(pglite)});
  const started = performance.now();
  const db = new PGlite({ dataDir: process.env.DIR, startParams: [...PGlite.defaultStartParams, ...${JSON.stringify(params)}] });
  await db.waitReady;
  const ready = performance.now() - started;
  await db.query('select 1');
  await db.close();
  const cpu = process.cpuUsage();
  console.log(JSON.stringify({ ready, cpu: (cpu.user + cpu.system) / 1000 }));
`;

const dir = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-bench-pglite-')), 'data');
try {
  const init = spawnSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', child([])], {
    env: { ...process.env, DIR: dir },
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  for (const [name, params] of [
    ['PGlite defaults (128 MB shared buffers)', []],
    ['32 MB shared buffers (the embedded journal before)', ['-c', 'shared_buffers=32MB']],
    ['embedded journal (16 MB shared buffers)', ['-c', 'shared_buffers=16MB']],
  ]) {
    const samples = [];
    for (let i = 0; i < rounds; i++) {
      const run = spawnSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', child(params)], {
        env: { ...process.env, DIR: dir },
        encoding: 'utf8',
      });
      if (run.status !== 0) throw new Error(`${name}: ${run.stderr}`);
      samples.push(JSON.parse(run.stdout.trim()));
    }
    const ready = median(samples.map((s) => s.ready));
    const cpu = median(samples.map((s) => s.cpu));
    console.log(`${name.padEnd(42)} ready ${ready.toFixed(0).padStart(4)} ms, process CPU ${cpu.toFixed(0).padStart(4)} ms (median of ${rounds})`);
  }
} finally {
  rmSync(path.dirname(dir), { recursive: true, force: true });
}
