/**
 * Builds @gnldev/durable from the sources in lib/durable, lib/durable/storage and db/ (which stay where
 * they are; this folder only holds the entry points and the package manifest).
 *
 * JS: esbuild bundles the two entry points into ESM with code splitting, so the core both entries
 * share is one chunk (one SideEffectRetryBlockedError class, one PGlite registry) whichever entry
 * loads first. The AI SDK, zod and the database drivers stay external: they are the app's copies.
 *
 * Types: tsc emits declarations file by file; the sources' relative imports are extensionless, which
 * a consumer on `moduleResolution: node16/nodenext` cannot resolve, so every relative specifier in
 * the emitted .d.ts is rewritten to the .js path of its file.
 *
 * Usage: node packages/durable/build.mjs (npm run build:package from the repository root).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;
const root = path.resolve(here, '../..');
const dist = path.join(here, 'dist');
const manifest = JSON.parse(readFileSync(path.join(here, 'package.json'), 'utf8'));
const external = [...Object.keys(manifest.peerDependencies ?? {}), ...Object.keys(manifest.dependencies ?? {})];

rmSync(dist, { recursive: true, force: true });

await build({
  entryPoints: { index: path.join(here, 'src/index.ts'), storage: path.join(here, 'src/storage.ts') },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Subpaths of externals (drizzle-orm/pglite, ai/test) are external too.
  external: external.flatMap((name) => [name, `${name}/*`]),
  chunkNames: 'chunks/[name]-[hash]',
  sourcemap: true,
  sourcesContent: true,
  legalComments: 'none',
  logLevel: 'warning',
  tsconfig: path.join(here, 'tsconfig.build.json'),
});

// Declarations: emitted under dist/types mirroring the repository (lib/durable/…, db/…, packages/durable/src/…).
const types = path.join(dist, 'types');
try {
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(here, 'tsconfig.build.json'), '--outDir', types], {
    stdio: 'inherit',
  });
} catch {
  console.error('build:package: the declarations did not type-check (tsc output above); no package was built.');
  rmSync(dist, { recursive: true, force: true });
  process.exit(1);
}
for (const file of walk(types)) writeFileSync(file, withJsSpecifiers(file, readFileSync(file, 'utf8')));
for (const entry of ['index', 'storage']) {
  writeFileSync(path.join(dist, `${entry}.d.ts`), `export * from './types/packages/durable/src/${entry}.js';\n`);
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.name.endsWith('.d.ts')) yield full;
  }
}

/** './run-durable' → './run-durable.js', './storage' → './storage/index.js'; bare specifiers untouched. */
function withJsSpecifiers(file, text) {
  return text.replace(/(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]*)\2/g, (_, lead, quote, spec) => {
    const base = path.resolve(path.dirname(file), spec);
    if (existsSync(`${base}.d.ts`)) return `${lead}${quote}${spec}.js${quote}`;
    if (existsSync(path.join(base, 'index.d.ts'))) return `${lead}${quote}${spec}/index.js${quote}`;
    throw new Error(`${path.relative(dist, file)}: cannot resolve ${spec} among the emitted declarations`);
  });
}

console.log(`built ${manifest.name}@${manifest.version} in ${path.relative(root, dist)}`);
