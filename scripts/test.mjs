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
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { setPriority } from 'node:os';
import path from 'node:path';
import { failureSummary } from './failure-summary.mjs';
import { ensureSupportedNode } from './node-lts.mjs';
import { openRunTemp } from './run-temp.mjs';

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
let status = 0;
const failed = [];
const results = path.join(root, quick ? 'test-results/quick' : process.env.GNL_TEST_RESULTS || 'test-results');

/**
 * The Studio's build for the Playwright half, made while vitest runs, at the lowest CPU priority (nice 19):
 * vitest keeps the cores, and the build takes the moments they idle (the suites wait for leases, timers,
 * children and Postgres). Playwright's launcher (e2e/studio/start-studios.mjs) then finds the build up to
 * date (scripts/studio.mjs) and starts seeding and serving at once, where it built for about 40 s before its
 * first test. A build that fails here is built again by the launcher, which reports why; this says so too.
 */
function buildStudioBehind() {
  const saved = process.env.TMPDIR;
  const temp = openRunTemp();
  const env = { ...process.env, NODE_COMPILE_CACHE: compileCache };
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  mkdirSync(results, { recursive: true });
  const logFile = path.join(results, 'studio-build.log');
  // Straight into a file: this process blocks in spawnSync while vitest runs, so a pipe to it would fill and stall the build.
  const log = openSync(logFile, 'w');
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'studio.mjs'), '--build-only'], { cwd: root, env, stdio: ['ignore', log, log] });
  closeSync(log);
  try {
    setPriority(child.pid, 19);
  } catch (error) {
    console.log(`gnl test: the Studio's build runs beside vitest at normal priority (${error.message})`);
  }
  const done = new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: 1, error }));
    child.on('close', (code) => resolve({ code }));
  });
  return async () => {
    const { code, error } = await done;
    temp.close();
    // When it ended: its log's last write (this process could not watch while vitest ran).
    const seconds = Math.round((statSync(logFile).mtimeMs - started) / 1000);
    if (code === 0)
      console.log(`gnl test: the Studio was built beside vitest at low priority, done ${seconds} s after the start (${path.relative(root, logFile)})`);
    else
      console.log(
        `gnl test: the Studio's build beside vitest failed (${error?.message ?? `exit ${code}`}; ${path.relative(root, logFile)}): Playwright builds it again`,
      );
  };
}
const studioBuilt = quick ? undefined : buildStudioBehind();

for (const [command, args, env] of steps) {
  // Playwright serves the build made beside vitest: waited for here (it has most often finished by then).
  if (command === bin('playwright') && studioBuilt) await studioBuilt();
  // A report left by an earlier run must not be read as this one's (failure-summary.mjs).
  rmSync(path.join(results, `${path.basename(command)}.json`), { force: true });
  const started = performance.now();
  // Each step in a TMPDIR of its own, removed after it (run-temp.mjs): a whole run left 5.5 GB in /tmp.
  const temp = openRunTemp();
  let result;
  try {
    result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_COMPILE_CACHE: compileCache, ...env } });
  } finally {
    temp.close();
  }
  const seconds = Math.round((performance.now() - started) / 1000);
  console.log(`gnl test: ${path.basename(command)} ${result.status === 0 ? 'passed' : 'FAILED'} in ${seconds} s`);
  if (result.status !== 0) failed.push(path.basename(command));
  if (result.status !== 0 && status === 0) status = result.status ?? 1;
}
// What failed, last: a log read from its end shows it (failure-summary.mjs).
for (const line of failureSummary(results, failed, root)) console.log(line);
process.exit(status);
