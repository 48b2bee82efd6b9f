import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { CHILD_NODE_FLAGS } from './tests/support/child-bundles';
import SlowFirstSequencer from './tests/support/slow-first-sequencer';

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
    include: [
      'lib/**/*.test.ts',
      'db/**/*.test.ts',
      'e2e/{crash,explorer,faults}/**/*.test.ts',
      'tests/**/*.test.ts',
      'packages/**/*.test.ts',
      'docs/**/*.test.ts',
    ],
    // The child processes the suites spawn, precompiled once for the run (tests/support/child-bundles.ts).
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Crash tests spawn child processes and share the Postgres server; keep the machine's 2 cores usable.
    maxWorkers: 2,
    // Each file in a fresh worker (vitest's default). Sharing the module cache (isolate: false) cut the
    // run from 836 s to 636 s once, but in another file order (a fresh clone's) state leaked between files:
    // Next's AsyncLocalStorage invariant, the hold-session and notify-crash suites failed. docs/testing.md.
    isolate: true,
    // Workers run with the same V8 flags as the processes the tests start (CHILD_NODE_FLAGS, child-bundles.ts).
    execArgv: [...CHILD_NODE_FLAGS],
    // The slowest files first, also on a fresh clone with no cached durations (slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    // Per-file durations of every run, for the profile in docs/testing.md (scripts/suite-profile.mjs reads it);
    // the quick suite writes its own folder (GNL_TEST_RESULTS, scripts/test.mjs), not over the whole suite's.
    reporters: ['default', ['json', { outputFile: `${process.env.GNL_TEST_RESULTS || 'test-results'}/vitest.json` }]],
  },
});
