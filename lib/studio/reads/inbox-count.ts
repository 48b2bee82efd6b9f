/**
 * How many items wait in the inbox: the undecided pending items of every run that waits for a person,
 * counted in one statement on the runs summary (status index; the pending list the append statement keeps
 * by the projection's rules). The nav shows it; useRunsLive re-reads it whenever a run changes. Server-only.
 */
import 'server-only';
import { sql } from 'drizzle-orm';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';

export async function inboxCount(storage: Storage = storageFromEnv()): Promise<number> {
  const db = await storage.database();
  const result = (await db.execute(sql`
    select count(*)::int as n from gnl.runs r cross join lateral jsonb_array_elements(r.pending) p
    where r.status in ('waiting-approval', 'waiting-tool-result', 'blocked') and not (p.value ? 'decision')`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: { n: number }[] }).rows) as { n: number }[];
  return Number(rows[0]?.n ?? 0);
}
