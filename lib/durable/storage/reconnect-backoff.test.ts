/**
 * A storage whose server refuses connections learns it at every statement within a second, however
 * many statements failed before: the driver's wait before opening a connection again is capped
 * (reconnect-backoff.ts), not postgres.js's 20 s. Real postgres.js, real TCP to a port nobody listens on.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresStorage } from './index';
import { MAX_RECONNECT_BACKOFF_S, reconnectBackoff } from './reconnect-backoff';

/** A port that was free a moment ago and has nothing listening on it now: connections are refused. */
function refusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('reconnect backoff', () => {
  afterEach(() => vi.restoreAllMocks());

  it("follows postgres.js's curve from its first step, and never waits more than MAX_RECONNECT_BACKOFF_S", () => {
    expect(reconnectBackoff(1, () => 1)).toBeCloseTo(0.03);
    expect(reconnectBackoff(1, () => 0)).toBeCloseTo(0.015);
    for (let retries = 0; retries <= 60; retries++) {
      expect(reconnectBackoff(retries, () => 1)).toBeLessThanOrEqual(MAX_RECONNECT_BACKOFF_S);
      expect(reconnectBackoff(retries, () => 0)).toBeGreaterThan(0);
    }
    expect(reconnectBackoff(40, () => 1)).toBe(MAX_RECONNECT_BACKOFF_S);
  });

  it('a refused server: thirty statements in a row each fail with ECONNREFUSED, no connection waiting more than a second before its next try', async () => {
    // The waits postgres.js schedules before it opens a connection again (`setTimeout(connect, wait)`).
    const waits: number[] = [];
    const real = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((handler: (...args: unknown[]) => void, ms?: number, ...rest: unknown[]) => {
      if (typeof handler === 'function' && handler.name === 'connect') waits.push(ms ?? 0);
      return real(handler, ms, ...rest);
    }) as typeof setTimeout);
    const storage = new PostgresStorage({ connectionString: `postgres://postgres@127.0.0.1:${await refusedPort()}/postgres` });
    try {
      for (let n = 0; n < 30; n++) {
        const error = await storage.runs.getRun('never').then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(JSON.stringify(causes(error)), `statement ${n + 1}`).toContain('ECONNREFUSED');
      }
    } finally {
      await storage.close();
    }
    // The pool's ten connections were each opened again, some several times, after failed attempts.
    expect(waits.length).toBeGreaterThan(10);
    expect(Math.max(...waits)).toBeLessThanOrEqual(MAX_RECONNECT_BACKOFF_S * 1000);
  });
});

/** The codes along an error's cause chain. */
function causes(error: unknown): unknown[] {
  const codes: unknown[] = [];
  for (let e = error, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++)
    codes.push((e as { code?: unknown }).code ?? (e as Error).message);
  return codes;
}
