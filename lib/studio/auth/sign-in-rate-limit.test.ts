/**
 * The sign-in rate limit: the decision on its own (judge, pure), and the limiter on real journals
 * (embedded PGlite and Postgres) with an explicit clock: its counts are in the database, so a new
 * limiter (a restarted Studio) or a second one on the same database (another Studio process) keeps them.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresStorage, type Storage } from '@/lib/durable/storage';
import { DATABASE_URL, describeEachJournal } from '@/tests/support/journals';
import { judge, limitMessage, SIGN_IN_LIMITS, type SignInAttempt, SignInLimiter } from './sign-in-rate-limit';

// Near the real clock: other suites' checks prune rows older than their own minute, never these.
const t0 = Math.floor(Date.now() / 1000) * 1000;

async function failTimes(limiter: SignInLimiter, attempt: SignInAttempt, times: number[]) {
  for (const t of times) {
    expect(await limiter.check(attempt, t)).toEqual({ ok: true });
    await limiter.recordFailure(attempt, t);
  }
}

async function rowCount(storage: Storage, keys: string[]): Promise<number> {
  const result = (await (
    await storage.database()
  ).execute(
    sql`select count(*)::int as n from gnl.sign_in_failures where key in (${sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    )})`,
  )) as unknown;
  const rows = (Array.isArray(result) ? result : (result as { rows: { n: number }[] }).rows) as { n: number }[];
  return Number(rows[0]?.n);
}

describe('the sign-in limit decision', () => {
  it('refuses at the limit with the seconds until the oldest counted failure leaves the window; failures outside it do not count', () => {
    const limits = { ...SIGN_IN_LIMITS, perLogin: 2 };
    expect(judge({ login: [t0, t0 + 10_000] }, limits, t0 + 20_000)).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 40 });
    expect(judge({ login: [t0 + 10_000, t0] }, limits, t0 + 20_000)).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 40 });
    expect(judge({ login: [t0 - 60_000, t0] }, limits, t0 + 1)).toEqual({ ok: true });
    expect(judge({ login: [], address: [t0, t0] }, { ...limits, perAddress: 2 }, t0 + 59_999)).toEqual({ ok: false, scope: 'address', retryAfterSeconds: 1 });
  });
});

describeEachJournal('sign-in rate limit', (target) => {
  let storage: Storage;
  beforeAll(() => {
    storage = target.open().storage;
  });
  const id = () => randomUUID().slice(0, 8);

  it('the 6th attempt on a login within a minute is refused, with the seconds until the oldest failure leaves the window', async () => {
    const limiter = new SignInLimiter({ storage });
    const alice = `alice-${id()}`;
    const [a1, a2] = [`10.1.${id()}`, `10.2.${id()}`];
    await failTimes(
      limiter,
      { login: alice, address: a1 },
      [0, 1_000, 2_000, 3_000, 4_000].map((d) => t0 + d),
    );
    const refused = await limiter.check({ login: alice, address: a2 }, t0 + 10_000);
    expect(refused).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 50 });
    expect(limitMessage(refused as Extract<typeof refused, { ok: false }>)).toBe('Too many failed sign-ins for this login: try again in 50 s.');
    // Another spelling of the same login is the same login.
    expect(await limiter.check({ login: ` ${alice.toUpperCase()} ` }, t0 + 10_000)).toMatchObject({ ok: false, scope: 'login' });
    // Other logins from the same address go on.
    expect(await limiter.check({ login: `bob-${id()}`, address: a1 }, t0 + 10_000)).toEqual({ ok: true });
    // Once the first failure is a minute old, one more attempt is allowed; then refused until the second is.
    expect(await limiter.check({ login: alice }, t0 + 60_000)).toEqual({ ok: true });
    await limiter.recordFailure({ login: alice }, t0 + 60_000);
    expect(await limiter.check({ login: alice }, t0 + 60_500)).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 1 });
    expect(await limiter.check({ login: alice }, t0 + 61_001)).toEqual({ ok: true });
  });

  it('counts failures per address across logins: the 21st from one address is refused, whatever the login', async () => {
    const limiter = new SignInLimiter({ storage });
    const address = `203.0.${id()}`;
    const alice = `alice-${id()}`;
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) await failTimes(limiter, { login: `guess-${i}-${id()}`, address }, [t0 + i * 100]);
    expect(await limiter.check({ login: alice, address }, t0 + 5_000)).toEqual({ ok: false, scope: 'address', retryAfterSeconds: 55 });
    // X-Forwarded-For lists the client first.
    expect(await limiter.check({ login: alice, address: `${address}, 10.0.0.1` }, t0 + 5_000)).toMatchObject({ ok: false, scope: 'address' });
    expect(await limiter.check({ login: alice, address: `${address}0` }, t0 + 5_000)).toEqual({ ok: true });
    expect(await limiter.check({ login: alice }, t0 + 5_000)).toEqual({ ok: true });
  });

  it('a success clears its login count, not its address count', async () => {
    const limiter = new SignInLimiter({ storage, limits: { ...SIGN_IN_LIMITS, perAddress: 6 } });
    const alice = `alice-${id()}`;
    const [a1, a2] = [`10.1.${id()}`, `10.2.${id()}`];
    await failTimes(
      limiter,
      { login: alice, address: a1 },
      [1, 2, 3, 4].map((d) => t0 + d),
    );
    await limiter.recordSuccess({ login: alice, address: a1 });
    await failTimes(limiter, { login: alice, address: a1 }, [t0 + 5, t0 + 6]);
    // Login: 2 failures since the success (not refused); address: 6 (refused).
    expect(await limiter.check({ login: alice, address: a2 }, t0 + 10)).toEqual({ ok: true });
    expect(await limiter.check({ login: alice, address: a1 }, t0 + 10)).toMatchObject({ ok: false, scope: 'address' });
  });

  it('when both limits refuse, says the longer wait', async () => {
    const limiter = new SignInLimiter({ storage, limits: { ...SIGN_IN_LIMITS, perLogin: 2, perAddress: 2 } });
    const [x, y, z, w] = ['x', 'y', 'z', 'w'].map((l) => `${l}-${id()}`) as [string, string, string, string];
    const [a, b, c] = ['a', 'b', 'c'].map((l) => `${l}.${id()}`) as [string, string, string];
    await failTimes(limiter, { login: x, address: a }, [t0]);
    await failTimes(limiter, { login: y, address: a }, [t0 + 30_000]);
    await failTimes(limiter, { login: x, address: b }, [t0 + 40_000]);
    // login x: failures at 0 and 40 s → free at 60 s; address a: 0 and 30 s → free at 60 s too; at 45 s both say 15 s.
    expect(await limiter.check({ login: x, address: a }, t0 + 45_000)).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 15 });
    await failTimes(limiter, { login: z, address: c }, [t0]);
    await failTimes(limiter, { login: w, address: c }, [t0 + 50_000]);
    // address c: frees at 60 s (10 s from 50 s); login x at 50 s: 10 s; at 50 s both refuse for 10 s.
    expect(await limiter.check({ login: x, address: c }, t0 + 50_000)).toMatchObject({ ok: false, retryAfterSeconds: 10 });
  });

  it('attempts sent at the same moment are admitted one after another: of 30 at once on one login, 5 go ahead (the rest are refused), each counted before its password is checked', async () => {
    const limiter = new SignInLimiter({ storage });
    const login = `burst-${id()}`;
    const checks = await Promise.all(Array.from({ length: 30 }, (_, i) => limiter.admit({ login, address: `10.9.${id()}.${i}` }, t0 + 5_000)));
    expect(checks.filter((c) => c.ok)).toHaveLength(SIGN_IN_LIMITS.perLogin);
    expect(checks.filter((c) => !c.ok)).toHaveLength(30 - SIGN_IN_LIMITS.perLogin);
    // Admitted means counted: without a success, the next attempt is refused; a success clears the login's count.
    expect(await limiter.check({ login }, t0 + 6_000)).toMatchObject({ ok: false, scope: 'login' });
    await limiter.recordSuccess({ login });
    expect(await limiter.admit({ login }, t0 + 6_000)).toMatchObject({ ok: true, counted: [expect.any(Number)] });
    // A success is not a failure of its address: what admit counted for it is taken back.
    const office = `10.7.${id()}`;
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress + 5; i++) {
      const admitted = await limiter.admit({ login, address: office }, t0 + 7_000);
      expect(admitted.ok).toBe(true);
      await limiter.recordSuccess({ login, address: office }, admitted.counted);
    }
    // And per address: 30 at once from one address on 30 logins, 20 go ahead.
    const address = `10.8.${id()}`;
    const fromOne = await Promise.all(Array.from({ length: 30 }, () => limiter.admit({ login: `many-${id()}`, address }, t0 + 5_000)));
    expect(fromOne.filter((c) => c.ok)).toHaveLength(SIGN_IN_LIMITS.perAddress);
  });

  it('a restarted Studio (a new limiter on the same database) still refuses: the counts are in the journal, not in memory', async () => {
    const mallory = `mallory-${id()}`;
    const address = `198.51.${id()}`;
    await failTimes(
      new SignInLimiter({ storage }),
      { login: mallory, address },
      [0, 1, 2, 3, 4].map((d) => t0 + d),
    );
    expect(await new SignInLimiter({ storage }).check({ login: mallory }, t0 + 1_000)).toEqual({ ok: false, scope: 'login', retryAfterSeconds: 59 });
  });

  it('a check deletes the failures that left the window, whoever they were counted for', async () => {
    const limiter = new SignInLimiter({ storage });
    const old = `old-${id()}`;
    const recent = `recent-${id()}`;
    await limiter.recordFailure({ login: old, address: `a.${old}` }, t0);
    await limiter.recordFailure({ login: recent }, t0 + 30_000);
    expect(await rowCount(storage, [`login:${old}`, `address:a.${old}`, `login:${recent}`])).toBe(3);
    await limiter.check({ login: `someone-else-${id()}` }, t0 + 60_000);
    expect(await rowCount(storage, [`login:${old}`, `address:a.${old}`])).toBe(0);
    expect(await rowCount(storage, [`login:${recent}`])).toBe(1);
  });
});

describe.skipIf(!DATABASE_URL)('sign-in rate limit across Studio processes [postgres]', () => {
  it('two Studio processes on one Postgres count together: failures spread over both reach the limit', async () => {
    const [first, second] = [
      new PostgresStorage({ connectionString: DATABASE_URL as string }),
      new PostgresStorage({ connectionString: DATABASE_URL as string }),
    ];
    try {
      const login = `spread-${randomUUID().slice(0, 8)}`;
      const [a, b] = [new SignInLimiter({ storage: first }), new SignInLimiter({ storage: second })];
      for (let i = 0; i < SIGN_IN_LIMITS.perLogin; i++) await failTimes(i % 2 ? a : b, { login }, [t0 + i]);
      expect(await a.check({ login }, t0 + 100)).toMatchObject({ ok: false, scope: 'login' });
      expect(await b.check({ login }, t0 + 100)).toMatchObject({ ok: false, scope: 'login' });
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
