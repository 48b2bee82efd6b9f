/**
 * The executor layer's arrows (ARCHITECTURE.md), by reading the source: lib/executor → agents/ (the
 * registry), lib/agents, lib/demo (crash points), lib/durable/storage and lib/durable, each through its
 * index; nothing below imports it.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imports, repoRoot, sourceFiles } from '@/tests/support/source-imports';

const root = repoRoot;

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
