/** The benchmark's own databases on the local server, dropped and created fresh for each run (never `test`). */
import postgres from 'postgres';
import { z } from 'zod';

export const DatabaseName = z
  .string()
  .regex(/^gnl_peers_[a-z]+$/)
  .refine((name) => name !== 'test', 'never the database named test');

export function databaseUrl(serverUrl: string, database: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${DatabaseName.parse(database)}`;
  return u.toString();
}

export async function freshDatabases(serverUrl: string, names: readonly string[]): Promise<void> {
  const admin = postgres(databaseUrl(serverUrl, 'gnl_peers_admin').replace(/\/gnl_peers_admin$/, '/postgres'), { max: 1, onnotice: () => {} });
  try {
    for (const name of names.map((n) => DatabaseName.parse(n))) {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.unsafe(`create database ${name}`);
    }
  } catch (error) {
    throw new Error(`bench:peers could not create its databases on ${serverUrl}`, { cause: error });
  } finally {
    await admin.end();
  }
}
