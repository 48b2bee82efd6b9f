/**
 * Memory retention (GNL_MEMORY_RETENTION_DAYS, docs/memory.md#retention): what memory holds about a
 * resource is deleted once it is older than the setting, a resource at a time, each in one statement
 * that also writes its gnl.memory_retention_log row (counts and bytes, never the text).
 *
 * Deleted: facts and messages (gnl.memory_items) written before the cut, and working memory versions
 * written before it except the resource's newest: the record an agent reads stays whatever its age (a
 * versioned write compares against it), its history goes. A resource's whole memory, the newest
 * version too, goes with an erasure (`gnl erase --subject`), never with retention.
 *
 * The cut is the database's clock minus the days, read once per call: one pass deletes against one
 * instant, whatever its length. What the store keeps to make writes idempotent (an item's key) goes with
 * the item: a run blocked on an unknown memory write for longer than the retention would find it not
 * written and write it again (docs/memory.md says so).
 */
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Storage } from '@/lib/durable/storage';
import { rows, toDate } from './retention';

type Database = Awaited<ReturnType<Storage['database']>>;

/** What one resource lost to retention: its gnl.memory_retention_log row. */
export interface DroppedMemory {
  resource: string;
  /** Facts and messages deleted. */
  items: number;
  /** Working memory versions deleted (never the newest). */
  versions: number;
  /** Bytes of what was deleted (items' text and embeddings, versions' values as JSON text). */
  bytes: number;
  /** Everything deleted was written before this instant. */
  olderThan: Date;
  policyDays: number;
  droppedBy: string;
  droppedAt: Date;
}

export interface MemoryRetentionBatch {
  dropped: DroppedMemory[];
  /** True when the batch was full: more resources may hold expired memory. */
  more: boolean;
  /** The cut this batch used: pass it again as `olderThan` so a pass keeps one instant. */
  olderThan: Date;
}

const requestSchema = z.object({
  days: z.number().int().min(1).max(36_500),
  droppedBy: z.string().trim().min(1, 'say who drops').max(200),
  batchSize: z.number().int().min(1).max(10_000).default(100),
  now: z.date().optional(),
  olderThan: z.date().optional(),
});

export interface MemoryRetentionRequest {
  storage: Storage;
  /** Memory older than this many days is deleted (GNL_MEMORY_RETENTION_DAYS). */
  days: number;
  /** Who deletes (recorded in the log): an executor's owner, or `cli:<user>@<host>`. */
  droppedBy: string;
  /** Resources per batch. Default 100. */
  batchSize?: number;
  /** The instant ages are measured from. Default: the database's clock. */
  now?: Date;
  /** The cut itself (a previous batch's `olderThan`): wins over `now` and `days`. */
  olderThan?: Date;
}

/** Resources holding memory older than the cut, at most batchSize, by name. Writes nothing (the CLI's dry run). */
export async function findExpiredMemory(request: Omit<MemoryRetentionRequest, 'droppedBy'>): Promise<{ resources: string[]; olderThan: Date }> {
  const parsed = requestSchema.parse({ ...request, droppedBy: 'dry run' });
  const db = await request.storage.database();
  const olderThan = await cutOf(db, parsed);
  return { resources: await candidates(db, olderThan, parsed.batchSize), olderThan };
}

/** One batch: at most batchSize resources, each trimmed and logged in one statement. */
export async function dropExpiredMemory(request: MemoryRetentionRequest): Promise<MemoryRetentionBatch> {
  const parsed = requestSchema.parse(request);
  const db = await request.storage.database();
  const olderThan = await cutOf(db, parsed);
  const resources = await candidates(db, olderThan, parsed.batchSize);
  const dropped: DroppedMemory[] = [];
  for (const resource of resources) {
    const row = await trim(db, resource, olderThan, parsed.days, parsed.droppedBy);
    if (row) dropped.push(row);
  }
  return { dropped, more: resources.length === parsed.batchSize, olderThan };
}

async function cutOf(db: Database, args: z.output<typeof requestSchema>): Promise<Date> {
  if (args.olderThan) return args.olderThan;
  const now = args.now ? sql`${args.now.toISOString()}::timestamptz` : sql`now()`;
  const [row] = await rows<{ cut: Date | string }>(db, sql`select ${now} - make_interval(days => ${args.days}) as cut`);
  return toDate(row?.cut);
}

async function candidates(db: Database, olderThan: Date, batchSize: number): Promise<string[]> {
  const cut = olderThan.toISOString();
  const found = await rows<{ resource: string }>(
    db,
    sql`select resource from (
          select resource from gnl.memory_items where created_at < ${cut}::timestamptz
          union
          select w.resource from gnl.working_memory w
          where w.created_at < ${cut}::timestamptz
            and w.version < (select max(n.version) from gnl.working_memory n where n.resource = w.resource)
        ) expired order by resource limit ${batchSize}`,
  );
  return found.map((row) => row.resource);
}

/** One statement: the resource's expired items and versions deleted, and their log row, or nothing when another pass took them first. */
async function trim(db: Database, resource: string, olderThan: Date, days: number, droppedBy: string): Promise<DroppedMemory | undefined> {
  const cut = olderThan.toISOString();
  const [row] = await rows<{ items: number | string; versions: number | string; bytes: number | string; droppedAt: Date | string }>(
    db,
    sql`with items as (
          delete from gnl.memory_items where resource = ${resource} and created_at < ${cut}::timestamptz
          returning octet_length(text) + coalesce(octet_length(embedding), 0) as bytes
        ), versions as (
          delete from gnl.working_memory w where w.resource = ${resource} and w.created_at < ${cut}::timestamptz
            and w.version < (select max(n.version) from gnl.working_memory n where n.resource = ${resource})
          returning octet_length(value::text) as bytes
        ), counted as (
          select (select count(*) from items) as items, (select count(*) from versions) as versions,
            coalesce((select sum(bytes) from items), 0) + coalesce((select sum(bytes) from versions), 0) as bytes
        )
        insert into gnl.memory_retention_log (resource, items, versions, bytes, older_than, policy_days, dropped_by)
        select ${resource}, items, versions, bytes, ${cut}::timestamptz, ${days}, ${droppedBy} from counted
        where items > 0 or versions > 0
        returning items, versions, bytes, dropped_at as "droppedAt"`,
  );
  if (!row) return undefined;
  return {
    resource,
    items: Number(row.items),
    versions: Number(row.versions),
    bytes: Number(row.bytes),
    olderThan,
    policyDays: days,
    droppedBy,
    droppedAt: toDate(row.droppedAt),
  };
}

/**
 * Batches until no resource is left or `maxBatches` ran (then `more`), all against the first batch's cut;
 * `stop` is asked between batches (an executor that is stopping). What the ticker and `gnl retention run` do.
 */
export async function dropExpiredMemoryBatches(
  request: Omit<MemoryRetentionRequest, 'olderThan'> & { maxBatches: number; stop?: () => boolean },
): Promise<{ dropped: DroppedMemory[]; more: boolean }> {
  const { maxBatches, stop, ...one } = request;
  const dropped: DroppedMemory[] = [];
  let olderThan: Date | undefined;
  for (let batches = 0; ; batches++) {
    if (batches >= maxBatches || (batches > 0 && stop?.())) return { dropped, more: true };
    const batch = await dropExpiredMemory({ ...one, ...(olderThan ? { olderThan } : {}) });
    olderThan = batch.olderThan;
    dropped.push(...batch.dropped);
    if (!batch.more) return { dropped, more: false };
  }
}

const logSchema = z.object({ limit: z.number().int().min(1).max(10_000).default(50), resource: z.string().min(1).optional() });

/** gnl.memory_retention_log, newest first (`gnl retention log --memory`). */
export async function memoryRetentionLog(request: { storage: Storage; limit?: number; resource?: string }): Promise<(DroppedMemory & { id: number })[]> {
  const { limit, resource } = logSchema.parse(request);
  const db = await request.storage.database();
  const found = await rows<Record<string, unknown>>(
    db,
    sql`select id, resource, items, versions, bytes, older_than as "olderThan", policy_days as "policyDays", dropped_by as "droppedBy", dropped_at as "droppedAt"
        from gnl.memory_retention_log
        where (${resource ?? null}::text is null or resource = ${resource ?? null}::text)
        order by id desc limit ${limit}`,
  );
  return found.map((row) => ({
    id: Number(row.id),
    resource: String(row.resource),
    items: Number(row.items),
    versions: Number(row.versions),
    bytes: Number(row.bytes),
    olderThan: toDate(row.olderThan as Date | string),
    policyDays: Number(row.policyDays),
    droppedBy: String(row.droppedBy),
    droppedAt: toDate(row.droppedAt as Date | string),
  }));
}
