/**
 * lib/cost's index is browser-safe (the run page's client components price live events with it): from
 * it, nothing is reached at run time but its own files; the core is reached with `import type` only.
 * The price files (node:fs, zod) are price-file.ts, which no client component imports.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, sourceFiles } from '@/tests/support/source-imports';

const runtimeImports = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => (m[1] ?? m[2]) as string,
  );

describe('cost import arrows', () => {
  it('the index reaches only its own files at run time: no node built-in, no zod, no core code', () => {
    const seen = new Set<string>();
    const queue = [path.join(repoRoot, 'lib/cost/index.ts')];
    const offenders: string[] = [];
    while (queue.length > 0) {
      const file = queue.pop() as string;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const spec of runtimeImports(file)) {
        if (spec.startsWith('./')) queue.push(path.join(path.dirname(file), `${spec}.ts`));
        else offenders.push(`${path.relative(repoRoot, file)} imports ${spec}`);
      }
    }
    expect(seen.size).toBeGreaterThan(3);
    expect(offenders).toEqual([]);
  });

  it('no client component imports the price files', () => {
    const clients = ['app', 'components']
      .flatMap((dir) => sourceFiles(path.join(repoRoot, dir)))
      .filter((file) => /^['"]use client['"]/m.test(readFileSync(file, 'utf8')));
    expect(clients.length).toBeGreaterThan(5);
    const offenders = clients.filter((file) => readFileSync(file, 'utf8').includes('@/lib/cost/price-file')).map((f) => path.relative(repoRoot, f));
    expect(offenders).toEqual([]);
  });
});
