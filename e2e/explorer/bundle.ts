/**
 * Precompiles child.ts and everything it imports into one .mjs bundle (esbuild; plus a chunk for the
 * PGlite storage), built once per explorer
 * run into a temp folder, so a child starts without TypeScript transpiling or module resolution.
 * PGlite stays a separate module, imported by its absolute path: it finds its WASM and data files next
 * to its own module.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');

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
      if (!file) throw new Error(`cannot resolve ${args.path} for the explorer bundle`);
      return { path: pathToFileURL(path.join(pkgDir, file)).href, external: true };
    });
  },
};

export async function bundleChild(): Promise<{ file: string; ms: number }> {
  const started = performance.now();
  const outdir = mkdtempSync(path.join(tmpdir(), 'gnl-explorer-bundle-'));
  await build({
    entryPoints: { child: path.join(import.meta.dirname, 'child.ts') },
    outdir,
    outExtension: { '.js': '.mjs' },
    // The PGlite storage is imported dynamically by child.ts: a chunk of its own, loaded only by PGlite children.
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
  return { file: path.join(outdir, 'child.mjs'), ms: performance.now() - started };
}
