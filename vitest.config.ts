import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { CHILD_NODE_FLAGS } from './tests/support/child-bundles';
import SlowFirstSequencer from './tests/support/slow-first-sequencer';

const TEST_FILES = [
  'lib/**/*.test.ts',
  'db/**/*.test.ts',
  'e2e/{crash,explorer,faults}/**/*.test.ts',
  'tests/**/*.test.ts',
  'packages/**/*.test.ts',
  'docs/**/*.test.ts',
];

/**
 * Files that run in a worker of their own (vitest's isolate), each in a fresh one. Sharing the module
 * cache once cut the run from 836 s to 636 s, but these leaked into the files after them (docs/testing.md):
 * - the Studio's that run Next's request code or set the env (Next's AsyncLocalStorage and request context
 *   are process-wide); the Studio's pure reads, forms and auth helpers share a worker like any other file;
 * - the hold-session and notification-crash suites (a connection's session and process handlers outlive the file);
 * - the SIGKILL crash, explorer and fault suites (long, spawning processes: loading is a small share of them).
 */
const FRESH_WORKER = [
  'lib/studio/actions/memory-actions.test.ts',
  'lib/studio/actions/decide-action.test.ts',
  'lib/studio/auth/security-audit.test.ts',
  'lib/studio/auth/security-routes.test.ts',
  'lib/studio/live/stream-limits.test.ts',
  'lib/studio/reads/run-export.test.ts',
  'lib/studio/reads/runs.test.ts',
  'lib/accounts/arrows.test.ts',
  'lib/durable/storage/hold-session.test.ts',
  'lib/executor/notifications/notify-crash.test.ts',
  'e2e/{crash,explorer,faults}/**/*.test.ts',
];

export default defineConfig({
  resolve: {
    alias: [
      // The docs' examples import the core by its package name (packages/durable); here that name is the source.
      { find: /^@gnldev\/durable$/, replacement: path.resolve(import.meta.dirname, 'lib/durable/index.ts') },
      { find: /^@gnldev\/durable\/(storage|postgres)$/, replacement: path.resolve(import.meta.dirname, 'lib/durable/storage/index.ts') },
      { find: '@', replacement: path.resolve(import.meta.dirname) },
      // Next's marker for server-only modules (lib/studio): outside Next it is an empty module, as on the server.
      { find: /^server-only$/, replacement: path.resolve(import.meta.dirname, 'node_modules/next/dist/compiled/server-only/empty.js') },
    ],
  },
  test: {
    // The child processes the suites spawn, precompiled once for the run (tests/support/child-bundles.ts).
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Crash tests spawn child processes and share the Postgres server; keep the machine's 2 cores usable.
    maxWorkers: 2,
    // Two projects: most files share their worker's module cache (loading the AI SDK, drizzle and the
    // runtime once per worker, not once per file); the files that change what a process holds (Next's
    // request storage, the env, process-wide handlers, SIGKILLed children) each get a fresh worker.
    projects: [
      { extends: true, test: { name: 'shared', include: TEST_FILES, exclude: [...configDefaults.exclude, ...FRESH_WORKER], isolate: false } },
      { extends: true, test: { name: 'fresh', include: FRESH_WORKER, isolate: true } },
    ],
    // Workers run with the same V8 flags as the processes the tests start (CHILD_NODE_FLAGS, child-bundles.ts).
    execArgv: [...CHILD_NODE_FLAGS],
    // The slowest files first, also on a fresh clone with no cached durations (slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // Per-file durations of every run, for the profile in docs/testing.md (scripts/suite-profile.mjs reads it);
    // the quick suite writes its own folder (GNL_TEST_RESULTS, scripts/test.mjs), not over the whole suite's.
    reporters: ['default', ['json', { outputFile: `${process.env.GNL_TEST_RESULTS || 'test-results'}/vitest.json` }]],
  },
});
