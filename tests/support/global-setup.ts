/**
 * vitest's globalSetup: the child bundles (child-bundles.ts), the migrated PGlite template
 * (pglite-template.ts) and, with DATABASE_URL, a migrated Postgres template database for the suites that
 * want a database of their own (fresh-database.ts): built once for the whole run and removed after it;
 * the PGlite template is kept between runs in node_modules/.cache, by a hash of what makes it (the quick
 * suite after the whole one reuses it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runTempHere } from '../../scripts/run-temp.mjs';
import { BUNDLES_ENV, buildChildBundles, CHILD_ENTRIES } from './child-bundles';
import { buildPostgresTemplate } from './fresh-database';
import { cachedPGliteTemplate, PGLITE_TEMPLATE_ENV } from './pglite-template';

/**
 * vitest runs globalSetup once per project (vitest.config.ts has two), in its own process: the first
 * call builds, every later one waits for that build and leaves the teardown to the first.
 */
const SHARED = Symbol.for('gnl.test.globalSetup');
type Shared = { [SHARED]?: Promise<void> };

export default async function setup(): Promise<() => void> {
  const shared = globalThis as Shared;
  if (shared[SHARED]) {
    await shared[SHARED];
    return () => {};
  }
  let built!: () => void;
  let failed!: (error: unknown) => void;
  shared[SHARED] = new Promise<void>((resolve, reject) => {
    built = resolve;
    failed = reject;
  });
  try {
    const teardown = await build();
    built();
    return async () => {
      delete shared[SHARED];
      await teardown();
    };
  } catch (error) {
    failed(error);
    throw error;
  }
}

async function build(): Promise<() => Promise<void>> {
  // The run's own TMPDIR (npm test's, else its own), removed with everything in it at the end (scripts/run-temp.mjs: a run left 5.5 GB).
  const runTemp = runTempHere();
  if (runTemp.abandoned.length > 0) console.log(`[run temp] removed ${runTemp.abandoned.length} folder(s) of runs that ended without removing them`);
  try {
    return await buildIn(runTemp);
  } catch (error) {
    runTemp.close();
    throw error;
  }
}

async function buildIn(runTemp: { dir: string; close(): void }): Promise<() => Promise<void>> {
  // One after another: started side by side they took as long (7.6 s against 7.7 s, CI logs of 2026-12-06),
  // PGlite's migrations holding this process's event loop while the others wait on it.
  const outdir = mkdtempSync(path.join(tmpdir(), 'gnl-test-bundles-'));
  const { ms } = await buildChildBundles(outdir);
  const template = await cachedPGliteTemplate();
  const postgresTemplate = process.env.DATABASE_URL ? await buildPostgresTemplate(process.env.DATABASE_URL) : undefined;
  process.env[BUNDLES_ENV] = outdir;
  console.log(`[child bundles] ${CHILD_ENTRIES.length} entries built in ${Math.round(ms)} ms (${outdir})`);
  process.env[PGLITE_TEMPLATE_ENV] = template.dataDir;
  console.log(`[pglite template] ${template.ms === undefined ? 'reused' : `migrated in ${Math.round(template.ms)} ms`} (${template.dataDir})`);
  if (postgresTemplate) console.log(`[postgres template] ${postgresTemplate.name} migrated in ${Math.round(postgresTemplate.ms)} ms`);
  console.log(`[run temp] ${runTemp.dir} (TMPDIR of every worker and child)`);
  return async () => {
    rmSync(outdir, { recursive: true, force: true });
    try {
      await postgresTemplate?.drop();
    } finally {
      runTemp.close();
    }
  };
}
