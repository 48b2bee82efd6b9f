/**
 * The explorer's child (child.ts and everything it imports) as one precompiled .mjs bundle, so a child
 * starts without TypeScript transpiling or module resolution: the test run's bundle when vitest's
 * globalSetup built the child bundles (tests/support/child-bundles.ts), else one built here into a temp
 * folder (`npm run test:chaos`), which `owned` says the caller removes.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUNDLES_ENV, buildChildBundles, bundlePath } from '@/tests/support/child-bundles';

const ENTRY = 'e2e/explorer/child.ts';

export async function bundleChild(): Promise<{ file: string; ms: number; owned: boolean }> {
  const shared = process.env[BUNDLES_ENV];
  if (shared && existsSync(bundlePath(shared, ENTRY))) return { file: bundlePath(shared, ENTRY), ms: 0, owned: false };
  const outdir = mkdtempSync(path.join(tmpdir(), 'gnl-explorer-bundle-'));
  const { ms } = await buildChildBundles(outdir, [ENTRY]);
  return { file: bundlePath(outdir, ENTRY), ms, owned: true };
}
