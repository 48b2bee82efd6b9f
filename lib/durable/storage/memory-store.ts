/**
 * The memory port (lib/durable/memory/memory-store.ts) on the journal's own database, PGlite or a
 * Postgres server alike (db/schema.ts: gnl.memory_items, gnl.working_memory). Search is exact and needs no
 * extension (the PostgreSQL 15 here has no pgvector package): the resource's embeddings (float32 bytes) are
 * read in batches of SEARCH_BATCH and scored in this process, the top k kept; docs/memory.md says up to
 * what size that is fine, measured (npm run bench:recall).
 * Writes are idempotent by key (a unique index), working memory versioned by its primary key.
 */
import { sql } from 'drizzle-orm';
import {
  MemoryInputError,
  type MemoryItem,
  type MemoryResource,
  type MemoryStore,
  type MemoryThread,
  type RecalledItem,
  type WorkingMemory,
  type WorkingWrite,
} from '../internal';
import { query, type TransactionalDb } from './sql-rows';

interface ItemRow {
  id: string | number;
  resource: string;
  thread: string | null;
  kind: 'message' | 'fact';
  role: string | null;
  text: string;
  run_id: string | null;
  created_at: Date | string;
  score?: number | string;
}

interface WorkingRow {
  resource: string;
  version: number;
  value: unknown;
  updated_by: string;
  reason: string | null;
  run_id: string | null;
  created_at: Date | string;
}

const ITEM_COLUMNS = sql.raw('id, resource, thread, kind, role, text, run_id, created_at');

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

function item(row: ItemRow): MemoryItem {
  return {
    id: Number(row.id),
    resource: row.resource,
    thread: row.thread,
    kind: row.kind,
    role: row.role,
    text: row.text,
    runId: row.run_id,
    createdAt: iso(row.created_at),
  };
}

function working(row: WorkingRow): WorkingMemory {
  return {
    resource: row.resource,
    version: Number(row.version),
    value: row.value,
    updatedBy: row.updated_by,
    reason: row.reason,
    runId: row.run_id,
    at: iso(row.created_at),
  };
}

/** Rows of embeddings read at once by the exact search. */
const SEARCH_BATCH = 2_000;

/** A vector as float32 little-endian bytes (what the column holds). */
function vectorBytes(values: readonly number[]): Uint8Array {
  const floats = Float32Array.from(values);
  return new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
}

/** The stored bytes as floats (copied when the driver's buffer is not 4-byte aligned). */
function floatsOf(bytes: Uint8Array): Float32Array {
  if (bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.byteLength / 4));
  return new Float32Array(Uint8Array.from(bytes).buffer);
}

export class SqlMemoryStore implements MemoryStore {
  constructor(private readonly database: () => Promise<TransactionalDb>) {}

  async add(request: Parameters<MemoryStore['add']>[0]): Promise<{ items: MemoryItem[]; replayed: boolean }> {
    const db = await this.database();
    let inserted = 0;
    await db.transaction(async (tx) => {
      for (const [ordinal, it] of request.items.entries()) {
        const rows = await query<{ id: number }>(
          tx,
          sql`insert into gnl.memory_items (resource, thread, kind, role, text, embedding, key, ordinal, run_id)
              values (${request.resource}, ${it.thread ?? null}, ${it.kind}, ${it.role ?? null}, ${it.text},
                      ${it.embedding ? vectorBytes(it.embedding) : null}, ${request.key}, ${ordinal}, ${request.runId ?? null})
              on conflict (key, ordinal) do nothing returning id`,
        );
        inserted += rows.length;
      }
    });
    const items = (await this.written(request.key)) ?? [];
    // A key names one write: the same key for other items (another resource, other texts) is a caller's mistake, never a replay.
    const same = items.length === request.items.length && items.every((it, i) => it.resource === request.resource && it.text === request.items[i]?.text);
    if (!same)
      throw new MemoryInputError({
        what: `memory write under key "${request.key}" refused`,
        problems: ['the key was used for another write (another resource or other items): give each write its own key'],
      });
    return { items, replayed: inserted === 0 };
  }

  async written(key: string): Promise<MemoryItem[] | undefined> {
    const rows = await query<ItemRow>(await this.database(), sql`select ${ITEM_COLUMNS} from gnl.memory_items where key = ${key} order by ordinal`);
    return rows.length > 0 ? rows.map(item) : undefined;
  }

  async items(request: { resource: string; limit: number }): Promise<MemoryItem[]> {
    const rows = await query<ItemRow>(
      await this.database(),
      sql`select ${ITEM_COLUMNS} from gnl.memory_items where resource = ${request.resource} order by id desc limit ${request.limit}`,
    );
    return rows.map(item);
  }

  async resources(request: { limit: number; contains?: string }): Promise<MemoryResource[]> {
    const rows = await query<{ resource: string; items: number | string; versions: number | string; last_at: Date | string }>(
      await this.database(),
      sql`select resource, sum(items) as items, sum(versions) as versions, max(last_at) as last_at from (
            select resource, count(*) as items, 0 as versions, max(created_at) as last_at from gnl.memory_items group by resource
            union all
            select resource, 0 as items, count(*) as versions, max(created_at) as last_at from gnl.working_memory group by resource
          ) held where strpos(resource, ${request.contains ?? ''}) > 0
          group by resource order by max(last_at) desc, resource limit ${request.limit}`,
    );
    return rows.map((row) => ({ resource: row.resource, items: Number(row.items), versions: Number(row.versions), lastAt: iso(row.last_at) }));
  }

  async threads(request: { resource: string; limit: number }): Promise<MemoryThread[]> {
    const rows = await query<{ thread: string; messages: number | string; first_at: Date | string; last_at: Date | string }>(
      await this.database(),
      sql`select thread, count(*) as messages, min(created_at) as first_at, max(created_at) as last_at from gnl.memory_items
          where resource = ${request.resource} and kind = 'message' and thread is not null
          group by thread order by max(id) desc limit ${request.limit}`,
    );
    return rows.map((row) => ({ thread: row.thread, messages: Number(row.messages), firstAt: iso(row.first_at), lastAt: iso(row.last_at) }));
  }

  async history(request: { resource: string; thread: string; limit: number }): Promise<MemoryItem[]> {
    const rows = await query<ItemRow>(
      await this.database(),
      sql`select * from (select ${ITEM_COLUMNS} from gnl.memory_items
            where resource = ${request.resource} and thread = ${request.thread} and kind = 'message'
            order by id desc limit ${request.limit}) last order by id`,
    );
    return rows.map(item);
  }

  async search(request: Parameters<MemoryStore['search']>[0]): Promise<RecalledItem[]> {
    const kinds = request.kinds ?? ['message', 'fact'];
    const target = Float32Array.from(request.embedding);
    const db = await this.database();
    // Scored on ids and embeddings only; the k best rows are read whole once, at the end (their text may
    // be long, and all but k of them would be read for nothing: bench/memory-recall.ts).
    const best: { id: number; score: number }[] = [];
    // One kind at a time: each batch is then a walk of the (resource, kind, id) index in id order. With
    // both kinds in one query the database sorted every remaining row for each batch (measured: 10 s for
    // a recall over 100,000 items on PostgreSQL, bench/memory-recall.ts).
    for (const kind of kinds)
      for (let after = 0; ; ) {
        // As base64 text: both drivers carry text fast, PGlite's bytea (hex) several times slower (measured).
        const rows = await query<{ id: number | string; embedding: string }>(
          db,
          sql`select id, encode(embedding, 'base64') as embedding from gnl.memory_items
            where resource = ${request.resource} and kind = ${kind} and id > ${after} and embedding is not null
              and octet_length(embedding) = ${target.length * 4}
            order by resource, kind, id limit ${SEARCH_BATCH}`,
        );
        for (const row of rows) {
          const v = floatsOf(Buffer.from(row.embedding, 'base64'));
          let score = 0;
          for (let i = 0; i < target.length; i++) score += (target[i] as number) * (v[i] as number);
          if (best.length < request.topK || score > (best[best.length - 1] as { score: number }).score) {
            best.push({ id: Number(row.id), score });
            best.sort((a, b) => b.score - a.score || a.id - b.id);
            if (best.length > request.topK) best.pop();
          }
        }
        if (rows.length < SEARCH_BATCH) break;
        after = Number(rows[rows.length - 1]?.id);
      }
    if (best.length === 0) return [];
    const ids = best.map((b) => b.id);
    const rows = await query<ItemRow>(
      db,
      sql`select ${ITEM_COLUMNS} from gnl.memory_items where resource = ${request.resource} and id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::bigint)`,
    );
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    return best.flatMap(({ id, score }) => {
      const row = byId.get(id);
      return row ? [{ ...item(row), score }] : [];
    });
  }

  async working(resource: string): Promise<WorkingMemory | undefined> {
    const [row] = await query<WorkingRow>(
      await this.database(),
      sql`select * from gnl.working_memory where resource = ${resource} order by version desc limit 1`,
    );
    return row ? working(row) : undefined;
  }

  async writeWorking(request: Parameters<MemoryStore['writeWorking']>[0]): Promise<WorkingWrite> {
    const db = await this.database();
    const [already] = await query<WorkingRow>(db, sql`select * from gnl.working_memory where key = ${request.key}`);
    if (already) return { ok: true, version: Number(already.version), replayed: true };
    // Written only when the newest version is the one the writer read: a concurrent writer of the same
    // version loses on the primary key, one that read an older version finds the condition false.
    const rows = await query<{ version: number }>(
      db,
      sql`insert into gnl.working_memory (resource, version, value, updated_by, reason, key, run_id)
          select ${request.resource}, ${request.expectedVersion + 1}, ${JSON.stringify(request.value ?? null)}::jsonb, ${request.by},
                 ${request.reason ?? null}, ${request.key}, ${request.runId ?? null}
          where coalesce((select max(version) from gnl.working_memory where resource = ${request.resource}), 0) = ${request.expectedVersion}
          on conflict do nothing returning version`,
    );
    if (rows[0]) return { ok: true, version: Number(rows[0].version), replayed: false };
    // The same key written meanwhile (a retry racing its first attempt) is that write, not a conflict.
    const [raced] = await query<WorkingRow>(db, sql`select * from gnl.working_memory where key = ${request.key}`);
    if (raced) return { ok: true, version: Number(raced.version), replayed: true };
    return { ok: false, conflict: true, current: await this.working(request.resource) };
  }

  async workingHistory(resource: string): Promise<WorkingMemory[]> {
    const rows = await query<WorkingRow>(await this.database(), sql`select * from gnl.working_memory where resource = ${resource} order by version desc`);
    return rows.map(working);
  }

  async forget(resource: string): Promise<{ items: number; versions: number }> {
    const db = await this.database();
    let counts = { items: 0, versions: 0 };
    await db.transaction(async (tx) => {
      const items = await query<{ id: number }>(tx, sql`delete from gnl.memory_items where resource = ${resource} returning id`);
      const versions = await query<{ version: number }>(tx, sql`delete from gnl.working_memory where resource = ${resource} returning version`);
      counts = { items: items.length, versions: versions.length };
    });
    return counts;
  }
}
