/**
 * The storages the executor suites run on: real embedded PGlite in a fresh folder, and real Postgres in
 * a fresh database of its own on the server named by DATABASE_URL (executors claim whatever is runnable,
 * so a suite must not share its queue). Without DATABASE_URL the Postgres suite is reported as skipped.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { PGliteStorage, type PGliteStorageOptions, PostgresStorage, type Storage } from '@/lib/durable/storage';
import { createFreshDatabase } from './fresh-database';
import { DATABASE_URL, tempDataDir } from './journals';

export interface StorageHolder {
  kind: 'pglite' | 'postgres';
  /** Set before the suite's tests run. */
  storage: Storage;
}

/** `options.secrets`: the storages' secrets (a journal key, run keys). */
export function describeEachStorage(title: string, body: (holder: StorageHolder) => void, options: Pick<PGliteStorageOptions, 'secrets'> = {}): void {
  describe(`${title} [pglite]`, () => {
    const holder = { kind: 'pglite' } as StorageHolder;
    beforeAll(() => {
      holder.storage = new PGliteStorage({ dataDir: tempDataDir(), ...options });
    });
    afterAll(() => holder.storage.close());
    body(holder);
  });
  const postgresSuite = DATABASE_URL ? describe : describe.skip;
  postgresSuite(`${title} [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
    const holder = { kind: 'postgres' } as StorageHolder;
    let drop: (() => Promise<void>) | undefined;
    beforeAll(async () => {
      const database = await createFreshDatabase(DATABASE_URL as string);
      drop = database.drop;
      holder.storage = new PostgresStorage({ connectionString: database.url, ...options });
    });
    afterAll(async () => {
      await holder.storage?.close();
      await drop?.();
    });
    body(holder);
  });
}
