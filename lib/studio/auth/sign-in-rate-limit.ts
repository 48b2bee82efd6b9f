/**
 * Sign-in attempts are rate-limited: failed sign-ins are counted per login and per client address over
 * a sliding window (by default 5 failures per login and 20 per address in one minute). Past a limit,
 * further attempts for that login, or from that address, are refused before any password is checked,
 * with the time left until the oldest counted failure leaves the window. A successful sign-in clears
 * its login's count (not its address's: an operator's own success must not reset someone's guessing).
 *
 * The counts live in the journal's database (gnl.sign_in_failures: one row per counted key per
 * failure), so a restart does not forget them and several Studio processes on one journal count
 * together. Sign-in admits an attempt (admit) before its password is checked, counting it as a failure
 * in the same transaction, under a lock per key: attempts sent at the same moment, from one process or
 * several, are admitted one after another and cannot all slip in before any is counted. A success then
 * clears its login's count and takes back its own rows. Each admission deletes the rows older than the
 * window (the table holds at most a minute of failures). check and recordFailure are the same decision
 * without the lock, for reading the state.
 *
 * The address is the one the Studio's server wrote into the request (scripts/client-address.mjs): the
 * socket's peer, or behind a reverse proxy (GNL_STUDIO_TRUST_PROXY=1) the X-Forwarded-For entry that
 * proxy added. A client cannot choose it by sending headers. Served by plain `next start` instead of
 * `npm run studio`, requests carry no address and only the per-login limit applies.
 *
 * The decision (judge) is pure, time passed in; the limiter passes the clock on, so the tests drive the
 * database-backed limiter with an explicit clock too.
 */
import { sql } from 'drizzle-orm';
import { lockForTransaction, type Storage, storageFromEnv } from '@/lib/durable/storage';

export interface SignInLimits {
  /** Failures per login within the window before that login is refused. */
  perLogin: number;
  /** Failures per client address within the window before that address is refused. */
  perAddress: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: SignInLimits = { perLogin: 5, perAddress: 20, windowMs: 60_000 };

export interface SignInAttempt {
  login: string;
  /** The client's address, when known. */
  address?: string | undefined;
}

export type LimitCheck = { ok: true } | { ok: false; scope: 'login' | 'address'; retryAfterSeconds: number };

/** How the sign-in form says it: what is refused, and for how long. */
export function limitMessage(check: Extract<LimitCheck, { ok: false }>): string {
  const wait = `${check.retryAfterSeconds} s`;
  return check.scope === 'login'
    ? `Too many failed sign-ins for this login: try again in ${wait}.`
    : `Too many failed sign-ins from this address: try again in ${wait}.`;
}

/** Logins are case-insensitive (lib/accounts stores them lower-case): one count for every spelling. */
function loginKey(login: string): string {
  return `login:${login.trim().toLowerCase()}`;
}

function addressKey(address: string | undefined): string | undefined {
  const first = address?.split(',')[0]?.trim();
  return first ? `address:${first}` : undefined;
}

/** Seconds until a key with these failure times (ms, any order) may try again, or undefined when it may now. */
function refusal(times: readonly number[], limit: number, windowMs: number, now: number): number | undefined {
  const live = times.filter((t) => t > now - windowMs).sort((a, b) => a - b);
  if (live.length < limit) return undefined;
  // The attempt is allowed again once enough failures have left the window to be under the limit.
  const freedAt = (live[live.length - limit] as number) + windowMs;
  return Math.max(1, Math.ceil((freedAt - now) / 1000));
}

/** Whether an attempt may go ahead now, given the failure times counted for its login and its address. */
export function judge(failures: { login: readonly number[]; address?: readonly number[] | undefined }, limits: SignInLimits, now: number): LimitCheck {
  const byLogin = refusal(failures.login, limits.perLogin, limits.windowMs, now);
  const byAddress = failures.address ? refusal(failures.address, limits.perAddress, limits.windowMs, now) : undefined;
  if (byLogin && byAddress) return { ok: false, scope: byLogin >= byAddress ? 'login' : 'address', retryAfterSeconds: Math.max(byLogin, byAddress) };
  if (byLogin) return { ok: false, scope: 'login', retryAfterSeconds: byLogin };
  if (byAddress) return { ok: false, scope: 'address', retryAfterSeconds: byAddress };
  return { ok: true };
}

function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** The sign-in limiter on the journal's database (default storageFromEnv()). Times are ms since the epoch. */
export class SignInLimiter {
  private readonly storage: Storage | undefined;
  private readonly limits: SignInLimits;

  constructor(options: { storage?: Storage; limits?: SignInLimits } = {}) {
    this.storage = options.storage;
    this.limits = options.limits ?? SIGN_IN_LIMITS;
  }

  private database() {
    return (this.storage ?? storageFromEnv()).database();
  }

  /** The keys an attempt is counted under: its login, and its address when known. */
  private keysOf(attempt: SignInAttempt): { login: string; address: string | undefined; keys: string[] } {
    const login = loginKey(attempt.login);
    const address = addressKey(attempt.address);
    return { login, address, keys: address ? [login, address] : [login] };
  }

  /** One statement on `db` (or a transaction): prunes every failure older than the window, reads this attempt's, judges them. */
  private async judgeAttempt(db: { execute: (query: ReturnType<typeof sql>) => Promise<unknown> }, attempt: SignInAttempt, now: number): Promise<LimitCheck> {
    const { login, address, keys } = this.keysOf(attempt);
    const since = new Date(now - this.limits.windowMs).toISOString();
    const rows = rowsOf<{ key: string; ms: number | string }>(
      await db.execute(sql`
        with pruned as (delete from gnl.sign_in_failures where at <= ${since}::timestamptz)
        select key, extract(epoch from at) * 1000 as ms from gnl.sign_in_failures
        where key in (${sql.join(
          keys.map((k) => sql`${k}`),
          sql`, `,
        )}) and at > ${since}::timestamptz`),
    );
    const times = (key: string) => rows.filter((r) => r.key === key).map((r) => Number(r.ms));
    return judge({ login: times(login), ...(address ? { address: times(address) } : {}) }, this.limits, now);
  }

  /** Whether an attempt may go ahead now (no lock, nothing counted). */
  async check(attempt: SignInAttempt, now: number): Promise<LimitCheck> {
    return this.judgeAttempt(await this.database(), attempt, now);
  }

  /**
   * Admits an attempt before its password is checked, counting it as a failure at once (a success then
   * clears its login's count, recordSuccess): what check then recordFailure would do, except that
   * attempts sent at the same moment cannot all pass the check before any of them is counted. One
   * transaction that takes a lock per key (its login, its address) first, so attempts on the same key
   * are admitted one after another, each seeing those before it. Refused: nothing is counted.
   */
  async admit(attempt: SignInAttempt, now: number): Promise<LimitCheck & { counted?: number[] }> {
    const { keys } = this.keysOf(attempt);
    const at = new Date(now).toISOString();
    const db = await this.database();
    return db.transaction(async (tx) => {
      // Sorted, so two attempts that share both keys take them in the same order.
      for (const key of [...keys].sort()) await lockForTransaction(tx, `gnl.sign-in:${key}`);
      const check = await this.judgeAttempt(tx, attempt, now);
      if (!check.ok) return check;
      const counted = rowsOf<{ id: number | string }>(
        await tx.execute(
          sql`insert into gnl.sign_in_failures (key, at) values ${sql.join(
            keys.map((key) => sql`(${key}, ${at}::timestamptz)`),
            sql`, `,
          )} returning id`,
        ),
      ).map((row) => Number(row.id));
      return { ...check, counted };
    });
  }

  /** Counts a failed attempt against its login and its address. */
  async recordFailure(attempt: SignInAttempt, now: number): Promise<void> {
    const at = new Date(now).toISOString();
    const db = await this.database();
    const rows = this.keysOf(attempt).keys.map((key) => sql`(${key}, ${at}::timestamptz)`);
    await db.execute(sql`insert into gnl.sign_in_failures (key, at) values ${sql.join(rows, sql`, `)}`);
  }

  /**
   * Clears the login's count (not the address's: an operator's own success must not reset someone's
   * guessing), and takes back what admit counted for this attempt (`counted`), so a success is never a
   * failure of its address.
   */
  async recordSuccess(attempt: SignInAttempt, counted: readonly number[] = []): Promise<void> {
    const db = await this.database();
    const own =
      counted.length > 0
        ? sql` or id in (${sql.join(
            counted.map((id) => sql`${id}`),
            sql`, `,
          )})`
        : sql``;
    await db.execute(sql`delete from gnl.sign_in_failures where key = ${loginKey(attempt.login)}${own}`);
  }
}

const limiterKey = Symbol.for('gnl.studio.signInLimiter');

/** This process's limiter, on the journal storageFromEnv opens. */
export function signInLimiter(): SignInLimiter {
  const global = globalThis as Record<symbol, SignInLimiter | undefined>;
  global[limiterKey] ??= new SignInLimiter();
  return global[limiterKey];
}
