/**
 * The journals every journal-touching suite runs on: real embedded PGlite, and the real Postgres server
 * named by DATABASE_URL. Without DATABASE_URL the Postgres suites report themselves as skipped (visibly,
 * in vitest's summary); with CI=true a missing DATABASE_URL fails the run instead.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import type { LiveJournal } from '@/lib/durable';
import { PGliteStorage, PostgresStorage } from '@/lib/durable/storage';
import { copyPGliteTemplate } from './pglite-template';

export const DATABASE_URL = process.env.DATABASE_URL;

if (process.env.CI === 'true' && !DATABASE_URL) {
  throw new Error('CI=true but DATABASE_URL is not set: the Postgres suites must run in CI.');
}

const OPEN_TIMEOUT_MS = 300_000;

export interface JournalTarget {
  name: 'pglite' | 'postgres';
  /** A storage for this suite; closed after the suite. */
  open(): { journal: LiveJournal; storage: PGliteStorage | PostgresStorage };
}

export const pgliteTarget: JournalTarget = {
  name: 'pglite',
  open() {
    const storage = new PGliteStorage({ dataDir: tempDataDir() });
    // Opened (and migrated) before the suite's first test: on a loaded machine PGlite can take over a
    // minute to start, which must not be charged to whichever test happens to come first.
    beforeAll(() => storage.database().then(() => undefined), OPEN_TIMEOUT_MS);
    afterAll(() => storage.close());
    return { journal: storage.runs, storage };
  },
};

export const postgresTarget: JournalTarget = {
  name: 'postgres',
  open() {
    const storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
    beforeAll(() => storage.database().then(() => undefined), OPEN_TIMEOUT_MS);
    afterAll(() => storage.close());
    return { journal: storage.runs, storage };
  },
};

/** Declares the suite once per journal; the Postgres one is skipped (and says so) without DATABASE_URL. */
export function describeEachJournal(title: string, body: (target: JournalTarget) => void): void {
  describe(`${title} [pglite]`, () => body(pgliteTarget));
  if (DATABASE_URL) describe(`${title} [postgres]`, () => body(postgresTarget));
  // The body is still collected (so every test shows up as skipped), against a target that is never opened.
  else describe.skip(`${title} [postgres] (skipped: DATABASE_URL is not set)`, () => body(unavailableTarget));
}

/**
 * Stands for the Postgres journal of a skipped suite: a body may reach into it while it is collected
 * (`target.open().storage.runs`), which must not fail the file (it did: run-stream.test.ts without
 * DATABASE_URL); any call through it, which only a test would make, says why there is no journal.
 */
const unavailable: unknown = new Proxy(() => {}, {
  get: (_target, key) => (key === 'then' ? undefined : unavailable),
  apply() {
    throw new Error('DATABASE_URL is not set: this Postgres suite is skipped.');
  },
});
const unavailableTarget: JournalTarget = {
  name: 'postgres',
  open: () => ({ journal: unavailable as LiveJournal, storage: unavailable as PostgresStorage }),
};

/** A new embedded journal's folder: a copy of the run's migrated template (pglite-template.ts), so opening it skips initdb and migrations. */
export function tempDataDir(): string {
  const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-test-')), 'data');
  copyPGliteTemplate(dataDir);
  return dataDir;
}

/** A runId no other test (or earlier CI run on the shared server) uses. */
export function uniqueRunId(prefix = 'test'): string {
  return `${prefix}:${randomUUID()}`;
}
