/**
 * The run queue remembers which executor claimed a run last (migration 0006), after the lease is
 * released: the Studio's inbox names it as the evidence of who held a blocked run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteStorage } from '@/lib/durable/storage';
import { RunQueue } from './run-queue';

let storage: PGliteStorage;
let queue: RunQueue;

beforeAll(async () => {
  storage = new PGliteStorage();
  queue = new RunQueue(() => storage.database());
  for (const runId of ['claimed', 'leased-at-once']) {
    const hold = await storage.runs.hold(runId);
    await hold.create({ agent: 'support', prompt: 'p', modelId: 'm', provider: 'p', toolNames: [] });
    await hold.release();
  }
});

afterAll(async () => {
  await storage?.close();
});

describe('last lease owner', () => {
  it('is the claimer, and stays after the lease is released', async () => {
    await queue.enqueue({ runId: 'claimed', agent: 'support' });
    expect(await queue.entry('claimed')).toMatchObject({ leaseOwner: null, lastLeaseOwner: null });
    const [claim] = await queue.claim({ owner: 'host-a:1:x', limit: 1, leaseMs: 60_000, runId: 'claimed' });
    expect(claim?.runId).toBe('claimed');
    expect(await queue.entry('claimed')).toMatchObject({ leaseOwner: 'host-a:1:x', lastLeaseOwner: 'host-a:1:x' });
    expect(await queue.finish({ runId: 'claimed', owner: 'host-a:1:x', wakeups: claim?.wakeups ?? 0, runnable: 'done', outcome: 'blocked' })).toBe(true);
    expect(await queue.entry('claimed')).toMatchObject({ leaseOwner: null, lastLeaseOwner: 'host-a:1:x', outcome: 'blocked' });
  });

  it('is set by an enqueue that leases the run at once', async () => {
    await queue.enqueue({ runId: 'leased-at-once', agent: 'support', leaseTo: { owner: 'host-b:2:y', leaseMs: 60_000 } });
    await queue.releaseAll('host-b:2:y');
    expect(await queue.entry('leased-at-once')).toMatchObject({ leaseOwner: null, lastLeaseOwner: 'host-b:2:y' });
  });
});
