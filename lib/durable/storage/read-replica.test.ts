/**
 * The read replica's detour (read-replica.ts): a replica that does not answer costs a listing nothing
 * but the way round: the primary answers, said once. On the shared Postgres; the replica itself, a real
 * streaming standby, is e2e/faults/failover.test.ts's.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DATABASE_URL } from '@/tests/support/journals';
import { PostgresStorage } from './postgres-storage';
import { ReadReplica } from './read-replica';

describe.runIf(DATABASE_URL)('read replica', () => {
  it('a replica nobody listens on: the primary answers each read, the detour said once', async () => {
    const warnings: string[] = [];
    const replica = new ReadReplica('postgres://postgres@127.0.0.1:9/test', (message) => warnings.push(message));
    const storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
    try {
      const primary = () => storage.database();
      for (let n = 0; n < 2; n++) {
        const rows = (await replica.read(primary, (db) => db.execute(sql`select pg_is_in_recovery() as standby, ${n}::int as n`))) as unknown as {
          standby: boolean;
          n: number;
        }[];
        expect(rows).toEqual([{ standby: false, n }]);
      }
      expect(replica.counts).toEqual({ replica: 0, primary: 2 });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/read replica \(GNL_READ_DATABASE_URL\) failed a read, which the primary answers instead: .*ECONNREFUSED/);
    } finally {
      await replica.close();
      await storage.close();
    }
  });

  it("the replica's sessions take no writes, even where the server would", async () => {
    const replica = new ReadReplica(DATABASE_URL as string, () => undefined);
    const storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
    try {
      let replicaError: unknown;
      await replica
        .read(
          async () => {
            throw new Error('not asked');
          },
          async (db) => db.execute(sql`create temporary table read_replica_probe (n int)`),
        )
        .catch((error: unknown) => {
          replicaError = error;
        });
      expect(String((replicaError as Error)?.message)).toBe('not asked'); // the replica refused; the detour was taken
      const [row] = (await replica.read(storage.database.bind(storage), (db) => db.execute(sql`show default_transaction_read_only`))) as unknown as {
        default_transaction_read_only: string;
      }[];
      expect(row?.default_transaction_read_only).toBe('on');
    } finally {
      await replica.close();
      await storage.close();
    }
  });
});
