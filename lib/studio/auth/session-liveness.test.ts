import { describe, expect, it } from 'vitest';
import { type SessionRef, SessionLiveness } from './session-liveness';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const session = (id: string): SessionRef => ({ sessionId: id, operatorId: 'op-1', expiresAt: new Date(t0 + 3_600_000) });

/** A session store the test controls: which sessions are on, and how often it was asked. */
function store() {
  const on = new Set<string>();
  const asked: string[] = [];
  return {
    on,
    asked,
    lookup: async (s: SessionRef) => {
      asked.push(s.sessionId);
      return on.has(s.sessionId);
    },
  };
}

describe('session liveness for the event streams', () => {
  it('asks the database at most once per ttl for a session, however many streams and heartbeats ask', async () => {
    const db = store();
    db.on.add('a');
    let now = t0;
    const liveness = new SessionLiveness({ lookup: db.lookup, ttlMs: 5_000, clock: () => now });
    expect(await Promise.all([liveness.isLive(session('a')), liveness.isLive(session('a')), liveness.isLive(session('a'))])).toEqual([true, true, true]);
    for (let i = 0; i < 100; i++) expect(await liveness.isLive(session('a'))).toBe(true);
    expect(db.asked).toEqual(['a']);
    now += 5_000;
    expect(await liveness.isLive(session('a'))).toBe(true);
    expect(db.asked).toEqual(['a', 'a']);
  });

  it('a session revoked elsewhere is seen at the first check past the ttl; revoked here, at once; revoked is final', async () => {
    const db = store();
    db.on.add('a');
    db.on.add('b');
    let now = t0;
    const liveness = new SessionLiveness({ lookup: db.lookup, ttlMs: 5_000, clock: () => now });
    expect(await liveness.isLive(session('a'))).toBe(true);
    expect(await liveness.isLive(session('b'))).toBe(true);
    db.on.delete('a'); // `gnl operators sign-out` in another process
    now += 4_999;
    expect(await liveness.isLive(session('a'))).toBe(true);
    now += 1;
    expect(await liveness.isLive(session('a'))).toBe(false);
    liveness.revoked('b'); // this process's Sign out
    expect(await liveness.isLive(session('b'))).toBe(false);
    const asked = db.asked.length;
    db.on.add('a');
    now += 60_000;
    expect(await liveness.isLive(session('a'))).toBe(false);
    expect(db.asked.length).toBe(asked);
  });

  it('an expired session is off without asking; a failed lookup is an error naming the session, asked again next time', async () => {
    const db = store();
    const liveness = new SessionLiveness({ lookup: db.lookup, clock: () => t0 });
    expect(await liveness.isLive({ ...session('a'), expiresAt: new Date(t0) })).toBe(false);
    expect(db.asked).toEqual([]);
    let fail = true;
    const flaky = new SessionLiveness({
      lookup: async () => {
        if (fail) throw new Error('connection refused');
        return true;
      },
      clock: () => t0,
    });
    const error = (await flaky.isLive(session('abcdefgh-1')).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/session abcdefgh… is still on/);
    expect((error.cause as Error).message).toBe('connection refused');
    fail = false;
    expect(await flaky.isLive(session('abcdefgh-1'))).toBe(true);
  });

  it('remembers at most maxEntries sessions', async () => {
    const db = store();
    const liveness = new SessionLiveness({ lookup: db.lookup, maxEntries: 10, clock: () => t0 });
    for (let i = 0; i < 100; i++) await liveness.isLive(session(`s${i}`));
    expect(liveness.size).toBe(10);
  });
});
