/**
 * Taking a run over from a holder that hangs without dying (a SIGSTOPped worker keeps its database
 * connections, so its session advisory lock on the run stays granted). Only after this executor holds
 * an unexpired lease on the run, which it got because the old holder's lease expired: the statement
 * checks that lease itself, then terminates the database session that holds the run's advisory lock
 * (pg_locks, as postgres-storage.ts keys it). The old holder's next append is then refused by the
 * core's fencing (HoldLostError) and it gives the run up.
 *
 * Terminating that session ends every hold of that process, which is right: its heartbeats renew all
 * of its leases at once, so a holder that missed one lease missed them all.
 */
import { sql } from 'drizzle-orm';
import { advisoryKey, lockIds, type Storage } from '@/lib/durable/storage';

export async function terminateStaleHolder(args: { storage: Storage; runId: string; owner: string }): Promise<number[]> {
  const { classid, objid } = lockIds(advisoryKey(args.runId));
  const db = await args.storage.database();
  const result = (await db.execute(sql`
    select l.pid, pg_terminate_backend(l.pid) as terminated from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.classid = ${classid}::bigint::oid and l.objid = ${objid}::bigint::oid and l.objsubid = 1
      and l.pid <> pg_backend_pid()
      and exists (select 1 from gnl.run_queue q where q.run_id = ${args.runId} and q.lease_owner = ${args.owner} and q.lease_expires_at > now())`)) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { pid: number; terminated: boolean }[];
  return rows.filter((row) => row.terminated).map((row) => row.pid);
}
