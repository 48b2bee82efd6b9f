/**
 * The command line's arrows (ARCHITECTURE.md), by reading the source: lib/cli sits on top, beside the
 * app, and reaches every layer through its index (executor, accounts, storage, the core, agents, the
 * demo's crash points); nothing imports it but bin/gnl.mjs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
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

const ALLOWED = new Set(['@/lib/executor', '@/lib/accounts', '@/lib/durable/storage', '@/lib/durable', '@/agents', '@/lib/demo', 'commander']);

describe('command line import arrows', () => {
  it('lib/cli reaches the layers below through their index files only', () => {
    const offenders = sourceFiles(path.join(root, 'lib/cli')).flatMap((file) =>
      imports(file)
        .filter((spec) => !(spec.startsWith('./') || spec.startsWith('node:') || ALLOWED.has(spec)))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('nothing else imports lib/cli (bin/gnl.mjs runs it)', () => {
    const others = ['lib', 'app', 'components', 'agents', 'db']
      .flatMap((dir) => sourceFiles(path.join(root, dir)))
      .filter((f) => !f.includes(`${path.sep}lib${path.sep}cli${path.sep}`));
    const offenders = others.flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('@/lib/cli'))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});
