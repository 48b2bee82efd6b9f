/**
 * Postgres-only statements live in storage (ARCHITECTURE.md, "Name seams honestly"), by reading the
 * source: no file above lib/durable/storage names Postgres's lock catalog or its lock functions, or
 * derives a run's lock key; within storage, the statements about who holds a run are run-locks.ts's;
 * and above storage, code asks what a storage can do (`storage.capabilities`), reading `kind` only to name
 * the journal to people.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, sourceFiles } from '@/tests/support/source-imports';

const rel = (file: string) => path.relative(repoRoot, file);
const POSTGRES_LOCKS = /pg_locks|pg_terminate_backend|pg_(try_)?advisory_|hashtext|'gnl-run:'/;

describe('Postgres-specific statements stay behind storage', () => {
  it('no layer above storage queries pg_locks, takes or ends advisory locks, or re-derives a run lock key', () => {
    const above = ['lib', 'app', 'components', 'agents']
      .flatMap((dir) => sourceFiles(path.join(repoRoot, dir)))
      .filter((file) => !rel(file).startsWith(`lib${path.sep}durable${path.sep}storage${path.sep}`));
    expect(above.length).toBeGreaterThan(50);
    expect(above.filter((file) => POSTGRES_LOCKS.test(readFileSync(file, 'utf8'))).map(rel)).toEqual([]);
  });

  it('in storage, pg_locks is read by run-locks.ts alone', () => {
    const readers = sourceFiles(path.join(repoRoot, 'lib/durable/storage')).filter((file) => readFileSync(file, 'utf8').includes('pg_locks'));
    expect(readers.map(rel)).toEqual([path.join('lib', 'durable', 'storage', 'run-locks.ts')]);
  });
});

describe('layers above storage ask for capabilities, not kind', () => {
  it('storage.kind is compared only where the journal is named to people (gnl show, the runs page and its notice)', () => {
    const readers = ['lib', 'app', 'components']
      .flatMap((dir) => sourceFiles(path.join(repoRoot, dir)))
      .filter((file) => !rel(file).startsWith(`lib${path.sep}durable${path.sep}storage${path.sep}`))
      .filter((file) => /\.kind\s*[!=]==\s*'(pglite|postgres)'/.test(readFileSync(file, 'utf8')));
    expect(readers.map(rel).sort()).toEqual(
      [
        path.join('components', 'runs', 'journal-notice.tsx'),
        path.join('lib', 'cli', 'read-commands.ts'),
        path.join('lib', 'studio', 'reads', 'runs.ts'),
      ].sort(),
    );
  });
});
