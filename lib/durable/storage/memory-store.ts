/**
 * The memory port (lib/durable/memory/memory-store.ts) on the journal's own database, PGlite or a
 * Postgres server alike (db/schema.ts: gnl.memory_items, gnl.working_memory). Search is exact: the dot
 * product of unit vectors in SQL, over the resource's items, so it needs no extension (the PostgreSQL 15
 * here has no pgvector package); docs/memory.md says up to what size that is fine, measured.
 * Writes are idempotent by key (a unique index), working memory versioned by its primary key.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { MemoryItem, MemoryStore, RecalledItem, WorkingMemory, WorkingWrite } from '../internal';
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

/** A vector as a SQL real[] (sent as JSON text: both drivers pass text alike). */
function realArray(values: readonly number[]): SQL {
  return sql`(select array_agg(e.x::real order by e.o) from jsonb_array_elements_text(${JSON.stringify(values)}::jsonb) with ordinality as e(x, o))`;
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
                      ${it.embedding ? realArray(it.embedding) : null}, ${request.key}, ${ordinal}, ${request.runId ?? null})
              on conflict (key, ordinal) do nothing returning id`,
        );
        inserted += rows.length;
      }
    });
    return { items: (await this.written(request.key)) ?? [], replayed: inserted === 0 };
  }

  async written(key: string): Promise<MemoryItem[] | undefined> {
    const rows = await query<ItemRow>(await this.database(), sql`select ${ITEM_COLUMNS} from gnl.memory_items where key = ${key} order by ordinal`);
    return rows.length > 0 ? rows.map(item) : undefined;
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
    const rows = await query<ItemRow>(
      await this.database(),
      sql`with q as (select ${realArray(request.embedding)} as v)
          select ${ITEM_COLUMNS}, (select sum(a * b) from unnest(embedding, (select v from q)) as t(a, b)) as score
          from gnl.memory_items
          where resource = ${request.resource} and kind in (${sql.join(
            kinds.map((k) => sql`${k}`),
            sql`, `,
          )}) and embedding is not null and cardinality(embedding) = ${request.embedding.length}
          order by score desc, id limit ${request.topK}`,
    );
    return rows.map((row) => ({ ...item(row), score: Number(row.score) }));
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
