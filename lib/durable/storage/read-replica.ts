/**
 * The Studio's listings and charts on a read replica (GNL_READ_DATABASE_URL: a streaming standby of the
 * journal's primary), so a busy runs page or overview does not load the server the appends go to.
 *
 * Only reads that may lag a moment use it (the runs list and its search and costs, the overview):
 * whatever a decision depends on (a run's events, its pending items, the inbox) reads the primary, so a
 * person never decides on a stale page. Its sessions are read-only (`default_transaction_read_only`):
 * nothing can be written there by mistake. A replica that does not answer, or cancels a read in a
 * conflict with recovery, costs nothing but the detour: the read runs on the primary, said once a
 * minute on stderr.
 */
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { TransactionalDb } from './sql-rows';

const WARN_EVERY_MS = 60_000;

export class ReadReplica {
  private readonly client: postgres.Sql;
  private readonly orm: TransactionalDb;
  private warnedAt = 0;
  /** Reads answered by the replica, and those it sent to the primary (for tests and metrics). */
  readonly counts = { replica: 0, primary: 0 };

  constructor(
    connectionString: string,
    private readonly warn: (message: string) => void = (message) => console.warn(`[gnl] ${message}`),
  ) {
    this.client = postgres(connectionString, {
      max: 4,
      onnotice: () => {},
      connect_timeout: 5,
      connection: { application_name: 'gnl-read', options: '-c default_transaction_read_only=on' },
    });
    this.orm = drizzle({ client: this.client }) as unknown as TransactionalDb;
  }

  /** `read` on the replica; on the primary's database when the replica fails it. */
  async read<T>(primary: () => Promise<TransactionalDb>, read: (db: TransactionalDb) => Promise<T>): Promise<T> {
    try {
      const result = await read(this.orm);
      this.counts.replica += 1;
      return result;
    } catch (error) {
      const now = Date.now();
      if (now - this.warnedAt > WARN_EVERY_MS) {
        this.warnedAt = now;
        this.warn(`the read replica (GNL_READ_DATABASE_URL) failed a read, which the primary answers instead: ${rootMessage(error)}`);
      }
      this.counts.primary += 1;
      return read(await primary());
    }
  }

  async close(): Promise<void> {
    await this.client.end({ timeout: 5 });
  }
}

/** The innermost cause's message (drizzle wraps the driver's error: "Failed query: …"). */
function rootMessage(error: unknown): string {
  let current = error as { message?: string; cause?: unknown } | undefined;
  while (current && typeof current === 'object' && current.cause) current = current.cause as typeof current;
  return String(current?.message ?? current);
}
