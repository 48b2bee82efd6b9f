import { describe, expect, it } from 'vitest';
import { limitMessage, SIGN_IN_LIMITS, SignInLimiter } from './sign-in-rate-limit';

const t0 = Date.parse('2026-01-01T00:00:00Z');

function failTimes(limiter: SignInLimiter, attempt: { login: string; address?: string }, times: number[]) {
  for (const t of times) {
    expect(limiter.check(attempt, t)).toEqual({ ok: true });
    limiter.recordFailure(attempt, t);
  }
}

describe('sign-in rate limit', () => {
  it('the 6th attempt on a login within a minute is refused, with the seconds until the oldest failure leaves the window', () => {
    const limiter = new SignInLimiter();
    failTimes(
      limiter,
      { login: 'alice', address: '10.0.0.1' },
      [0, 1_000, 2_000, 3_000, 4_000].map((d) => t0 + d),
    );
    const refused = limiter.check({ login: 'alice', address: '10.0.0.2' }, t0 + 10_000);
    expect(refused).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 50 });
    expect(limitMessage(refused as Extract<typeof refused, { ok: false }>)).toBe('Too many failed sign-ins for this login: try again in 50 s.');
    // Another spelling of the same login is the same login.
    expect(limiter.check({ login: ' ALICE ' }, t0 + 10_000)).toMatchObject({ ok: false, scope: 'login' });
    // Other logins from the same address go on.
    expect(limiter.check({ login: 'bob', address: '10.0.0.1' }, t0 + 10_000)).toEqual({ ok: true });
    // Once the first failure is a minute old, one more attempt is allowed; then refused until the second is.
    expect(limiter.check({ login: 'alice' }, t0 + 60_000)).toEqual({ ok: true });
    limiter.recordFailure({ login: 'alice' }, t0 + 60_000);
    expect(limiter.check({ login: 'alice' }, t0 + 60_500)).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 1 });
    expect(limiter.check({ login: 'alice' }, t0 + 61_001)).toEqual({ ok: true });
  });

  it('counts failures per address across logins: the 21st from one address is refused, whatever the login', () => {
    const limiter = new SignInLimiter();
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) failTimes(limiter, { login: `guess-${i}`, address: '203.0.113.9' }, [t0 + i * 100]);
    expect(limiter.check({ login: 'alice', address: '203.0.113.9' }, t0 + 5_000)).toEqual({ ok: false, scope: 'address', retryAfterSeconds: 55 });
    // X-Forwarded-For lists the client first.
    expect(limiter.check({ login: 'alice', address: '203.0.113.9, 10.0.0.1' }, t0 + 5_000)).toMatchObject({ ok: false, scope: 'address' });
    expect(limiter.check({ login: 'alice', address: '203.0.113.10' }, t0 + 5_000)).toEqual({ ok: true });
    expect(limiter.check({ login: 'alice' }, t0 + 5_000)).toEqual({ ok: true });
  });

  it('a success clears its login count, not its address count', () => {
    const limiter = new SignInLimiter({ ...SIGN_IN_LIMITS, perAddress: 6 });
    failTimes(
      limiter,
      { login: 'alice', address: '10.0.0.1' },
      [1, 2, 3, 4].map((d) => t0 + d),
    );
    limiter.recordSuccess({ login: 'alice', address: '10.0.0.1' });
    failTimes(limiter, { login: 'alice', address: '10.0.0.1' }, [t0 + 5, t0 + 6]);
    // Login: 2 failures since the success (not refused); address: 6 (refused).
    expect(limiter.check({ login: 'alice', address: '10.0.0.2' }, t0 + 10)).toEqual({ ok: true });
    expect(limiter.check({ login: 'alice', address: '10.0.0.1' }, t0 + 10)).toMatchObject({ ok: false, scope: 'address' });
  });

  it('when both limits refuse, says the longer wait', () => {
    const limiter = new SignInLimiter({ ...SIGN_IN_LIMITS, perLogin: 2, perAddress: 2 });
    failTimes(limiter, { login: 'x', address: 'a' }, [t0]);
    failTimes(limiter, { login: 'y', address: 'a' }, [t0 + 30_000]);
    failTimes(limiter, { login: 'x', address: 'b' }, [t0 + 40_000]);
    // login x: failures at 0 and 40 s → free at 60 s; address a: 0 and 30 s → free at 60 s too; at 45 s both say 15 s.
    expect(limiter.check({ login: 'x', address: 'a' }, t0 + 45_000)).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 15 });
    failTimes(limiter, { login: 'z', address: 'c' }, [t0]);
    failTimes(limiter, { login: 'w', address: 'c' }, [t0 + 50_000]);
    // address c: frees at 60 s (10 s from 50 s); login x at 50 s: 10 s; at 50 s both refuse for 10 s.
    expect(limiter.check({ login: 'x', address: 'c' }, t0 + 50_000)).toMatchObject({ ok: false, retryAfterSeconds: 10 });
  });

  it('remembers at most maxKeys logins and addresses, forgetting the least recently failed', () => {
    const limiter = new SignInLimiter({ ...SIGN_IN_LIMITS, maxKeys: 100 });
    for (let i = 0; i < 1_000; i++) limiter.recordFailure({ login: `l${i}`, address: `a${i}` }, t0 + i);
    expect(limiter.size).toBe(100);
    // Expired counts are dropped when next looked at.
    expect(limiter.check({ login: 'l999', address: 'a999' }, t0 + 120_000)).toEqual({ ok: true });
  });
});
