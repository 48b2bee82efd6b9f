/**
 * The bulk layer's statements: matching run ids a page at a time (keyset on run_id over gnl.runs, so no
 * statement holds more than one page and none stays open across pages), and the previews
 * (gnl.bulk_previews, gnl.bulk_preview_runs: migration 0013) an apply is limited to. Each statement is
 * its own short transaction; times are the database's clock.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Storage } from '@/lib/durable/storage';
import type { BulkFilter } from './bulk-filter';

type Database = Awaited<ReturnType<Storage['database']>>;

export interface PreviewCounts {
  matched: number;
  wouldChange: number;
  skipped: Record<string, number>;
}

export interface ApplyCounts {
  changed: number;
  skipped: number;
  failed: number;
}

export interface PreviewRow {
  id: string;
  action: string;
  filter: BulkFilter;
  previewedBy: string;
  createdAt: Date;
  counts: PreviewCounts;
  appliedBy: string | null;
  applyReason: string | null;
  appliedAt: Date | null;
  applyCounts: ApplyCounts | null;
}

const PREVIEW_COLUMNS = sql`id, action, filter, previewed_by as "previewedBy", created_at as "createdAt", counts, applied_by as "appliedBy",
  apply_reason as "applyReason", applied_at as "appliedAt", apply_counts as "applyCounts"`;

/** jsonb from PGlite's raw results may arrive as text; timestamps as strings. */
function toPreview(row: PreviewRow): PreviewRow {
  const json = <T>(value: unknown) => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));
  return {
    ...row,
    filter: json(row.filter),
    counts: json(row.counts),
    applyCounts: row.applyCounts === null ? null : json(row.applyCounts),
    createdAt: new Date(row.createdAt),
    appliedAt: row.appliedAt === null ? null : new Date(row.appliedAt),
  };
}

/** The SQL filter over gnl.runs r. Immutable fields (agent, version, created_at) and the two that move (status, the tools waited on). */
function filterSql(filter: BulkFilter): SQL {
  return sql.join(
    [
      sql`true`,
      ...(filter.status ? [sql`r.status = ${filter.status}`] : []),
      ...(filter.agent ? [sql`(r.input->>'agent') = ${filter.agent}`] : []),
      ...(filter.version ? [sql`(r.input->>'agentVersion') = ${filter.version}`] : []),
      ...(filter.tool ? [sql`r.pending @> jsonb_build_array(jsonb_build_object('toolName', ${filter.tool}::text))`] : []),
      ...(filter.createdBefore ? [sql`r.created_at < ${filter.createdBefore}::timestamptz`] : []),
      ...(filter.createdAfter ? [sql`r.created_at > ${filter.createdAfter}::timestamptz`] : []),
    ],
    sql` and `,
  );
}

export class BulkStore {
  constructor(private readonly database: () => Promise<Database>) {}

  private async rows<T>(statement: SQL): Promise<T[]> {
    const result = (await (await this.database()).execute(statement)) as unknown;
    return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  }

  async now(): Promise<Date> {
    const [row] = await this.rows<{ now: string | Date }>(sql`select now() as now`);
    return new Date((row as { now: string | Date }).now);
  }

  /** Up to `limit` ids of runs matching the filter, after `after` in run_id order; with `notIn`, only runs that preview does not hold. */
  async matchingPage(filter: BulkFilter, page: { after?: string; limit: number; notIn?: string }): Promise<string[]> {
    const rows = await this.rows<{ run_id: string }>(sql`select r.run_id from gnl.runs r
      where ${filterSql(filter)}
        and (${page.after ?? null}::text is null or r.run_id > ${page.after ?? null}::text)
        ${page.notIn ? sql`and not exists (select 1 from gnl.bulk_preview_runs p where p.preview_id = ${page.notIn} and p.run_id = r.run_id)` : sql``}
      order by r.run_id limit ${page.limit}::int`);
    return rows.map((row) => row.run_id);
  }

  async createPreview(args: { id: string; action: string; filter: BulkFilter; by: string }): Promise<void> {
    await this.rows(sql`insert into gnl.bulk_previews (id, action, filter, previewed_by, counts)
      values (${args.id}, ${args.action}, ${JSON.stringify(args.filter)}::jsonb, ${args.by}, '{}'::jsonb)`);
  }

  async addPreviewRuns(id: string, runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.rows(sql`insert into gnl.bulk_preview_runs (preview_id, run_id)
      select ${id}, x from jsonb_array_elements_text(${JSON.stringify(runIds)}::text::jsonb) x on conflict do nothing`);
  }

  async finishPreview(id: string, counts: PreviewCounts): Promise<void> {
    await this.rows(sql`update gnl.bulk_previews set counts = ${JSON.stringify(counts)}::jsonb where id = ${id}`);
  }

  async preview(id: string): Promise<PreviewRow | undefined> {
    const [row] = await this.rows<PreviewRow>(sql`select ${PREVIEW_COLUMNS} from gnl.bulk_previews where id = ${id}`);
    return row ? toPreview(row) : undefined;
  }

  /** Marks the preview applied by `by`, once: undefined when it was applied already (or does not exist). */
  async claimPreview(id: string, by: string, reason: string): Promise<PreviewRow | undefined> {
    const [row] = await this.rows<PreviewRow>(sql`update gnl.bulk_previews set applied_by = ${by}, apply_reason = ${reason}, applied_at = now()
      where id = ${id} and applied_at is null returning ${PREVIEW_COLUMNS}`);
    return row ? toPreview(row) : undefined;
  }

  async finishApply(id: string, counts: ApplyCounts): Promise<void> {
    await this.rows(sql`update gnl.bulk_previews set apply_counts = ${JSON.stringify(counts)}::jsonb where id = ${id}`);
  }

  /** Up to `limit` of the preview's run ids after `after`, in run_id order. */
  async previewPage(id: string, page: { after?: string; limit: number }): Promise<string[]> {
    const rows = await this.rows<{ run_id: string }>(sql`select run_id from gnl.bulk_preview_runs
      where preview_id = ${id} and (${page.after ?? null}::text is null or run_id > ${page.after ?? null}::text)
      order by run_id limit ${page.limit}::int`);
    return rows.map((row) => row.run_id);
  }

  /** Forgets previews made before `before` (their snapshots with them); the journal keeps every change they made. */
  async dropPreviewsBefore(before: Date): Promise<void> {
    await this.rows(sql`delete from gnl.bulk_previews where created_at < ${before.toISOString()}::timestamptz`);
  }
}
