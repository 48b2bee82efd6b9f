/**
 * One migrated PGlite folder per test run, copied wherever a suite wants a fresh embedded journal.
 * A new PGlite folder costs about 6 s of CPU (initdb's image unpacked, then every migration); a copy of a
 * migrated one opens in under 1 s (measured on this 2-core machine, `tests/support/pglite-template.ts`'s
 * numbers in docs/testing.md). Built once by vitest's globalSetup, named to the workers by PGLITE_TEMPLATE_ENV;
 * without it (a file run outside vitest) the folder is left to be created fresh, as before.
 */
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { PGliteStorage } from '../../lib/durable/storage';

export const PGLITE_TEMPLATE_ENV = 'GNL_TEST_PGLITE_TEMPLATE';

/** Creates and migrates the template in `dataDir` (closed again: a copy is only ever opened by its own process). */
export async function buildPGliteTemplate(dataDir: string): Promise<void> {
  const storage = new PGliteStorage({ dataDir });
  try {
    await storage.database();
  } finally {
    await storage.close();
  }
}

/**
 * The migrated template, kept between test runs in node_modules/.cache (the quick suite after the whole
 * one, a developer's next run): named by a hash of what makes it (the migrations, PGlite's version, the
 * storage's PGlite settings), built in a folder of its own and renamed into place only when complete, so
 * a run never copies half a template. `ms`: the time it took to build, undefined when it was reused.
 */
export async function cachedPGliteTemplate(): Promise<{ dataDir: string; ms?: number }> {
  const root = path.resolve(import.meta.dirname, '../..');
  const hash = createHash('sha256');
  for (const file of [
    'db/migrations.generated.ts',
    'lib/durable/storage/migrate.ts',
    'lib/durable/storage/pglite-storage.ts',
    'node_modules/@electric-sql/pglite/package.json',
  ])
    hash.update(readFileSync(path.join(root, file)));
  const cache = path.join(root, 'node_modules', '.cache', 'gnl-test');
  const name = `pglite-template-${hash.digest('hex').slice(0, 16)}`;
  const dataDir = path.join(cache, name, 'data');
  if (existsSync(dataDir)) return { dataDir };
  mkdirSync(cache, { recursive: true });
  const building = mkdtempSync(path.join(cache, `${name}.building-`));
  const started = performance.now();
  await buildPGliteTemplate(path.join(building, 'data'));
  try {
    renameSync(building, path.join(cache, name));
  } catch (error) {
    // Another run finished the same template first: use theirs.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(dataDir)) throw error;
  }
  // Older templates (other migrations) are not read again.
  for (const entry of readdirSync(cache))
    if (entry.startsWith('pglite-template-') && entry !== name && !entry.includes('.building-'))
      rmSync(path.join(cache, entry), { recursive: true, force: true });
  return { dataDir, ms: performance.now() - started };
}

/** Fills `dataDir` (which must not exist yet) with a copy of the run's template, private as GNL makes its own. */
export function copyPGliteTemplate(dataDir: string): void {
  const template = process.env[PGLITE_TEMPLATE_ENV];
  if (!template || !existsSync(template)) return;
  cpSync(template, dataDir, { recursive: true });
  makePrivate(dataDir);
}

function makePrivate(entry: string): void {
  const stats = statSync(entry);
  chmodSync(entry, stats.isDirectory() ? 0o700 : 0o600);
  if (stats.isDirectory()) for (const name of readdirSync(entry)) makePrivate(path.join(entry, name));
}
