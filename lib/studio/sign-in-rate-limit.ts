/**
 * Sign-in attempts are rate-limited: failed sign-ins are counted per login and per client address over
 * a sliding window (by default 5 failures per login and 20 per address in one minute). Past a limit,
 * further attempts for that login, or from that address, are refused before any password is checked,
 * with the time left until the oldest counted failure leaves the window. A successful sign-in clears
 * its login's count (not its address's: an operator's own success must not reset someone's guessing).
 *
 * In memory: right for one Studio process (the Studio is one server; a restart forgets the counts).
 * Several Studio processes behind one address would each count on their own.
 *
 * The address is the one the Studio's server wrote into the request (scripts/client-address.mjs): the
 * socket's peer, or behind a reverse proxy (GNL_STUDIO_TRUST_PROXY=1) the X-Forwarded-For entry that
 * proxy added. A client cannot choose it by sending headers. Served by plain `next start` instead of
 * `npm run studio`, requests carry no address and only the per-login limit applies.
 *
 * Pure (time is passed in): the tests drive it with an explicit clock.
 */

export interface SignInLimits {
  /** Failures per login within the window before that login is refused. */
  perLogin: number;
  /** Failures per client address within the window before that address is refused. */
  perAddress: number;
  windowMs: number;
  /** Keys remembered at most (logins and addresses); past it the oldest are forgotten. */
  maxKeys: number;
}

export const SIGN_IN_LIMITS: SignInLimits = { perLogin: 5, perAddress: 20, windowMs: 60_000, maxKeys: 10_000 };

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

export class SignInLimiter {
  /** key → times (ms) of the failures still inside the window, oldest first. */
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly limits: SignInLimits = SIGN_IN_LIMITS) {}

  /** Whether an attempt may go ahead now. */
  check(attempt: SignInAttempt, now: number): LimitCheck {
    const byLogin = this.refusal(loginKey(attempt.login), this.limits.perLogin, now);
    const address = addressKey(attempt.address);
    const byAddress = address ? this.refusal(address, this.limits.perAddress, now) : undefined;
    if (byLogin && byAddress) return { ok: false, scope: byLogin >= byAddress ? 'login' : 'address', retryAfterSeconds: Math.max(byLogin, byAddress) };
    if (byLogin) return { ok: false, scope: 'login', retryAfterSeconds: byLogin };
    if (byAddress) return { ok: false, scope: 'address', retryAfterSeconds: byAddress };
    return { ok: true };
  }

  recordFailure(attempt: SignInAttempt, now: number): void {
    this.add(loginKey(attempt.login), now);
    const address = addressKey(attempt.address);
    if (address) this.add(address, now);
  }

  recordSuccess(attempt: SignInAttempt): void {
    this.failures.delete(loginKey(attempt.login));
  }

  /** Keys remembered now (for the memory bound's test). */
  get size(): number {
    return this.failures.size;
  }

  /** Seconds until `key` may try again, or undefined when it may now. */
  private refusal(key: string, limit: number, now: number): number | undefined {
    const times = this.live(key, now);
    if (times.length < limit) return undefined;
    // The attempt is allowed again once enough failures have left the window to be under the limit.
    const freedAt = (times[times.length - limit] as number) + this.limits.windowMs;
    return Math.max(1, Math.ceil((freedAt - now) / 1000));
  }

  private live(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const kept = times.filter((t) => t > now - this.limits.windowMs);
    if (kept.length === 0) this.failures.delete(key);
    else if (kept.length !== times.length) this.failures.set(key, kept);
    return kept;
  }

  private add(key: string, now: number): void {
    const times = this.live(key, now);
    // Re-inserted last: the Map's order is then least recently failed first, which the bound forgets first.
    this.failures.delete(key);
    this.failures.set(key, [...times, now]);
    while (this.failures.size > this.limits.maxKeys) {
      const oldest = this.failures.keys().next().value as string;
      this.failures.delete(oldest);
    }
  }
}

const limiterKey = Symbol.for('gnl.studio.signInLimiter');

/** This process's limiter (one per Studio server, shared by every bundle that imports this file). */
export function signInLimiter(): SignInLimiter {
  const global = globalThis as Record<symbol, SignInLimiter | undefined>;
  global[limiterKey] ??= new SignInLimiter();
  return global[limiterKey];
}
