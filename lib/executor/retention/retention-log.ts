/** gnl.retention_log (migration 0016): what the retention job dropped, newest first (`gnl retention log`). */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Storage } from '@/lib/durable/storage';
import { type DroppedRun, toDate } from './retention';

export interface RetentionLogEntry extends Omit<DroppedRun, 'lastSeq'> {
  id: number;
  droppedBy: string;
}

const requestSchema = z.object({
  limit: z.number().int().min(1).max(10_000).default(50),
  agent: z.string().min(1).optional(),
  runId: z.string().min(1).optional(),
});

export interface RetentionLogRequest {
  storage: Storage;
  /** Entries at most. Default 50. */
  limit?: number;
  /** Only this agent's runs. */
  agent?: string;
  /** Only this run id's entries. */
  runId?: string;
}

export async function retentionLog(request: RetentionLogRequest): Promise<RetentionLogEntry[]> {
  const { limit, agent, runId } = requestSchema.parse(request);
  const db = await request.storage.database();
  const result = (await db.execute(
    sql`select id, run_id as "runId", agent, status, ended_at as "endedAt", event_count as "eventCount", payload_bytes as "payloadBytes",
          blob_bytes as "blobBytes", policy_days as "policyDays", dropped_by as "droppedBy", dropped_at as "droppedAt"
        from gnl.retention_log
        where (${agent ?? null}::text is null or agent = ${agent ?? null}::text) and (${runId ?? null}::text is null or run_id = ${runId ?? null}::text)
        order by id desc limit ${limit}`,
  )) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
  return rows.map((row) => ({
    id: Number(row.id),
    runId: String(row.runId),
    agent: String(row.agent),
    status: String(row.status),
    endedAt: toDate(row.endedAt as Date | string),
    eventCount: Number(row.eventCount),
    payloadBytes: Number(row.payloadBytes),
    blobBytes: Number(row.blobBytes),
    policyDays: Number(row.policyDays),
    droppedBy: String(row.droppedBy),
    droppedAt: toDate(row.droppedAt as Date | string),
  }));
}
