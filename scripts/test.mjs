/**
 * `npm test`: every test. vitest (unit, journal, SIGKILL crash, explorer and fault suites, on PGlite and,
 * with DATABASE_URL, on Postgres), then Playwright (the Studio in a real Chromium). Both run even when
 * the first fails, so one run reports everything; the exit status is the first failure's.
 *
 * `npm run test:quick` (`--quick`): the inner loop, under 2 minutes: the core contract on PGlite, the
 * projection, the schemas and one Studio smoke in Chromium. What it leaves out: docs/testing.md.
 *
 * On a Node older than 22 it first switches to the pinned Node 24 LTS (node-lts.mjs). The Node it runs
 * on is printed first, so a CI log says which Node the suite was tested on.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { ensureSupportedNode } from './node-lts.mjs';

ensureSupportedNode(import.meta.filename);

const root = path.resolve(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

/** The quick suite's files: what a change to the core most often breaks, in seconds, not minutes. */
export const QUICK_VITEST = [
  'lib/durable/storage/journal-contract.test.ts',
  'lib/durable/projection/run-projection.property.test.ts',
  'lib/durable/journal/event-schemas.test.ts',
  'lib/durable/tools/side-effects.test.ts',
  'lib/durable/run/run-durable.test.ts',
  'db/migrations.test.ts',
];

// vitest runs whatever of its filters it finds: a moved file must fail here, not shrink the quick suite.
const missing = QUICK_VITEST.filter((file) => !existsSync(path.join(root, file)));
if (quick && missing.length > 0) {
  console.error(`gnl test: the quick suite names files that do not exist: ${missing.join(', ')} (scripts/test.mjs)`);
  process.exit(1);
}

console.log(`gnl test: Node ${process.version} (${process.execPath})${quick ? ', quick suite' : ''}`);
const steps = quick
  ? [
      [bin('vitest'), ['run', ...QUICK_VITEST], { DATABASE_URL: '', CI: '', GNL_TEST_RESULTS: 'test-results/quick' }],
      [bin('playwright'), ['test', '--project=smoke'], { GNL_E2E_SMOKE: '1', GNL_TEST_RESULTS: 'test-results/quick' }],
    ]
  : [
      [bin('vitest'), ['run'], {}],
      [bin('playwright'), ['test'], {}],
    ];
// Node's on-disk code cache for every process of the run (vitest's workers, the ~800 children, the
// Studios): each bundle is compiled once, not once per process. Node checks each entry against its
// source, so a changed file is compiled afresh. Measured per child: 0.24 → 0.20 CPU-s (docs/testing.md).
const compileCache = process.env.NODE_COMPILE_CACHE || path.join(root, 'node_modules', '.cache', 'gnl-test-compile');
// The whole suite: the Studio's production build (Playwright's first need) starts now, beside vitest, at
// the lowest CPU priority, so it takes the cores vitest leaves idle (its last minutes run one file on one
// core) rather than the time after it. Playwright's launcher then finds the build up to date
// (scripts/studio.mjs compares it with its sources). Its output goes to test-results/prebuild.log.
const prebuild = quick || process.env.GNL_TEST_PREBUILD === '0' ? undefined : startPrebuild();
let status = 0;
for (const [command, args, env] of steps) {
  // Two builds into one .next would corrupt it: Playwright starts once the early one is over.
  if (command === bin('playwright') && prebuild) await prebuild;
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_COMPILE_CACHE: compileCache, ...env } });
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(`gnl test: ${path.basename(command)} ${result.status === 0 ? 'passed' : 'FAILED'} in ${seconds} s`);
  if (result.status !== 0 && status === 0) status = result.status ?? 1;
}
process.exit(status);

/** `node scripts/studio.mjs --build-only` in the background at nice 19; resolves (never rejects) when it ends, saying how. */
function startPrebuild() {
  const log = path.join(root, process.env.GNL_TEST_RESULTS || 'test-results', 'prebuild.log');
  mkdirSync(path.dirname(log), { recursive: true });
  // A file, not a pipe: vitest runs under spawnSync, which blocks this process's loop, and a full pipe would stall the build.
  const out = openSync(log, 'w');
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'studio.mjs'), '--build-only'], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  try {
    setPriority(child.pid, 19); // its workers, started later, inherit it
  } catch (error) {
    console.log(`gnl test: the early build runs at normal priority (${error.message})`);
  }
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const seconds = Math.round((performance.now() - started) / 1000);
      // A failed early build is not the suite's failure: Playwright's launcher builds again and says why.
      console.log(`gnl test: the Studio's early build ${code === 0 ? 'finished' : `failed (${signal ?? `exit ${code}`}; ${log})`} after ${seconds} s`);
      resolve(code === 0);
    });
    child.on('error', (error) => {
      console.log(`gnl test: the Studio's early build could not start: ${error.message}`);
      resolve(false);
    });
  });
}
