/**
 * The child processes the suites spawn (the gnl CLI, the crash suite's agent, workers, the demo
 * child, the explorer's child, the MCP server), precompiled once per test run into one folder of .mjs bundles
 * (esbuild, shared chunks), so a child starts in a fifth of the time `node --import tsx` takes to load
 * and transpile the same modules (measured: `gnl --help` 0.19 s against 0.96 s). The code is the same
 * source; only who compiles it differs. bin/gnl.mjs itself stays covered: the CLI suite runs it too.
 *
 * vitest's globalSetup (tests/support/global-setup.ts) builds them and names the folder in
 * GNL_TEST_BUNDLES; without it (a script outside vitest) a child runs through tsx as before.
 * PGlite stays a separate module, imported by its absolute path: it finds its WASM and data files next
 * to its own module.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

export const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every entry a suite spawns, by its path in the repository. */
export const CHILD_ENTRIES = [
  'lib/cli/cli-entry.ts',
  'lib/executor/worker-main.ts',
  'e2e/crash/crash-agent.ts',
  'e2e/crash/workflow-child.ts',
  'e2e/explorer/child.ts',
  'e2e/faults/worker-entry.ts',
  'tests/support/demo-child.ts',
  'tests/support/executor-child.ts',
  'tests/support/notify-child.ts',
  'tests/support/hold-data-dir.ts',
  'tests/support/mcp-server.ts',
  'tests/support/deep-json-child.ts',
  'docs/examples/test-support/child.ts',
  'docs/examples/api-queue-worker.ts',
] as const;

export type ChildEntry = (typeof CHILD_ENTRIES)[number];

export const BUNDLES_ENV = 'GNL_TEST_BUNDLES';

const bundleName = (entry: string) => entry.replace(/\.ts$/, '').replaceAll('/', '__');

const pgliteByAbsolutePath: Plugin = {
  name: 'pglite-external',
  setup(b) {
    const pkgDir = path.join(ROOT, 'node_modules/@electric-sql/pglite');
    const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { exports: Record<string, { import?: { default?: string } | string }> };
    b.onResolve({ filter: /^@electric-sql\/pglite/ }, (args) => {
      // ESM-only with an exports map: take the import condition of the subpath.
      const sub = args.path.slice('@electric-sql/pglite'.length);
      const entry = pkg.exports[sub ? `.${sub}` : '.']?.import;
      const file = typeof entry === 'string' ? entry : entry?.default;
      if (!file) throw new Error(`cannot resolve ${args.path} for the child bundles`);
      return { path: pathToFileURL(path.join(pkgDir, file)).href, external: true };
    });
  },
};

/** Builds the entries (default: all) into `outdir`; returns the time it took. */
export async function buildChildBundles(outdir: string, entries: readonly string[] = CHILD_ENTRIES): Promise<{ ms: number }> {
  const started = performance.now();
  await build({
    entryPoints: Object.fromEntries(entries.map((entry) => [bundleName(entry), path.join(ROOT, entry)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    // Shared modules are chunks of their own; the PGlite storage, imported dynamically, loads only where used.
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    plugins: [pgliteByAbsolutePath],
    banner: { js: "import { createRequire as __gnlRequire } from 'node:module'; const require = __gnlRequire(import.meta.url);" },
    logLevel: 'error',
  });
  return { ms: performance.now() - started };
}

/** The built bundle of `entry` in `outdir`. */
export function bundlePath(outdir: string, entry: string): string {
  return path.join(outdir, `${bundleName(entry)}.mjs`);
}

/**
 * Node's arguments to run `entry`: its bundle when the test run built one, else the TypeScript source
 * through tsx. `nodeFlags` go before either.
 */
export function childArgs(entry: ChildEntry, ...nodeFlags: string[]): string[] {
  const dir = process.env[BUNDLES_ENV];
  const bundle = dir ? bundlePath(dir, entry) : undefined;
  if (bundle && existsSync(bundle)) return [...SPAWNED_NODE_FLAGS, ...nodeFlags, bundle];
  return [...SPAWNED_NODE_FLAGS, ...nodeFlags, '--import', 'tsx', path.join(ROOT, entry)];
}

/**
 * V8 flags for every process a test starts, and for vitest's own workers (vitest.config.ts): WebAssembly
 * compiled by the baseline compiler only. PGlite is a large WASM module, and V8 optimizing its hot
 * functions again in the background costs a short-lived process more CPU than it saves: measured on this
 * machine, a `gnl list` child on PGlite 0.98 s user + 0.59 s system without, 0.67 + 0.26 with; 3,000
 * inserts and reads 3.48 + 0.73 s without, 2.34 + 0.30 with (docs/testing.md). Same code, same database.
 * GNL_TEST_NODE_FLAGS replaces them (`GNL_TEST_NODE_FLAGS= npm test` measures without).
 */
export const CHILD_NODE_FLAGS: readonly string[] = (process.env.GNL_TEST_NODE_FLAGS ?? '--liftoff-only').split(' ').filter(Boolean);

/**
 * The flags of the processes the tests spawn (gnl, crash agents, workers, the explorer's children): the
 * above and V8 on one thread. Most live a second or two, mostly starting: V8's helper threads (concurrent
 * marking, parallel scavenges, background compiles) cost such a process more CPU than they save it.
 * Measured on this machine, a `gnl list` child on PGlite: 1.21 CPU-s without, 1.08 with (mean of 20); a
 * long-lived process doing 3,000 inserts was 3 % worse with it, so vitest's workers and the Studios keep
 * V8's threads. GNL_TEST_NODE_FLAGS replaces both lists.
 */
export const SPAWNED_NODE_FLAGS: readonly string[] =
  process.env.GNL_TEST_NODE_FLAGS !== undefined ? CHILD_NODE_FLAGS : [...CHILD_NODE_FLAGS, '--single-threaded'];
