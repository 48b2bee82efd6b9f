/**
 * A Postgres database of its own for a suite whose executors claim whatever is runnable: the shared
 * test database holds other suites' runs. Created on the server named by DATABASE_URL, dropped after.
 *
 * vitest's globalSetup migrates one template database per run (buildPostgresTemplate) and names it in
 * POSTGRES_TEMPLATE_ENV; each fresh database is then `CREATE DATABASE … TEMPLATE` it, a file copy on the
 * server, instead of running every migration again. Outside vitest (no template named) a database is
 * created empty and migrated by its first storage, as before.
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { PostgresStorage } from '../../lib/durable/storage';

export const POSTGRES_TEMPLATE_ENV = 'GNL_TEST_POSTGRES_TEMPLATE';

export async function createFreshDatabase(serverUrl: string, prefix = 'gnl_exec'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const template = process.env[POSTGRES_TEMPLATE_ENV];
  await onServer(serverUrl, (sql) => sql.unsafe(`create database ${name}${template ? ` template ${template}` : ''}`));
  return { url: databaseUrl(serverUrl, name), drop: () => dropDatabase(serverUrl, name) };
}

/** Creates and migrates the run's template database; nothing stays connected to it (CREATE DATABASE … TEMPLATE requires that). */
export async function buildPostgresTemplate(serverUrl: string): Promise<{ name: string; ms: number; drop(): Promise<void> }> {
  const started = performance.now();
  const name = `gnl_template_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await onServer(serverUrl, (sql) => sql.unsafe(`create database ${name}`));
  const storage = new PostgresStorage({ connectionString: databaseUrl(serverUrl, name) });
  try {
    await storage.database();
  } finally {
    await storage.close();
  }
  process.env[POSTGRES_TEMPLATE_ENV] = name;
  return { name, ms: performance.now() - started, drop: () => dropDatabase(serverUrl, name) };
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function dropDatabase(serverUrl: string, name: string): Promise<void> {
  return onServer(serverUrl, (sql) => sql.unsafe(`drop database if exists ${name} with (force)`).then(() => undefined));
}

async function onServer<T>(serverUrl: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
