/**
 * Runs a benchmark's measure on both journals, each fresh: an embedded PGlite in a temporary folder, and a
 * database of its own (`database`, dropped and created) on the server of DATABASE_URL. Both are closed and the
 * folder removed after, whatever the measure threw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { PGliteStorage, PostgresStorage, type Storage } from '../lib/durable/storage';
import { DATABASE_URL, databaseUrl } from './stats';

export async function onBothJournals(database: string, measure: (journal: 'PGlite' | 'PostgreSQL', storage: Storage) => Promise<void>): Promise<void> {
  const admin = postgres(databaseUrl(DATABASE_URL, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${database} with (force)`);
  await admin.unsafe(`create database ${database}`);
  await admin.end({ timeout: 5 });
  const dir = mkdtempSync(path.join(os.tmpdir(), `${database.replaceAll('_', '-')}-`));
  const pglite = new PGliteStorage({ dataDir: path.join(dir, 'data') });
  const server = new PostgresStorage({ connectionString: databaseUrl(DATABASE_URL, database) });
  try {
    await measure('PGlite', pglite);
    await measure('PostgreSQL', server);
  } finally {
    await pglite.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
