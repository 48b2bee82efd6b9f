/**
 * Reading the source for the arrow tests (ARCHITECTURE.md): the product's TypeScript files under a
 * folder, and the module specifiers each imports.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

/** Every .ts/.tsx file below `dir` that is not a test (none when the folder does not exist). */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name.startsWith('.') ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

/** The specifiers of a file's static imports, re-exports, dynamic imports and side-effect imports. */
export function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => (m[1] ?? m[2] ?? m[3]) as string,
  );
}

/**
 * Where a specifier leads inside the repository: `@/…` from the root, `./…` and `../…` from the file's
 * folder, tried as written, then with .ts, .tsx, /index.ts and /index.tsx. Undefined for a package
 * (`ai`, `node:fs`) or a path that names no file.
 */
export function resolveImport(file: string, spec: string): string | undefined {
  let base: string;
  if (spec.startsWith('@/')) base = path.join(repoRoot, spec.slice(2));
  else if (spec.startsWith('./') || spec.startsWith('../')) base = path.resolve(path.dirname(file), spec);
  else return undefined;
  const candidates = [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** The import graph of `files`: each file and the files of the set it imports (type imports and re-exports included). */
export function importGraph(files: string[]): Map<string, string[]> {
  const inSet = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      [...new Set(imports(file).flatMap((spec) => resolveImport(file, spec) ?? []))].filter((target) => inSet.has(target) && target !== file),
    ]),
  );
}

/**
 * The graph's cycles: its strongly connected components of more than one node (Tarjan's algorithm; a
 * node that imports itself is left out by importGraph), each sorted, the list sorted by its first node.
 */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) as number, low.get(target) as number));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) as number, index.get(target) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}
