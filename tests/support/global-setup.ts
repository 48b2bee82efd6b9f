/** vitest's globalSetup: the child bundles (child-bundles.ts), built once for the whole run and removed after it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUNDLES_ENV, buildChildBundles, CHILD_ENTRIES } from './child-bundles';

export default async function setup(): Promise<() => void> {
  const outdir = mkdtempSync(path.join(tmpdir(), 'gnl-test-bundles-'));
  const { ms } = await buildChildBundles(outdir);
  process.env[BUNDLES_ENV] = outdir;
  console.log(`[child bundles] ${CHILD_ENTRIES.length} entries built in ${Math.round(ms)} ms (${outdir})`);
  return () => rmSync(outdir, { recursive: true, force: true });
}
