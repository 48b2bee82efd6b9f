import type { SQL } from 'drizzle-orm';
import type { PgDatabase } from 'drizzle-orm/pg-core';

/** A drizzle database on either driver (postgres.js or PGlite), or a transaction of one. */
export type Db = Pick<PgDatabase<any, any, any>, 'execute'>;
export type TransactionalDb = Db & Pick<PgDatabase<any, any, any>, 'transaction'>;

/** Runs a statement and returns its rows: postgres.js gives an array, PGlite gives `{ rows }`. */
export async function query<T>(db: Db, statement: SQL): Promise<T[]> {
  const result = (await db.execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
