/**
 * vitest's globalSetup: the child bundles (child-bundles.ts) and the migrated PGlite template
 * (pglite-template.ts), built once for the whole run and removed after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUNDLES_ENV, buildChildBundles, CHILD_ENTRIES } from './child-bundles';
import { buildPGliteTemplate, PGLITE_TEMPLATE_ENV } from './pglite-template';

export default async function setup(): Promise<() => void> {
  const outdir = mkdtempSync(path.join(tmpdir(), 'gnl-test-bundles-'));
  const { ms } = await buildChildBundles(outdir);
  process.env[BUNDLES_ENV] = outdir;
  console.log(`[child bundles] ${CHILD_ENTRIES.length} entries built in ${Math.round(ms)} ms (${outdir})`);
  const templateDir = mkdtempSync(path.join(tmpdir(), 'gnl-test-pglite-template-'));
  const started = performance.now();
  await buildPGliteTemplate(path.join(templateDir, 'data'));
  process.env[PGLITE_TEMPLATE_ENV] = path.join(templateDir, 'data');
  console.log(`[pglite template] migrated in ${Math.round(performance.now() - started)} ms (${templateDir})`);
  return () => {
    rmSync(outdir, { recursive: true, force: true });
    rmSync(templateDir, { recursive: true, force: true });
  };
}
