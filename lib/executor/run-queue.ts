/**
 * The run queue (gnl.run_queue, migration 0003): which runs an executor should invoke, and who holds
 * a time lease on each. Every lease decision is made by the database's clock (`now()`), never by an
 * executor's, so executors on machines whose clocks disagree still agree on who holds what.
 *
 *   claim      picks runnable runs whose lease is free or expired, FOR UPDATE SKIP LOCKED (two claimers
 *              never pick the same row), and leases them to the claimer until now() + lease;
 *   heartbeat  renews every lease the executor holds; a run missing from the answer was taken over;
 *   finish     ends an invocation: the lease is released, and the run stays runnable only if someone
 *              resumed it meanwhile (`wakeups` moved) or the executor gives it back unfinished.
 *
 * The lease is on top of the journal's hold (a session advisory lock plus the holder token every append
 * checks): the hold guarantees one writer, the lease makes a holder that hangs without dying lose the run.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Storage } from '@/lib/durable/storage';

type Database = Awaited<ReturnType<Storage['database']>>;

export interface QueueEntry {
  runId: string;
  agent: string;
  runnable: boolean;
  wakeups: number;
  queuedAt: Date;
  leaseOwner: string | null;
  /** The executor that claimed the run last, kept after its lease is released or lapses (migration 0006). */
  lastLeaseOwner: string | null;
  leaseExpiresAt: Date | null;
  heartbeatAt: Date | null;
  claimedAt: Date | null;
  claims: number;
  outcome: string | null;
  error: string | null;
  abandonedBy: string | null;
  abandonReason: string | null;
  abandonedAt: Date | null;
  restartOf: string | null;
  restartedAs: string | null;
  createdAt: Date;
  /**
   * A timer: no executor claims the run before this instant (the lease column of a run nobody leases,
   * by the database's clock). Set after a transient failure, for an approval deadline, a scheduled resume.
   */
  notBefore: Date | null;
}

/** A run an executor just claimed. */
export interface Claim {
  runId: string;
  agent: string;
  /** `wakeups` when claimed: finish() keeps the run runnable if it moved since. */
  wakeups: number;
  claims: number;
  claimedAt: Date;
  leaseExpiresAt: Date;
  /** The owner of the expired lease this claim took over, if any (its holder may still hold the run). */
  previousOwner: string | null;
}

export interface ClaimOptions {
  owner: string;
  limit: number;
  leaseMs: number;
  /** Only this run. */
  runId?: string;
  /** Runs this executor is invoking now: never claimed again by it (its own expired lease included). */
  exclude?: readonly string[];
  /** Only runs of these agents (the ones this executor's registry knows). Default: any. */
  agents?: readonly string[];
  /**
   * The only executor on this journal (the embedded one: one process per data folder): a lease held by
   * any other owner belongs to an earlier incarnation of this process and is taken at once.
   */
  sole?: boolean;
}

const COLUMNS = sql`run_id as "runId", agent, runnable, wakeups, queued_at as "queuedAt", lease_owner as "leaseOwner",
  last_lease_owner as "lastLeaseOwner", lease_expires_at as "leaseExpiresAt", heartbeat_at as "heartbeatAt", claimed_at as "claimedAt", claims, outcome, error,
  abandoned_by as "abandonedBy", abandon_reason as "abandonReason", abandoned_at as "abandonedAt", restart_of as "restartOf",
  restarted_as as "restartedAs", created_at as "createdAt", case when lease_owner is null then lease_expires_at end as "notBefore"`;

// float8, not int: a scheduled resume weeks ahead is more than 2^31 ms (int overflowed: the resume was journaled, the queue refused it).
const leaseEnd = (leaseMs: number) => sql`now() + ${Math.max(1, Math.round(leaseMs))}::float8 * interval '1 millisecond'`;

/** SQL: `owner` holds an unexpired lease on the run (by the database's clock), for a statement that must act only then. */
export function leaseHeld(runId: string, owner: string): SQL {
  return sql`exists (select 1 from gnl.run_queue q where q.run_id = ${runId} and q.lease_owner = ${owner} and q.lease_expires_at > now())`;
}

const ENTRY_DATES = ['queuedAt', 'leaseExpiresAt', 'heartbeatAt', 'claimedAt', 'abandonedAt', 'createdAt', 'notBefore'] as const;

/** Timestamps arrive as Dates from postgres.js and as strings from PGlite's raw results: Dates either way. */
function withDates<T extends object>(row: T, fields: readonly string[] = ENTRY_DATES): T {
  const out = { ...row } as Record<string, unknown>;
  for (const field of fields) {
    const value = out[field];
    if (value !== null && value !== undefined && !(value instanceof Date)) out[field] = new Date(value as string);
  }
  return out as T;
}

export class RunQueue {
  constructor(private readonly database: () => Promise<Database>) {}

  private async rows<T>(statement: SQL): Promise<T[]> {
    const result = (await (await this.database()).execute(statement)) as unknown;
    return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
  }

  /**
   * Adds a run (already in the journal) as runnable; nothing if it is queued already. With `leaseTo`
   * the new row is leased to that executor at once, so no other claims it first. True if added.
   */
  async enqueue(args: { runId: string; agent: string; restartOf?: string; leaseTo?: { owner: string; leaseMs: number } }): Promise<boolean> {
    const { leaseTo } = args;
    const added = await this.rows<{ runId: string }>(sql`
      insert into gnl.run_queue (run_id, agent, restart_of, lease_owner, last_lease_owner, lease_expires_at, heartbeat_at, claimed_at, claims)
      values (${args.runId}, ${args.agent}, ${args.restartOf ?? null}, ${leaseTo?.owner ?? null}, ${leaseTo?.owner ?? null},
        ${leaseTo ? leaseEnd(leaseTo.leaseMs) : null}, ${leaseTo ? sql`now()` : null}, ${leaseTo ? sql`now()` : null}, ${leaseTo ? 1 : 0})
      on conflict (run_id) do nothing
      returning run_id as "runId"`);
    return added.length === 1;
  }

  async claim(options: ClaimOptions): Promise<Claim[]> {
    const { owner, limit, leaseMs, runId, sole = false, exclude = [], agents } = options;
    const claims = await this.rows<Claim>(sql`
      with c as (
        select run_id, lease_owner as previous_owner, lease_expires_at from gnl.run_queue
        where runnable and abandoned_at is null
          and (${runId ?? null}::text is null or run_id = ${runId ?? null})
          and run_id not in (select jsonb_array_elements_text(${JSON.stringify(exclude)}::text::jsonb))
          and (${agents ? JSON.stringify(agents) : null}::text is null or agent in (select jsonb_array_elements_text(${agents ? JSON.stringify(agents) : null}::text::jsonb)))
          and (lease_expires_at is null or lease_expires_at <= now() or (${sole}::boolean and lease_owner is not null))
        order by queued_at
        limit ${limit}::int
        for update skip locked)
      update gnl.run_queue q set lease_owner = ${owner}, last_lease_owner = ${owner}, lease_expires_at = ${leaseEnd(leaseMs)}, heartbeat_at = now(),
        claimed_at = now(), claims = q.claims + 1
      from c where q.run_id = c.run_id
      returning q.run_id as "runId", q.agent, q.wakeups, q.claims, q.claimed_at as "claimedAt",
        q.lease_expires_at as "leaseExpiresAt", case when c.lease_expires_at is not null then c.previous_owner end as "previousOwner"`);
    return claims.map((claim) => withDates(claim, ['claimedAt', 'leaseExpiresAt']));
  }

  /** Renews the leases `owner` holds on these runs; returns the ones it still holds (a missing one was taken over). */
  async heartbeat(owner: string, runIds: readonly string[], leaseMs: number): Promise<Map<string, Date>> {
    if (runIds.length === 0) return new Map();
    const renewed = await this.rows<{ runId: string; leaseExpiresAt: Date }>(sql`
      update gnl.run_queue set lease_expires_at = ${leaseEnd(leaseMs)}, heartbeat_at = now()
      where lease_owner = ${owner} and run_id in (select jsonb_array_elements_text(${JSON.stringify(runIds)}::text::jsonb))
      returning run_id as "runId", lease_expires_at as "leaseExpiresAt"`);
    return new Map(renewed.map((row) => [row.runId, new Date(row.leaseExpiresAt)]));
  }

  /**
   * Ends an invocation and releases the lease, if `owner` still holds it. `runnable: 'keep'` gives the run
   * back unfinished (another executor may claim it after `retryAfterMs`); 'done' clears it unless it was
   * resumed during the invocation. `wakeInMs`: a settled run's timer (timer-wake.ts): it stays runnable,
   * not claimed before now() + wakeInMs, unless someone resumed it during the invocation (then at once).
   * False if the lease was no longer this owner's (nothing changed).
   */
  async finish(args: {
    runId: string;
    owner: string;
    wakeups: number;
    runnable: 'keep' | 'done';
    outcome: string;
    error?: string;
    retryAfterMs?: number;
    wakeInMs?: number;
    /** The timer holds even if the run was woken during the invocation (that wake was the timer's scheduling). */
    wakeDespiteWakeups?: boolean;
  }): Promise<boolean> {
    const keep = args.runnable === 'keep' || args.wakeInMs !== undefined;
    const notBefore = args.retryAfterMs
      ? leaseEnd(args.retryAfterMs)
      : args.wakeInMs !== undefined
        ? args.wakeDespiteWakeups
          ? leaseEnd(args.wakeInMs)
          : sql`case when wakeups <> ${args.wakeups}::int then null else ${leaseEnd(args.wakeInMs)} end`
        : null;
    const released = await this.rows<{ runId: string }>(sql`
      update gnl.run_queue set
        runnable = runnable and (${keep}::boolean or wakeups <> ${args.wakeups}::int),
        outcome = ${args.outcome}, error = ${args.error ?? null},
        lease_owner = null, lease_expires_at = ${notBefore}
      where run_id = ${args.runId} and lease_owner = ${args.owner}
      returning run_id as "runId"`);
    return released.length === 1;
  }

  /**
   * Sets a queued run's timer (a scheduled resume): runnable, not claimed before now() + delayMs. A run
   * leased now keeps its lease; its executor sets the timer again from the journal when it finishes
   * (`wakeups` moves, so it stays runnable). The updated entry, or undefined if not queued or abandoned.
   */
  async schedule(runId: string, delayMs: number): Promise<QueueEntry | undefined> {
    const [entry] = await this.rows<QueueEntry>(sql`
      update gnl.run_queue set runnable = true, wakeups = wakeups + 1, queued_at = now(), outcome = null, error = null,
        lease_expires_at = case when lease_owner is null then ${leaseEnd(Math.max(0, delayMs))} else lease_expires_at end
      where run_id = ${runId} and abandoned_at is null
      returning ${COLUMNS}`);
    return entry && withDates(entry);
  }

  /** Releases every lease `owner` still holds, leaving the runs runnable (an executor that stops). */
  async releaseAll(owner: string): Promise<string[]> {
    const released = await this.rows<{ runId: string }>(sql`
      update gnl.run_queue set lease_owner = null, lease_expires_at = null, outcome = 'given-back'
      where lease_owner = ${owner} returning run_id as "runId"`);
    return released.map((row) => row.runId);
  }

  /**
   * Makes a queued run runnable again (after approvals or resolutions), at once: a timer it had (notBefore)
   * is cleared; the invocation sets the next from the journal. The updated entry, or undefined if not queued.
   */
  async wake(runId: string): Promise<QueueEntry | undefined> {
    const [entry] = await this.rows<QueueEntry>(sql`
      update gnl.run_queue set runnable = true, wakeups = wakeups + 1, queued_at = now(), outcome = null, error = null,
        lease_expires_at = case when lease_owner is null then null else lease_expires_at end
      where run_id = ${runId} and abandoned_at is null
      returning ${COLUMNS}`);
    return entry && withDates(entry);
  }

  /**
   * Records that an operator gave the run up (`abandon`: never runnable again; a restart also says which
   * run replaced it). Queues the run first if it was never queued (a run started by runAgent directly).
   */
  async abandon(args: { runId: string; agent: string; by: string; reason: string; restartedAs?: string; abandon: boolean }): Promise<QueueEntry> {
    const { abandon } = args;
    const [entry] = await this.rows<QueueEntry>(sql`
      insert into gnl.run_queue as q (run_id, agent, runnable, abandoned_by, abandon_reason, abandoned_at, restarted_as, outcome)
      values (${args.runId}, ${args.agent}, false, ${abandon ? args.by : null}, ${abandon ? args.reason : null}, ${abandon ? sql`now()` : null},
        ${args.restartedAs ?? null}, ${abandon ? 'abandoned' : null})
      on conflict (run_id) do update set
        runnable = q.runnable and not ${abandon}::boolean,
        abandoned_by = coalesce(q.abandoned_by, excluded.abandoned_by),
        abandon_reason = coalesce(q.abandon_reason, excluded.abandon_reason),
        abandoned_at = coalesce(q.abandoned_at, excluded.abandoned_at),
        restarted_as = coalesce(excluded.restarted_as, q.restarted_as),
        outcome = coalesce(excluded.outcome, q.outcome)
      returning ${COLUMNS}`);
    if (!entry) throw new Error(`Run "${args.runId}" could not be recorded as abandoned.`);
    return withDates(entry);
  }

  /** Clears `runnable` (a canceled run). */
  async settle(runId: string, outcome: string): Promise<void> {
    await this.rows(sql`update gnl.run_queue set runnable = false, outcome = ${outcome} where run_id = ${runId}`);
  }

  async entry(runId: string): Promise<QueueEntry | undefined> {
    const [entry] = await this.rows<QueueEntry>(sql`select ${COLUMNS} from gnl.run_queue where run_id = ${runId}`);
    return entry && withDates(entry);
  }

  /**
   * Whether an executor holds the run or will claim it again (runnable, or leased and the lease not
   * lapsed, by the database's clock), so its invocation's end (a retry of a failure) is still to be
   * decided: a failed child is not settled for its parent meanwhile (child-runs.ts). A run not in the queue: false.
   */
  async settling(runId: string): Promise<boolean> {
    const [row] = await this.rows<{ settling: boolean }>(
      sql`select exists (select 1 from gnl.run_queue where run_id = ${runId} and abandoned_at is null
            and (runnable or (lease_owner is not null and lease_expires_at > now()))) as settling`,
    );
    return row?.settling === true;
  }

  /** Runnable runs not leased to anyone live (for listings and tests). */
  async runnableCount(): Promise<number> {
    const [row] = await this.rows<{ n: number }>(sql`select count(*)::int as n from gnl.run_queue where runnable and abandoned_at is null`);
    return row?.n ?? 0;
  }
}
