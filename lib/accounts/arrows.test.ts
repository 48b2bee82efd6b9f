/**
 * The accounts layer's arrows (ARCHITECTURE.md), by reading the source: lib/accounts → lib/durable/storage
 * (the database), lib/durable (errors), db/schema; nothing below imports it, and no browser code does
 * (it opens the database and handles passwords: server-only).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { imports, repoRoot, sourceFiles } from '@/tests/support/source-imports';

const root = repoRoot;

const ALLOWED = new Set(['@/lib/durable', '@/lib/durable/storage', '@/db/schema', 'drizzle-orm', 'zod']);

describe('accounts import arrows', () => {
  it('lib/accounts reaches storage, the core and the schema through their public files only', () => {
    const offenders = sourceFiles(path.join(root, 'lib/accounts')).flatMap((file) =>
      imports(file)
        .filter((spec) => !(spec.startsWith('./') || spec.startsWith('node:') || ALLOWED.has(spec)))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('nothing below imports lib/accounts, and no browser code does', () => {
    const below = ['lib/durable', 'lib/agents', 'lib/demo', 'lib/executor', 'agents', 'db', 'components'].flatMap((dir) => sourceFiles(path.join(root, dir)));
    const client = sourceFiles(path.join(root, 'app')).filter((file) => /^\s*['"]use client['"]/.test(readFileSync(file, 'utf8')));
    const offenders = [...below, ...client].flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('@/lib/accounts'))
        .map((spec) => `${path.relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});
