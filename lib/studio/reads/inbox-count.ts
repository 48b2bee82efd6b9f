/**
 * How many items wait in the inbox: the undecided pending items of every run that waits for a person,
 * counted in one statement on the runs summary (status index; the pending list the append statement keeps
 * by the projection's rules). A sub-agent call whose child run exists is its child's to answer, not counted
 * (lib/executor/sub-agents.ts). The nav shows it; useRunsLive re-reads it whenever a run changes. Server-only.
 */
import 'server-only';
import { sql } from 'drizzle-orm';
import { type Storage, storageFromEnv } from '@/lib/durable/storage';

export async function inboxCount(storage: Storage = storageFromEnv()): Promise<number> {
  const db = await storage.database();
  const result = (await db.execute(sql`
    select count(*)::int as n from gnl.runs r cross join lateral jsonb_array_elements(r.pending) p
    where r.status in ('waiting-approval', 'waiting-tool-result', 'blocked') and not (p.value ? 'decision')
      and not (p.value->>'kind' = 'tool-result' and exists (
        select 1 from gnl.runs c where c.run_id = r.run_id || '/' || (p.value->>'toolCallId') and c.input->'parent'->>'runId' = r.run_id))`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: { n: number }[] }).rows) as { n: number }[];
  return Number(rows[0]?.n ?? 0);
}
