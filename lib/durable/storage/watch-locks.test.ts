/**
 * NOTIFY only while someone listens (watch-locks.ts), on a real server, in a database of the test's own
 * (advisory locks are per database: other suites' listeners on the shared one would watch every run):
 * an append's statement says whether anyone may listen for its run; a follower, a stream watcher and a
 * watcher of every run each make it say so, and stop when they close or their session is lost and
 * taken again; and a follower that starts while an append that knew of no one is in flight still gets
 * that append: it waits for its commit before it reads.
 */
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import type { JournalEvent, RecordedEvent } from '../index';
import { appendEvents, createRun } from './event-rows';
import { PostgresStorage } from './index';
import { NOTIFY_CHANNEL, notificationPayload } from './notifications';
import { postgresDriver } from './sql-driver';

const input = { prompt: 'p', modelId: 'm', provider: 'x', toolNames: [] };
const note = (n: number): JournalEvent => ({ type: 'run-fail', error: { name: 'Note', message: String(n) } });

async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe.skipIf(!DATABASE_URL)(`NOTIFY only while someone listens [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  let database: { url: string; drop(): Promise<void> };
  let writer: postgres.Sql;
  let listener: PostgresStorage;

  beforeAll(async () => {
    database = await createFreshDatabase(DATABASE_URL as string, 'gnl_watch');
    listener = new PostgresStorage({ connectionString: database.url });
    await listener.database();
    writer = postgres(database.url, { max: 2, onnotice: () => {} });
  });
  afterAll(async () => {
    await writer?.end({ timeout: 5 });
    await listener?.close();
    await database?.drop();
  });

  /** Appends as a hold does on Postgres, and returns what its statement said about listeners. */
  async function watchedAppend(runId: string, n: number): Promise<boolean> {
    let watched: boolean | undefined;
    const [recorded] = await appendEvents(postgresDriver(writer), runId, [note(n)], {
      notifyInStatement: false,
      onWatched: (w) => {
        watched = w;
      },
    });
    if (watched === undefined || !recorded) throw new Error('the statement did not say whether anyone listens');
    // As the storage's announcer does after commit, only when told someone listens.
    if (watched) await writer`select pg_notify(${NOTIFY_CHANNEL}, ${notificationPayload(runId, recorded.seq)})`;
    return watched;
  }

  async function newRun(): Promise<string> {
    const runId = uniqueRunId('watch');
    await createRun(postgresDriver(writer), runId, input, { notifyInStatement: false });
    return runId;
  }

  it('an append knows whether its run is followed, its stream watched, or every run watched; closing or a lost session and its reconnect keep it true', async () => {
    const [a, b] = [await newRun(), await newRun()];
    expect([await watchedAppend(a, 1), await watchedAppend(b, 1)]).toEqual([false, false]);

    const seen: RecordedEvent[] = [];
    const follow = await listener.runs.subscribe({ runId: a, onEvents: (events) => void seen.push(...events) });
    expect([await watchedAppend(a, 2), await watchedAppend(b, 2)]).toEqual([true, false]);
    await until(() => seen.at(-1)?.seq === 3);
    // A second follower of the same run shares the watch: its close leaves the first one's.
    const second = await listener.runs.subscribe({ runId: a, onEvents: () => {} });
    await second.close();

    const stream = await listener.runs.watchStream({ runId: b, onWake: () => {} });
    expect(await watchedAppend(b, 3)).toBe(true);
    await stream.close();
    expect(await watchedAppend(b, 4)).toBe(false);

    const changes: string[] = [];
    const every = await listener.runs.watchRuns({ onChange: ({ runId }) => void changes.push(runId) });
    expect(await watchedAppend(b, 5)).toBe(true);
    await until(() => changes.includes(b));

    // The LISTEN session is lost: the reconnect takes both watches again before it wakes anyone.
    let resynced = false;
    const resync = await listener.runs.watchRuns({
      onChange: () => {},
      onResync: () => {
        resynced = true;
      },
    });
    const [gone] = await writer<
      { gone: boolean }[]
    >`select pg_terminate_backend(pid, 5000) as gone from pg_stat_activity where application_name = 'gnl-listen' and datname = current_database()`;
    expect(gone?.gone).toBe(true);
    await until(() => resynced);
    expect([await watchedAppend(a, 6), await watchedAppend(b, 6)]).toEqual([true, true]);
    await until(() => seen.at(-1)?.seq === 4);
    expect(seen.map((e) => e.seq)).toEqual([1, 2, 3, 4]);

    await Promise.all([every.close(), resync.close()]);
    expect(await watchedAppend(b, 7)).toBe(false);
    await follow.close();
    await until(async () => !(await watchedAppend(a, 0))); // the follower's watch is given back after its close resolves
    const [locks] = await writer<
      { n: number }[]
    >`select count(*)::int as n from pg_locks where locktype = 'advisory' and objsubid = 2 and database = (select oid from pg_database where datname = current_database())`;
    expect(locks?.n).toBe(0);
  });

  it('appends of different runs in flight at once on different sessions each know that nobody listens; a watcher of every run waits for both, then each says so', async () => {
    // Two sessions whose slots differ (the low bits of their backend pids: watch-locks.ts), as a pool's are.
    const sessions: postgres.Sql[] = [];
    const slotOf = async (session: postgres.Sql) => (await session<{ slot: number }[]>`select pg_backend_pid() & 63 as slot`)[0]?.slot;
    try {
      while (sessions.length < 2) {
        const session = postgres(database.url, { max: 1, onnotice: () => {} });
        const slot = await slotOf(session);
        if (sessions.length === 1 && slot === (await slotOf(sessions[0] as postgres.Sql))) await session.end({ timeout: 5 });
        else sessions.push(session);
      }
      const [a, b] = [await newRun(), await newRun()];
      const inFlight = async (watcher?: () => Promise<{ close(): Promise<void> }>) => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const said: (boolean | undefined)[] = [undefined, undefined];
        const appends = [a, b].map((runId, i) =>
          (sessions[i] as postgres.Sql).begin(async (tx) => {
            await appendEvents(postgresDriver(tx as unknown as postgres.Sql), runId, [note(i)], {
              notifyInStatement: false,
              onWatched: (w) => {
                said[i] = w;
              },
            });
            await gate;
          }),
        );
        await until(() => said.every((w) => w !== undefined));
        // Both open at once: a watcher of every run that comes now waits for both commits.
        let watching = false;
        const subscribing = watcher?.().then((subscription) => {
          watching = true;
          return subscription;
        });
        if (subscribing) {
          await until(async () => {
            const [row] = await writer<{ waiting: number }[]>`select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted`;
            return (row?.waiting ?? 0) > 0;
          });
          expect(watching).toBe(false);
        }
        release();
        await Promise.all(appends);
        return { said, subscription: await subscribing };
      };
      expect((await inFlight()).said).toEqual([false, false]);
      const { subscription } = await inFlight(() => listener.runs.watchRuns({ onChange: () => {} }));
      expect([await watchedAppend(a, 8), await watchedAppend(b, 8)]).toEqual([true, true]);
      await subscription?.close();
      expect([await watchedAppend(a, 9), await watchedAppend(b, 9)]).toEqual([false, false]);
    } finally {
      await Promise.all(sessions.map((session) => session.end({ timeout: 5 })));
    }
  });

  it('a follower that starts while an append that knew of no one is in flight waits for its commit, then reads it', async () => {
    const runId = await newRun();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let watched: boolean | undefined;
    let committed = false;
    const appending = writer.begin(async (tx) => {
      await appendEvents(postgresDriver(tx as unknown as postgres.Sql), runId, [note(1)], {
        notifyInStatement: false,
        onWatched: (w) => {
          watched = w;
        },
      });
      await gate;
    });
    await until(() => watched !== undefined);
    expect(watched).toBe(false); // no NOTIFY will go out for it

    const seen: RecordedEvent[] = [];
    let subscribed = false;
    const subscribing = listener.runs.subscribe({ runId, onEvents: (events) => void seen.push(...events) }).then((subscription) => {
      subscribed = true;
      return subscription;
    });
    // The follower's watch waits on the append's transaction lock: it is not subscribed while the append is open.
    await until(async () => {
      const [row] = await writer<
        { waiting: number }[]
      >`select count(*)::int as waiting from pg_locks where locktype = 'advisory' and objsubid = 2 and not granted`;
      return (row?.waiting ?? 0) > 0;
    });
    expect(subscribed).toBe(false);
    release();
    await appending;
    committed = true;
    const subscription = await subscribing;
    await until(() => seen.length === 2);
    expect(committed).toBe(true);
    expect(seen.map((e) => e.seq)).toEqual([1, 2]);
    await subscription.close();
  });
});
