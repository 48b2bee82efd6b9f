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
