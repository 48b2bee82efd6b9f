/**
 * One migrated PGlite folder per test run, copied wherever a suite wants a fresh embedded journal.
 * A new PGlite folder costs about 6 s of CPU (initdb's image unpacked, then every migration); a copy of a
 * migrated one opens in under 1 s (measured on this 2-core machine, `tests/support/pglite-template.ts`'s
 * numbers in docs/testing.md). Built once by vitest's globalSetup, named to the workers by PGLITE_TEMPLATE_ENV;
 * without it (a file run outside vitest) the folder is left to be created fresh, as before.
 */
import { chmodSync, cpSync, existsSync, readdirSync, statSync } from 'node:fs';
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
