/**
 * Holds on Postgres: a session advisory lock per run, all on one side session per process (`gnl-holds`).
 *
 * The lock lives exactly as long as that server session, so the session must stay up for as long as a
 * run is held, however long its tool and model calls take:
 * - the statement that takes a lock also exempts its session from `idle_session_timeout`
 *   (session-settings.ts);
 * - while at least one run is held, a keep-alive statement runs every `keepAliveMs`, so no proxy or load
 *   balancer sees the connection idle (TCP keepalive alone does not count as traffic for an L7 proxy).
 *   It also checks that the connection still reaches the session that took the locks: when it does not
 *   (the session was killed, the network cut), the holds are gone and `onHoldsLost` is told at once,
 *   rather than at the run's next append (which writes nothing either way: event-rows.ts fences it);
 * - right after a lock is granted on a connection not checked yet (or answered by another server session
 *   than the one checked), a second statement re-enters it: only the session holding a lock can, so a
 *   connection whose statements land on different server sessions (a transaction-pooling proxy) is
 *   refused at the start of the run with HoldSessionError instead of holding nothing. Once a connection
 *   passed, a lock its server session grants again costs no second statement (issue 31).
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import { HoldSessionError, JobBusyError, RunBusyError } from '../internal';
import { CoalescingNotifier, NOTIFY_CHANNEL } from './notifications';
import { advisoryKey, describeRunHolder, jobAdvisoryKey } from './run-locks';
import { EXEMPT_FROM_IDLE_TIMEOUT } from './session-settings';
import type { HoldProvider } from './postgres-journal';
import { query, type TransactionalDb } from './sql-rows';

/** How long a job's lock is waited for before the call fails (JobBusyError): a holder keeps it only from a key's choice to its start. */
export const JOB_LOCK_WAIT_MS = 30_000;

/** A lock granted to this process: the server session (backend pid) that holds it. */
type Locked = { pid: number; reported: boolean };

export interface AdvisoryHoldsOptions {
  /** Opens the side session's client (one connection, never recycled). */
  openSession: () => postgres.Sql;
  /** The migrated pool (for naming a run's other holder). */
  pool: () => Promise<{ orm: TransactionalDb }>;
  /** Interval of the keep-alive statement while a run is held. */
  keepAliveMs: number;
  /** A notification could not be sent (subscribers catch up with the next one). */
  onNotifyError: (error: unknown) => void;
  /** The keep-alive found that the session holding these runs is gone. */
  onHoldsLost: (error: HoldSessionError) => void;
}

export class AdvisoryLockHolds implements HoldProvider {
  /** Runs being taken or held here (advisory locks are re-entrant within a session: a second caller is refused by this set). */
  private readonly busy = new Set<string>();
  private readonly locked = new Map<string, Locked>();
  private session: postgres.Sql | undefined;
  /** The side session assertSessionNotShared has found exclusive (checked again for a new one). */
  private checkedSession: postgres.Sql | undefined;
  /**
   * The side session and server session (backend pid) whose lock assertSessionHolds re-entered: a lock
   * granted on that same pair again is not re-entered (issue 31: a statement per run); a new connection,
   * or a lock answered by another server session, is checked again.
   */
  private verified: { session: postgres.Sql | undefined; pid: number } | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private pinging = false;
  readonly notifier: CoalescingNotifier;

  constructor(private readonly options: AdvisoryHoldsOptions) {
    this.notifier = new CoalescingNotifier(async (payloads) => {
      await this.side().unsafe(`select pg_notify('${NOTIFY_CHANNEL}', p) from jsonb_array_elements_text($1::text::jsonb) as p`, [JSON.stringify(payloads)], {
        prepare: true,
      });
    }, options.onNotifyError);
  }

  private side(): postgres.Sql {
    this.session ??= this.options.openSession();
    return this.session;
  }

  async acquire(runId: string) {
    const { orm } = await this.options.pool();
    if (this.busy.has(runId)) throw new RunBusyError({ runId, holder: `another call in process ${process.pid}`, holderPid: process.pid });
    this.busy.add(runId);
    try {
      const key = advisoryKey(runId);
      const holder = randomUUID();
      // One statement: the lock, and (only if it was granted) the run's new holder token. Data-modifying
      // CTEs always run; the update matches no row for a run that does not exist yet (create sets it).
      // The update also says where the run stands now that it is held: read committed follows a row updated
      // since the statement's snapshot to its newest version (the one the last holder committed before it
      // let go), so `last_seq` is current; no row: no run (or one created within this very statement, which
      // the create then finds: event-rows.ts).
      const [row] = await this.side().unsafe<{ locked: boolean; pid: number; last_seq: number | null; created_at: Date | string | null }[]>(
        `with l as (select pg_try_advisory_lock($1::bigint) as locked),
              u as (update gnl.runs set holder = $3::text from l where l.locked and run_id = $2::text returning last_seq, created_at)
         select locked, pg_backend_pid() as pid, (select last_seq from u) as last_seq, (select created_at from u) as created_at,
           ${EXEMPT_FROM_IDLE_TIMEOUT} as exempt from l`,
        [key, runId, holder],
        { prepare: true },
      );
      if (!row?.locked) throw new RunBusyError({ runId, holder: await describeRunHolder(orm, key) });
      if (!this.verified || this.verified.session !== this.session || this.verified.pid !== row.pid) {
        await this.assertSessionHolds(runId, key, row.pid);
        await this.assertSessionNotShared(runId, key, row.pid, orm);
        this.verified = { session: this.session, pid: row.pid };
      }
      this.watch(runId, row.pid);
      return {
        fence: { holder, lockKey: key },
        lastSeq: row.last_seq ?? 0,
        ...(row.created_at !== null ? { createdAt: new Date(row.created_at) } : {}),
        release: () => this.release(runId, key),
      };
    } catch (error) {
      this.busy.delete(runId);
      throw error;
    }
  }

  /**
   * A job's lock (RunHold.lockJob) on the side session: a session advisory lock in its own key space
   * (jobAdvisoryKey), tried without waiting so the side session never blocks the holds it serves, and
   * tried again with a growing pause (10 ms to 200 ms) for at most JOB_LOCK_WAIT_MS. It dies with the
   * session, so a process killed while holding it frees it. Callers in one process are already queued
   * by the core (job-lock.ts): session advisory locks are re-entrant, so this one only keeps processes apart.
   */
  async lockJob(job: string): Promise<() => Promise<void>> {
    const key = jobAdvisoryKey(job);
    const deadline = Date.now() + JOB_LOCK_WAIT_MS;
    for (let pause = 10; ; pause = Math.min(pause * 2, 200)) {
      const [row] = await this.side().unsafe<{ locked: boolean }[]>('select pg_try_advisory_lock($1::bigint) as locked', [key], { prepare: true });
      if (row?.locked) break;
      if (Date.now() > deadline) throw new JobBusyError({ job, waitedMs: JOB_LOCK_WAIT_MS });
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
    return async () => {
      try {
        if (this.session) await this.session`select pg_advisory_unlock(${key}::bigint)`;
      } catch (error) {
        // The session is gone: its locks went with it (as for a run's hold).
        if (!sessionLost(error)) throw error;
      }
    };
  }

  /**
   * Once per side session: a transaction pooler that gives the same client back the same server session
   * (pgbouncer hands out the server it was given back last) passes assertSessionHolds, yet between two of
   * the side session's statements lends that server session to any other client, which could then take
   * this run's lock as its own (advisory locks are re-entrant per session). Right after the side session
   * went idle, a few statements of this process's pool ask which session they run on: the lock's own
   * session answering means it is shared (HoldSessionError 'transaction-pooling'). Directly, or through a
   * session-mode pool, no other connection ever reaches it. Best effort: a pooler that hands out servers in
   * another order may pass it, as documented (docs/postgres-holds.md).
   */
  private async assertSessionNotShared(runId: string, key: string, lockPid: number, orm: TransactionalDb): Promise<void> {
    if (this.checkedSession === this.session) return;
    for (let i = 0; i < 3; i++) {
      const [probe] = await query<{ pid: number }>(orm, sql`select pg_backend_pid() as pid`);
      if (probe?.pid !== lockPid) continue;
      await this.side()`select pg_advisory_unlock(${key}::bigint)`.catch(() => {});
      throw new HoldSessionError({ reason: 'transaction-pooling', runIds: [runId], lockPid, answeredPid: probe.pid, sharedWithPool: true });
    }
    this.checkedSession = this.session;
  }

  /**
   * The connection's next statement takes the lock once more and gives that level back: granted at once
   * to the session that holds it, refused to any other while it is held. (Its text starts like the
   * lock statement's, which tells the statement logs of the tests that it is the side session's.)
   */
  private async assertSessionHolds(runId: string, key: string, lockPid: number): Promise<void> {
    const [check] = await this.side().unsafe<{ reentered: boolean; pid: number }[]>(
      `with l as (select pg_try_advisory_lock($1::bigint) as again)
       select case when l.again then pg_advisory_unlock($1::bigint) else false end as reentered, pg_backend_pid() as pid from l`,
      [key],
      { prepare: true },
    );
    if (check?.reentered && check.pid === lockPid) return;
    // Best effort: the lock is on a server session this connection may never reach again.
    await this.side()`select pg_advisory_unlock(${key}::bigint)`.catch(() => {});
    throw new HoldSessionError({ reason: 'transaction-pooling', runIds: [runId], lockPid, answeredPid: check?.pid });
  }

  private async release(runId: string, key: string): Promise<void> {
    this.unwatch(runId);
    try {
      // On a side session that was lost and reconnected this unlocks nothing, which is right.
      if (this.session) await this.session`select pg_advisory_unlock(${key}::bigint)`;
    } catch (error) {
      // The session is gone (terminated by a takeover, the server restarted): its locks went with it, so
      // there is nothing left to release. Thrown from runDurable's finally, this error would hide the
      // invocation's own (a HoldLostError, a step-boundary stop) from whoever classifies it.
      if (!sessionLost(error)) throw error;
    } finally {
      this.busy.delete(runId);
    }
  }

  private watch(runId: string, pid: number): void {
    this.locked.set(runId, { pid, reported: false });
    if (this.keepAlive) return;
    this.keepAlive = setInterval(() => void this.ping(), this.options.keepAliveMs);
    this.keepAlive.unref(); // a keep-alive never keeps the process itself alive
  }

  private unwatch(runId: string): void {
    this.locked.delete(runId);
    if (this.locked.size > 0) return;
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }

  /** One statement on the side session; every run locked by a session other than the one that answers is lost. */
  private async ping(): Promise<void> {
    if (this.pinging) return; // a slow answer: the one in flight counts as traffic already
    this.pinging = true;
    const watched = [...this.locked];
    try {
      const [row] = await this.side()<{ pid: number }[]>`select pg_backend_pid() as pid`;
      this.lost(
        watched.filter(([, lock]) => lock.pid !== row?.pid),
        row?.pid,
      );
    } catch (error) {
      this.lost(watched, undefined, error);
    } finally {
      this.pinging = false;
    }
  }

  private lost(entries: [string, Locked][], answeredPid: number | undefined, cause?: unknown): void {
    const byPid = new Map<number, string[]>();
    for (const [runId, lock] of entries) {
      if (this.locked.get(runId) !== lock || lock.reported) continue; // released meanwhile, or told already
      lock.reported = true;
      byPid.set(lock.pid, [...(byPid.get(lock.pid) ?? []), runId]);
    }
    for (const [lockPid, runIds] of byPid) {
      this.options.onHoldsLost(new HoldSessionError({ reason: 'session-lost', runIds, lockPid, answeredPid, cause }));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
    await this.session?.end({ timeout: 5 });
  }
}

/** A connection-level failure (postgres.js errors without a server SQLSTATE, or the server ending the session). */
function sessionLost(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (error instanceof postgres.PostgresError) return code === '57P01' || code === '57P02' || code === '57P03';
  return typeof code === 'string' && /^(CONNECTION_|E[A-Z]+$)/.test(code);
}
