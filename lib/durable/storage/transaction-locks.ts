/**
 * A lock by name for the length of a transaction (Postgres's transaction-scoped advisory lock, keyed by
 * a 64-bit hash of the name): callers that must not interleave (two sign-in attempts on one login)
 * take it first, and it is given back at commit or rollback. On PGlite, one connection, it is granted at
 * once. Taken in the caller's order: take several in a fixed order to never deadlock.
 */
import { sql } from 'drizzle-orm';
import type { Db } from './sql-rows';

export async function lockForTransaction(tx: Db, name: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`);
}
