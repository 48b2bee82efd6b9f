/**
 * The executor layer's arrows (ARCHITECTURE.md), by reading the source: lib/executor → agents/ (the
 * registry), lib/agents, lib/demo (crash points), lib/durable/storage and lib/durable, each through its
 * index; nothing below imports it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' || name.startsWith('.') ? [] : sourceFiles(full);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^import\s+['"]([^'"]+)['"]/gm)].map(
    (m) => (m[1] ?? m[2] ?? m[3]) as string,
  );
}

const ALLOWED = new Set(['@/agents', '@/lib/agents', '@/lib/demo', '@/lib/durable', '@/lib/durable/storage', 'drizzle-orm']);

describe('executor import arrows', () => {
  it('lib/executor reaches the layers below through their index files', () => {
    const offenders = sourceFiles(path.join(root, 'lib/executor')).flatMap((file) =>
      imports(file)
        .filter((spec) => !(spec.startsWith('./') || spec.startsWith('node:') || spec === 'ai' || spec === 'zod' || ALLOWED.has(spec)))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('nothing below the executor layer imports it', () => {
    const below = ['lib/durable', 'lib/agents', 'lib/demo', 'agents', 'db'].flatMap((dir) => sourceFiles(path.join(root, dir)));
    const offenders = below.flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('@/lib/executor'))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});
