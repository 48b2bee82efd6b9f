/**
 * Keeps the layers' arrows pointing one way (ARCHITECTURE.md), by reading the source:
 * the runtime core imports only ai, @ai-sdk/*, zod, @opentelemetry/api (tracing.ts) and node built-ins; storage never imports the app;
 * only storage-from-env reads DATABASE_URL.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imports, repoRoot, resolveImport, sourceFiles } from '@/tests/support/source-imports';

const root = repoRoot;

const rel = (file: string) => path.relative(root, file);

/** A relative import that stays in the core: a file of lib/durable's rooms, not of its storage. */
const withinCore = (file: string, spec: string) => {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return false;
  const target = resolveImport(file, spec);
  return target !== undefined && /^lib\/durable\/(?!storage\/)/.test(rel(target));
};

/** What a file imports at run time: `import type` and `export type` are erased and reach no bundle. */
const runtimeImports = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => (m[1] ?? m[2]) as string,
  );

describe('import arrows', () => {
  it('the runtime core imports only ai, @ai-sdk/*, zod, @opentelemetry/api, node built-ins and itself', () => {
    const core = sourceFiles(path.join(root, 'lib/durable')).filter((f) => !f.includes(`${path.sep}storage${path.sep}`));
    expect(core.length).toBeGreaterThan(10);
    const offenders = core.flatMap((file) =>
      imports(file)
        .filter(
          (spec) =>
            !(
              spec === 'ai' ||
              spec.startsWith('@ai-sdk/') ||
              spec === 'zod' ||
              spec === '@opentelemetry/api' ||
              spec.startsWith('node:') ||
              withinCore(file, spec)
            ),
        )
        .map((spec) => `${rel(file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('storage reaches the core only through its public surface, and never the app, React or Next', () => {
    const storage = sourceFiles(path.join(root, 'lib/durable/storage'));
    const offenders = storage.flatMap((file) =>
      imports(file)
        .filter(
          (spec) =>
            /^(next|react)/.test(spec) || spec.startsWith('@/app') || spec.startsWith('@/components') || /^\.\.\/(?!internal$|\.\.\/\.\.\/db\/)/.test(spec),
        )
        .map((spec) => `${rel(file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the app and components import the core through its index only (and the browser-safe rooms: secrets, usage and the run projection)', () => {
    const files = [...sourceFiles(path.join(root, 'app')), ...sourceFiles(path.join(root, 'components')), ...sourceFiles(path.join(root, 'lib/studio'))];
    const offenders = files.flatMap((file) =>
      imports(file)
        .filter((spec) => /^@\/lib\/durable\/(?!storage$|secrets$|usage$|projection$)/.test(spec) || spec === '@/lib/durable/storage/internal')
        .map((spec) => `${rel(file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the browser-safe entries of the core reach nothing but themselves: no node built-in, no ai, no zod', () => {
    const seen = new Set<string>();
    const queue = ['projection', 'secrets', 'usage'].map((room) => path.join(root, 'lib/durable', room, 'index.ts'));
    const offenders: string[] = [];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const spec of runtimeImports(file)) {
        const target = spec.startsWith('./') || spec.startsWith('../') ? resolveImport(file, spec) : undefined;
        if (target !== undefined) queue.push(target);
        else offenders.push(`${rel(file)} imports ${spec}`);
      }
    }
    expect(seen.size).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });

  it('storageFromEnv is the only reader of DATABASE_URL in the product code', () => {
    const product = ['lib', 'app', 'components', 'db'].flatMap((dir) => sourceFiles(path.join(root, dir)));
    const readers = product
      .filter((file) => /env(\.|\[['"`])DATABASE_URL|\{[^}]*\bDATABASE_URL\b[^}]*\}\s*=\s*(process\.)?env/.test(readFileSync(file, 'utf8')))
      .map(rel);
    expect(readers).toEqual(['lib/durable/storage/storage-from-env.ts']);
  });
});
