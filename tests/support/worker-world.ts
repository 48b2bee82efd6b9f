/**
 * What a suite of real worker processes needs for each test: the demo's outside service, a fresh
 * Postgres database of its own (dropped afterwards) with the test's own storage on it, and the list of
 * workers the test starts (each ended afterwards). Registers the hooks; the fields are set before each test.
 */
import { afterEach, beforeEach } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { PostgresStorage } from '@/lib/durable/storage';
import { createFreshDatabase } from './fresh-database';
import { DATABASE_URL } from './journals';
import type { WorkerProcess } from './worker-process';

export interface WorkerWorld {
  service: OutsideService;
  storage: PostgresStorage;
  databaseUrl: string;
  /** The workers a test starts: ended after it. */
  workers: WorkerProcess[];
}

export function workerWorld(): WorkerWorld {
  const world = { workers: [] } as unknown as WorkerWorld;
  let drop: () => Promise<void> = async () => {};
  beforeEach(async () => {
    world.service = await startOutsideService();
    const database = await createFreshDatabase(DATABASE_URL as string);
    world.databaseUrl = database.url;
    drop = database.drop;
    world.storage = new PostgresStorage({ connectionString: database.url });
    await world.storage.database();
  });
  afterEach(async () => {
    await Promise.all(world.workers.map((w) => w.end()));
    world.workers = [];
    await world.storage.close();
    await world.service.close();
    await drop();
  });
  return world;
}
