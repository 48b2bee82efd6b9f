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
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
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
for (const [command, args, env] of steps) {
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
