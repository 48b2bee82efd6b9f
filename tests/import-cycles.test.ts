/**
 * No import cycle among the source files, and nothing under lib/ importing from components/ or app/
 * (ARCHITECTURE.md). Read from the source: every static import, `import type`, `export … from` and
 * dynamic import that names a file of the repository (`@/…` or relative), folded into strongly
 * connected components (Tarjan); a component of two or more files is a cycle, named file by file.
 * A cycle is broken by moving what both sides share into a file of its own (operator-record.ts,
 * run/durable-result.ts).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, imports, repoRoot, resolveImport, sourceFiles } from '@/tests/support/source-imports';

const SOURCE_DIRS = ['lib', 'app', 'components', 'packages', 'scripts', 'agents', 'db', 'bench', 'tests/support'];
const ROOT_FILES = ['proxy.ts', 'instrumentation.ts', 'next.config.ts', 'vitest.config.ts', 'playwright.config.ts', 'drizzle.config.ts'];

const rel = (file: string) => path.relative(repoRoot, file);
const dist = `${path.sep}dist${path.sep}`;
const source = () => [
  ...SOURCE_DIRS.flatMap((dir) => sourceFiles(path.join(repoRoot, dir))).filter((file) => !file.includes(dist)),
  ...ROOT_FILES.map((name) => path.join(repoRoot, name)),
];

describe('the cycle finder', () => {
  it('names the files of each cycle, and only those', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['f']],
      ['f', ['e']],
      ['g', ['a']],
    ]);
    expect(importCycles(graph)).toEqual([
      ['a', 'b', 'c'],
      ['e', 'f'],
    ]);
  });

  it('finds none in a graph without one', () => {
    const graph = new Map([
      ['a', ['b', 'c']],
      ['b', ['c']],
      ['c', []],
      ['d', ['a', 'c']],
    ]);
    expect(importCycles(graph)).toEqual([]);
  });

  it('reads type imports, re-exports and `@/` paths as edges', () => {
    const file = path.join(repoRoot, 'lib/durable/index.ts');
    expect(
      imports(file)
        .map((spec) => resolveImport(file, spec))
        .filter(Boolean).length,
    ).toBeGreaterThan(10);
    const run = path.join(repoRoot, 'lib/durable/run/run-durable.ts');
    expect(importGraph([run, path.join(repoRoot, 'lib/durable/journal/journal.ts')]).get(run)).toEqual([path.join(repoRoot, 'lib/durable/journal/journal.ts')]);
  });
});

describe('import cycles', () => {
  it('no source file reaches itself through its imports', () => {
    const files = source();
    expect(files.length).toBeGreaterThan(300);
    const cycles = importCycles(importGraph(files)).map((cycle) => cycle.map(rel).join(' <-> '));
    expect(cycles).toEqual([]);
  });

  it('nothing under lib/ imports from components/ or app/', () => {
    const offenders = sourceFiles(path.join(repoRoot, 'lib')).flatMap((file) =>
      imports(file)
        .filter((spec) => {
          const target = resolveImport(file, spec);
          return /^@\/(components|app)(\/|$)/.test(spec) || (target !== undefined && /^(components|app)\//.test(rel(target)));
        })
        .map((spec) => `${rel(file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});
