/**
 * The notification outbox's delivery side (gnl.notifications, migration 0014). The journal's append
 * inserts a row for each event that starts a wait for people or a failure; whichever executor process
 * has webhooks configured claims due rows here, with a time lease (database clock, FOR UPDATE SKIP
 * LOCKED, as the run queue), sends, and records the outcome in place. A process that dies mid-delivery
 * leaves its lease to expire and another sends again: at least once, under the same event id.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { RunStatus } from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';

type Database = Awaited<ReturnType<Storage['database']>>;

export type Delivery = 'pending' | 'delivered' | 'failed' | 'superseded' | 'expired';

/** One webhook's latest result for an event, keyed in `targets` by the webhook's fingerprint. */
export interface TargetResult {
  /** The webhook's origin (its URL may hold a token: never stored). */
  target: string;
  status: 'delivered' | 'failed';
  httpStatus?: number;
  error?: string;
  at: string;
}

export interface OutboxRow {
  runId: string;
  seq: number;
  status: RunStatus;
  createdAt: Date;
  delivery: Delivery;
  attempts: number;
  nextAttemptAt: Date;
  leaseOwner: string | null;
  lastError: string | null;
  deliveredAt: Date | null;
  targets: Record<string, TargetResult>;
}

/** A claimed row, with its age by the database's clock. */
export interface ClaimedNotification extends OutboxRow {
  ageMs: number;
}

/** How a claim ends: sent to every webhook, tried again later, given up, or not sent (and why). */
export type Settlement =
  | { outcome: 'delivered'; targets: Record<string, TargetResult> }
  | { outcome: 'retry'; targets: Record<string, TargetResult>; error: string; inMs: number }
  | { outcome: 'failed'; targets: Record<string, TargetResult>; error: string }
  | { outcome: 'superseded' | 'expired'; reason: string }
  /** Not decidable yet (a failure whose executor has not given its verdict): looked at again later, no attempt counted. */
  | { outcome: 'defer'; inMs: number };

const COLUMNS = sql`run_id as "runId", seq, status, created_at as "createdAt", delivery, attempts, next_attempt_at as "nextAttemptAt",
  lease_owner as "leaseOwner", last_error as "lastError", delivered_at as "deliveredAt", targets`;

const inMs = (ms: number) => sql`now() + ${Math.max(0, Math.round(ms))}::int * interval '1 millisecond'`;

/** Timestamps arrive as Dates from postgres.js and as strings from PGlite's raw results: Dates either way. */
function withDates<T extends OutboxRow>(row: T): T {
  const date = (value: unknown) => (value === null || value instanceof Date ? value : new Date(value as string));
  const out = { ...row, createdAt: date(row.createdAt), nextAttemptAt: date(row.nextAttemptAt), deliveredAt: date(row.deliveredAt) } as T;
  if ('ageMs' in out) (out as unknown as ClaimedNotification).ageMs = Number(out.ageMs);
  return out;
}

export class NotificationOutbox {
  constructor(private readonly database: () => Promise<Database>) {}

  private async rows<T>(statement: SQL): Promise<T[]> {
    const result = (await (await this.database()).execute(statement)) as unknown;
    return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  }

  /**
   * Due rows (pending, past their next attempt, lease free or expired), oldest first, leased to `owner`
   * until now() + leaseMs. `sole`: the only process on its journal (the embedded one), so a lease of
   * another owner is a dead earlier process's and is taken at once.
   */
  async claim(args: { owner: string; limit: number; leaseMs: number; sole?: boolean }): Promise<ClaimedNotification[]> {
    const claimed = await this.rows<ClaimedNotification>(sql`
      with c as (
        select run_id, seq from gnl.notifications
        where delivery = 'pending' and next_attempt_at <= now()
          and (lease_expires_at is null or lease_expires_at <= now() or (${args.sole ?? false}::boolean and lease_owner <> ${args.owner}))
        order by next_attempt_at
        limit ${args.limit}::int
        for update skip locked)
      update gnl.notifications n set lease_owner = ${args.owner}, lease_expires_at = ${inMs(args.leaseMs)}, updated_at = now()
      from c where n.run_id = c.run_id and n.seq = c.seq
      returning n.run_id as "runId", n.seq, n.status, n.created_at as "createdAt", n.delivery, n.attempts, n.next_attempt_at as "nextAttemptAt",
        n.lease_owner as "leaseOwner", n.last_error as "lastError", n.delivered_at as "deliveredAt", n.targets,
        (extract(epoch from now() - n.created_at) * 1000)::float8 as "ageMs"`);
    return claimed.map(withDates);
  }

  /** Records how a claim ended and releases its lease; false if `owner` no longer held it (another process took it over). */
  async settle(args: { runId: string; seq: number; owner: string; settlement: Settlement }): Promise<boolean> {
    const { settlement: s } = args;
    const set =
      s.outcome === 'delivered'
        ? sql`delivery = 'delivered', attempts = attempts + 1, delivered_at = now(), last_error = null, targets = ${JSON.stringify(s.targets)}::text::jsonb`
        : s.outcome === 'retry'
          ? sql`attempts = attempts + 1, next_attempt_at = ${inMs(s.inMs)}, last_error = ${s.error}, targets = ${JSON.stringify(s.targets)}::text::jsonb`
          : s.outcome === 'failed'
            ? sql`delivery = 'failed', attempts = attempts + 1, last_error = ${s.error}, targets = ${JSON.stringify(s.targets)}::text::jsonb`
            : s.outcome === 'defer'
              ? sql`next_attempt_at = ${inMs(s.inMs)}`
              : sql`delivery = ${s.outcome}, last_error = ${s.reason}`;
    const updated = await this.rows<{ seq: number }>(sql`
      update gnl.notifications set ${set}, lease_owner = null, lease_expires_at = null, updated_at = now()
      where run_id = ${args.runId} and seq = ${args.seq} and lease_owner = ${args.owner}
      returning seq`);
    return updated.length === 1;
  }

  /** A run's notifications, oldest first (the run page, `gnl show`). */
  async forRun(runId: string): Promise<OutboxRow[]> {
    const rows = await this.rows<OutboxRow>(sql`select ${COLUMNS} from gnl.notifications where run_id = ${runId} order by seq`);
    return rows.map(withDates);
  }
}
