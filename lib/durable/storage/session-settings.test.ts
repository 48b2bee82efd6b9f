/**
 * The journal's own sessions set what its invariants need, whatever the database's defaults say
 * (issue 27, defect 9). Postgres only: PGlite is one process that does not flush commits at all
 * (docs/journal.md), so there is no setting there to weaken.
 */
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { PostgresStorage } from './index';

const DATABASE_URL = process.env.DATABASE_URL;
const suite = DATABASE_URL ? describe : describe.skip;

suite('the journal sets its own session settings (Postgres)', () => {
  let fresh: Awaited<ReturnType<typeof createFreshDatabase>>;
  beforeAll(async () => {
    fresh = await createFreshDatabase(DATABASE_URL as string, 'gnl_settings');
    const admin = postgres(fresh.url, { max: 1, onnotice: () => {} });
    const name = new URL(fresh.url).pathname.slice(1);
    await admin.unsafe(`alter database ${name} set synchronous_commit = off`);
    await admin.unsafe(`alter database ${name} set default_transaction_isolation = 'serializable'`);
    await admin.end();
  });
  afterAll(() => fresh?.drop());

  it('a database whose default is synchronous_commit = off (and serializable) gets on and read committed on the sessions appends go through', async () => {
    const plain = postgres(fresh.url, { max: 1, onnotice: () => {} });
    try {
      expect((await plain`show synchronous_commit`)[0]?.synchronous_commit).toBe('off'); // the default is really off
    } finally {
      await plain.end();
    }
    const storage = new PostgresStorage({ connectionString: fresh.url, max: 3 });
    try {
      const db = await storage.database();
      // Three at once: three of the pool's sessions.
      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          db.execute<{ sc: string; iso: string }>(
            sql`select current_setting('synchronous_commit') as sc, current_setting('transaction_isolation') as iso, pg_sleep(0.05)`,
          ),
        ),
      );
      for (const result of answers) expect([...result].map((row) => [row.sc, row.iso])).toEqual([['on', 'read committed']]);
    } finally {
      await storage.close();
    }
  });
});
