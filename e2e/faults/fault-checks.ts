/** Waits and judgements shared by the fault suites: bounded waits (never timed assertions), and the outside service's counters. */
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { ServiceStats } from '@/lib/demo';
import type { PostgresStorage } from '@/lib/durable/storage';

export const QUESTION = (n: number) => ({ prompt: `Customer c_7 has question ${n} about order o_21` });

/** Waits (bounded) until no run of the storage's queue is runnable or leased. */
export async function quiet(storage: PostgresStorage, timeoutMs = 150_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const db = await storage.database();
    const [row] = (await db.execute(sql`select count(*)::int as n from gnl.run_queue where runnable or lease_owner is not null`)) as unknown as { n: number }[];
    if (row?.n === 0) return;
    if (Date.now() > deadline) throw new Error(`${row?.n} runs still runnable or leased after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `probe` (bounded) until it returns something. */
export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Each kind performed exactly `expected` times, every idempotency key performed once. */
export function expectOnce(stats: ServiceStats, expected: { tickets: number; refunds: number; emails: number }): void {
  for (const kind of ['tickets', 'refunds', 'emails'] as const) {
    expect(stats[kind].performed, kind).toBe(expected[kind]);
    expect(
      Object.entries(stats[kind].byKey).filter(([, k]) => k.performed !== 1),
      `${kind} keys performed other than once`,
    ).toEqual([]);
    expect(Object.keys(stats[kind].byKey)).toHaveLength(expected[kind]);
  }
}
