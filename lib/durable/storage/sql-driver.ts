/**
 * Raw SQL through the driver itself: the journal's hot path (appends, loads, decisions, live reads).
 *
 * Each statement is one prepared statement, one round trip: postgres.js parses a statement text once
 * per connection and afterwards sends only Bind/Execute. drizzle's `execute(sql`…`)` sends
 * parameterised statements unprepared, and postgres.js then asks the server to describe each one
 * before executing it: two round trips per append (bench/append.ts measures both). drizzle stays for
 * the schema, migrations and the Studio's listings.
 */
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type postgres from 'postgres';

export interface SqlQuery {
  /** Runs one statement (`$1`…`$n` placeholders) and returns its rows. */
  query<T>(text: string, params: readonly unknown[]): Promise<T[]>;
}

export interface SqlDriver extends SqlQuery {
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: SqlQuery) => Promise<T>): Promise<T>;
}

export function postgresDriver(client: postgres.Sql): SqlDriver {
  const on = (sql: postgres.Sql | postgres.TransactionSql): SqlQuery => ({
    query: async <T>(text: string, params: readonly unknown[]) =>
      (await sql.unsafe(text, params as postgres.ParameterOrJSON<never>[], { prepare: true })) as unknown as T[],
  });
  return {
    ...on(client),
    transaction: <T>(work: (tx: SqlQuery) => Promise<T>) => client.begin((tx) => work(on(tx))) as Promise<T>,
  };
}

export function pgliteDriver(pglite: PGlite): SqlDriver {
  const on = (db: PGlite | Transaction): SqlQuery => ({
    query: async <T>(text: string, params: readonly unknown[]) => (await db.query<T>(text, params as unknown[])).rows,
  });
  return {
    ...on(pglite),
    transaction: <T>(work: (tx: SqlQuery) => Promise<T>) => pglite.transaction((tx) => work(on(tx))),
  };
}
