/**
 * The statements about who holds a run, on the real servers: the key the server derives from a run id
 * is the one this process takes its lock under (PGlite and Postgres), and, on Postgres, a lock granted
 * to another session is found, named, seen by the append's fence clause (until its session ends) and ended only when the
 * statement's own condition holds.
 */
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { PGliteStorage, PostgresStorage } from './index';
import { advisoryKey, advisoryKeySql, describeRunHolder, lockHeldClause, runLockHeld, terminateRunHolders } from './run-locks';
import { query } from './sql-rows';

const RUN_IDS = ['support:0b6f9c1e-8f43-4d2b-9a51-3c2d7e9f0a11', "it's a run", 'billing/日本語 ☃', 'a'.repeat(512)];

describe('the run lock key the server derives equals this process’s', () => {
  for (const kind of ['pglite', 'postgres'] as const) {
    it.runIf(kind === 'pglite' || DATABASE_URL)(kind, async () => {
      const storage = kind === 'pglite' ? new PGliteStorage() : new PostgresStorage({ connectionString: DATABASE_URL as string });
      try {
        const db = await storage.database();
        for (const runId of RUN_IDS) {
          const [row] = await query<{ k: string }>(db, sql`select ${advisoryKeySql(sql`${runId}::text`)}::text as k`);
          expect(row?.k, runId).toBe(advisoryKey(runId));
        }
      } finally {
        await storage.close();
      }
    });
  }
});

describe.runIf(DATABASE_URL)('a run lock held by another session [postgres]', () => {
  let storage: PostgresStorage;
  let other: postgres.Sql;
  beforeAll(() => {
    storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
  });
  afterAll(async () => {
    await other?.end({ timeout: 1 }).catch(() => undefined);
    await storage.close();
  });

  it('is found and named; the fence clause sees it held, and free once its session is ended; it is ended only while the condition holds', async () => {
    const runId = uniqueRunId('locks');
    const key = advisoryKey(runId);
    const db = await storage.database();
    other = postgres(DATABASE_URL as string, { max: 1, onnotice: () => {} });
    const [locked] = await other<{ pid: number }[]>`select pg_advisory_lock(${key}::bigint), pg_backend_pid() as pid`;
    const pid = locked?.pid as number;

    const held = async () => (await query<{ held: boolean }>(db, sql`select ${runLockHeld(sql`${runId}::text`)} as held`))[0]?.held;
    expect(await held()).toBe(true);
    expect(await describeRunHolder(db, key)).toMatch(new RegExp(`^held by database session ${pid}( from .+)?$`));
    // The append's fence asks the lock manager for the key (the shared try is refused while the lock is held).
    const fenced = async () => (await query<{ held: boolean }>(db, sql.raw(`select ${lockHeldClause(`'${key}'`)} as held`)))[0]?.held;
    expect(await fenced()).toBe(true);
    expect(await fenced()).toBe(true); // the try left nothing behind that would change the answer

    expect(await terminateRunHolders(db, { runId, onlyIf: sql`false` })).toEqual([]);
    expect(await held()).toBe(true);
    expect(await terminateRunHolders(db, { runId, onlyIf: sql`true` })).toEqual([pid]);
    await expect.poll(held, { timeout: 5_000 }).toBe(false);
    expect(await describeRunHolder(db, key)).toBeUndefined();
    expect(await fenced()).toBe(false);
  });
});
