/**
 * Live notifications on each journal: a subscriber gets every event of a run, in order, each once,
 * whether notifications arrive, are coalesced, are never sent, or are lost while its listener
 * reconnects. Real databases, real LISTEN/NOTIFY; waits poll the subscriber, nothing is timed.
 */
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { DATABASE_URL, describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import type { JournalEvent, LiveJournal, RecordedEvent, RunChange } from '../index';
import { appendEvents } from './event-rows';
import { PGliteStorage, PostgresStorage } from './index';
import { pgliteDriver, postgresDriver } from './sql-driver';

const input = { prompt: 'p', modelId: 'm', provider: 'x', toolNames: [] };
const note = (n: number): JournalEvent => ({ type: 'run-fail', error: { name: 'Note', message: String(n) } });

/** Polls until `done()` (the test's own timeout bounds it). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
}

function collector() {
  const seen: RecordedEvent[] = [];
  const errors: unknown[] = [];
  return {
    seen,
    errors,
    onEvents: (events: RecordedEvent[]) => void seen.push(...events),
    onError: (error: unknown) => void errors.push(error),
    seqs: () => seen.map((e) => e.seq),
    last: () => seen.at(-1)?.seq ?? 0,
  };
}

const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describeEachJournal('live events', (target) => {
  const { journal, storage } = target.open();
  const live = journal as LiveJournal;

  /** Appends the way a writer killed between its commit and its notification leaves them: real rows, no NOTIFY. */
  async function appendWithoutNotifying(runId: string, events: JournalEvent[]) {
    if (storage instanceof PGliteStorage) return appendEvents(pgliteDriver(await storage.pglite()), runId, events, { notifyInStatement: false });
    const client = postgres(DATABASE_URL as string, { max: 1, onnotice: () => {} });
    try {
      return await appendEvents(postgresDriver(client), runId, events, { notifyInStatement: false });
    } finally {
      await client.end();
    }
  }

  it('a subscriber gets what was recorded, then every append as it commits: in order, no gap, no duplicate', async () => {
    const runId = uniqueRunId();
    const hold = await live.hold(runId);
    await hold.create(input);
    await hold.append([note(1), note(2)]);
    const sub = collector();
    const subscription = await live.subscribe({ runId, ...sub });
    // 40 concurrent appends, some of two events: notifications are coalesced, reads overlap appends.
    await Promise.all(Array.from({ length: 40 }, (_, i) => hold.append(i % 3 === 0 ? [note(i), note(i + 100)] : [note(i)])));
    const total = (await live.getRun(runId))?.lastSeq ?? 0;
    await until(() => sub.last() === total);
    expect(sub.seqs()).toEqual(oneTo(total));
    expect(sub.errors).toEqual([]);
    await subscription.close();
    await hold.release();
  });

  it('starts after afterSeq, and follows a runId of 512 four-byte characters (the notification stays under its 8000-byte limit)', async () => {
    const runId = `${'𝔤'.repeat(480)}${uniqueRunId().slice(-32)}`;
    const hold = await live.hold(runId);
    await hold.create(input);
    await hold.append([note(1), note(2), note(3)]);
    const sub = collector();
    const subscription = await live.subscribe({ runId, afterSeq: 2, ...sub });
    await hold.append([note(4)]);
    await until(() => sub.last() === 5);
    expect(sub.seqs()).toEqual([3, 4, 5]);
    await subscription.close();
    await hold.release();
  });

  it('events whose notification never came are delivered with the next one, in order', async () => {
    const runId = uniqueRunId();
    const hold = await live.hold(runId);
    await hold.create(input);
    const sub = collector();
    const subscription = await live.subscribe({ runId, ...sub });
    await until(() => sub.last() === 1);
    await appendWithoutNotifying(runId, [note(1), note(2)]);
    await appendWithoutNotifying(runId, [note(3)]);
    await hold.append([note(4)]); // notifies lastSeq 5: the subscriber reads 2..5
    await until(() => sub.last() === 5);
    expect(sub.seqs()).toEqual([1, 2, 3, 4, 5]);
    await subscription.close();
    await hold.release();
  });

  it('watchRuns hears every run that gains events, with its last sequence number', async () => {
    const changes: RunChange[] = [];
    const watch = await live.watchRuns({ onChange: (change) => void changes.push(change) });
    const runIds = [uniqueRunId(), uniqueRunId()];
    for (const runId of runIds) {
      const hold = await live.hold(runId);
      await hold.create(input);
      await hold.append([note(1)]);
      await hold.release();
    }
    const lastOf = (runId: string) => Math.max(0, ...changes.filter((c) => c.runId === runId).map((c) => c.lastSeq));
    await until(() => runIds.every((runId) => lastOf(runId) === 2));
    await watch.close();
  });

  it('a subscriber whose onEvents throws is closed and told why; the others go on', async () => {
    const runId = uniqueRunId();
    const hold = await live.hold(runId);
    await hold.create(input);
    const broken = collector();
    const failing = await live.subscribe({
      runId,
      onEvents: () => {
        throw new Error('subscriber bug');
      },
      onError: broken.onError,
    });
    const healthy = collector();
    const subscription = await live.subscribe({ runId, ...healthy });
    await hold.append([note(1)]);
    await until(() => healthy.last() === 2 && broken.errors.length > 0);
    expect(String(broken.errors[0])).toMatch(/subscriber bug/);
    await Promise.all([failing.close(), subscription.close()]);
    await hold.release();
  });
});

describe.skipIf(!DATABASE_URL)(`live events across a listener reconnect [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  it('a listener connection terminated by the server reconnects; events appended meanwhile are delivered, in order, once', async () => {
    const storage = new PostgresStorage({ connectionString: DATABASE_URL as string });
    try {
      const runId = uniqueRunId();
      const hold = await storage.runs.hold(runId);
      await hold.create(input);
      const sub = collector();
      const subscription = await storage.runs.subscribe({ runId, ...sub });
      let resyncs = 0;
      const watch = await storage.runs.watchRuns({
        onChange: () => {},
        onResync: () => {
          resyncs += 1;
        },
      });
      await until(() => sub.last() === 1);

      // Every GNL listener on the server (others reconnect and catch up too, by the same design).
      const db = await storage.database();
      const terminated = await db.execute(sql`select pg_terminate_backend(pid, 5000) as gone from pg_stat_activity where application_name = 'gnl-listen'`);
      expect([...(terminated as unknown as { gone: boolean }[])].some((row) => row.gone)).toBe(true);
      await hold.append([note(1), note(2)]); // most likely while no listener is connected: its notification is lost
      await until(() => resyncs > 0);
      await hold.append([note(3)]);
      await until(() => sub.last() === 4);
      expect(sub.seqs()).toEqual([1, 2, 3, 4]);
      expect(sub.errors.length).toBeGreaterThan(0); // told that the listener was lost
      await Promise.all([subscription.close(), watch.close()]);
      await hold.release();
    } finally {
      await storage.close();
    }
  });
});
