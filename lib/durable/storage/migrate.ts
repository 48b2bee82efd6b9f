/**
 * Creates and migrates GNL's schema on first use in any process. Under a transaction-scoped advisory
 * lock, so two first starts at once (two workers, the Studio and a worker) are safe: the second waits,
 * then sees the first's tables. The migrations are the committed drizzle-kit output, embedded in code.
 */
import { sql } from 'drizzle-orm';
import { migrations } from '../../../db/migrations.generated';
import { query, type TransactionalDb } from './sql-rows';

// Arbitrary constant shared by every GNL process: the key of the migration lock.
const MIGRATION_LOCK_KEY = 0x676e6c6d6967n; // "gnlmig"

export async function migrate(db: TransactionalDb): Promise<{ applied: string[] }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY.toString()}::bigint)`);
    await tx.execute(sql`create schema if not exists gnl_meta`);
    await tx.execute(sql`create table if not exists gnl_meta.migrations (tag text primary key, applied_at timestamptz not null default now())`);
    const done = new Set((await query<{ tag: string }>(tx, sql`select tag from gnl_meta.migrations`)).map((row) => row.tag));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.tag)) continue;
      for (const statement of migration.sql.split('--> statement-breakpoint')) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into gnl_meta.migrations (tag) values (${migration.tag})`);
      applied.push(migration.tag);
    }
    return { applied };
  });
}
