/**
 * The storage the environment asks for: Postgres when DATABASE_URL is set, else the embedded journal
 * in GNL_DATA_DIR (default .gnl/data in the working directory). The only reader of DATABASE_URL.
 * One storage per process.
 */
import path from 'node:path';
import { PGliteStorage } from './pglite-storage';
import { PostgresStorage } from './postgres-storage';

export type Storage = PostgresStorage | PGliteStorage;

const key = Symbol.for('gnl.storage.fromEnv');

export function storageFromEnv(env: NodeJS.ProcessEnv = process.env): Storage {
  const global = globalThis as Record<symbol, Storage | undefined>;
  global[key] ??= env.DATABASE_URL
    ? new PostgresStorage({ connectionString: env.DATABASE_URL })
    : new PGliteStorage({ dataDir: env.GNL_DATA_DIR ?? path.join(process.cwd(), '.gnl', 'data') });
  return global[key];
}
