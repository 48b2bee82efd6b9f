/**
 * A Postgres database of its own for a suite whose executors claim whatever is runnable: the shared
 * test database holds other suites' runs. Created on the server named by DATABASE_URL, dropped after.
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';

export async function createFreshDatabase(serverUrl: string, prefix = 'gnl_exec'): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const sql = postgres(serverUrl, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
  };
}
