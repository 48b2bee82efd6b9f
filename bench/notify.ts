/**
 * Commit throughput with live notifications, 16 and 64 concurrent writers (each appending one event at
 * a time to its own run, each on its own pool connection), in windows of BENCH_SECONDS:
 *   none                     no NOTIFY at all (the ceiling)
 *   in-statement             pg_notify inside the append statement (held until that commit is flushed)
 *   after-commit, per append one `select pg_notify` per append on the pool, not awaited
 *   after-commit, coalesced  the journal's way: CoalescingNotifier on a side session, not awaited
 * A real LISTEN connection hears them; after each window every run's last notified sequence number must
 * equal its last_seq (no run left unannounced). PGlite (one connection; 1 and 16 writers) compares
 * in-statement with a coalesced after-commit NOTIFY. Windows of the variants are interleaved, BENCH_ROUNDS times.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/notify.ts
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import type { JournalEvent } from '../lib/durable';
import { PGliteStorage, PostgresStorage } from '../lib/durable/storage';
import { appendEvents } from '../lib/durable/storage/event-rows';
import { CoalescingNotifier, NOTIFY_CHANNEL, notificationPayload, parseNotification } from '../lib/durable/storage/notifications';
import { pgliteDriver, postgresDriver, type SqlQuery } from '../lib/durable/storage/sql-driver';
import { DATABASE_URL, percentile, printTable, round, sleep, writeResults } from './stats';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WRITER_COUNTS = (process.env.BENCH_WRITERS ?? '16,64').split(',').map(Number);
const PGLITE_WRITER_COUNTS = (process.env.BENCH_PGLITE_WRITERS ?? '1,16').split(',').map(Number);

type Mode = 'none' | 'in-statement' | 'after-commit, per append' | 'after-commit, coalesced';
const POSTGRES_MODES: Mode[] = ['none', 'in-statement', 'after-commit, per append', 'after-commit, coalesced'];

const event: JournalEvent = {
  type: 'model-step',
  step: 0,
  provider: 'bench',
  modelId: 'bench-1',
  latencyMs: 812.4,
  result: { content: [{ type: 'text', text: 'x'.repeat(400) }], finishReason: { unified: 'stop' } },
};

/** Highest sequence number heard per run. */
type Heard = Map<string, number>;
const hear = (heard: Heard) => (payload: string) => {
  const change = parseNotification(payload);
  if (change && (heard.get(change.runId) ?? 0) < change.lastSeq) heard.set(change.runId, change.lastSeq);
};

async function createRuns(storage: PostgresStorage | PGliteStorage, count: number): Promise<string[]> {
  const runIds = Array.from({ length: count }, () => `bench:notify:${randomUUID()}`);
  for (const runId of runIds) {
    const hold = await storage.runs.hold(runId);
    await hold.create({ prompt: 'bench', modelId: 'bench-1', provider: 'bench', toolNames: [] });
    await hold.release();
  }
  return runIds;
}

/** W writers append for SECONDS; returns commits per second and the final last_seq per run. */
async function window(args: {
  db: SqlQuery;
  runIds: string[];
  notifyInStatement: boolean;
  afterCommit?: (runId: string, lastSeq: number) => void;
}): Promise<{ commits: number; perSecond: number; last: Map<string, number> }> {
  const { db, runIds, notifyInStatement, afterCommit } = args;
  const deadline = performance.now() + SECONDS * 1000;
  const last = new Map<string, number>();
  let commits = 0;
  const started = performance.now();
  await Promise.all(
    runIds.map(async (runId) => {
      while (performance.now() < deadline) {
        const [recorded] = await appendEvents(db, runId, [event], { notifyInStatement });
        commits += 1;
        last.set(runId, recorded?.seq ?? 0);
        afterCommit?.(runId, recorded?.seq ?? 0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { commits, perSecond: round(commits / elapsed, 0), last };
}

/** Waits (at most 10 s) until every run's last append was heard; returns the runs that never were. */
async function unannounced(heard: Heard, last: Map<string, number>, flushed: () => Promise<void>): Promise<number> {
  await flushed();
  const missing = () => [...last].filter(([runId, seq]) => (heard.get(runId) ?? 0) < seq).length;
  for (let i = 0; i < 100 && missing() > 0; i++) await sleep(100);
  return missing();
}

async function postgresBench(writers: number) {
  const storage = new PostgresStorage({ connectionString: DATABASE_URL });
  await storage.database();
  const pool = postgres(DATABASE_URL, { max: writers, onnotice: () => {} });
  const side = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  const heard: Heard = new Map();
  const listener = postgres(DATABASE_URL, { max: 1, onnotice: () => {}, onnotify: (_c: string, p: string) => hear(heard)(p) } as postgres.Options<never>);
  await listener.unsafe(`listen ${NOTIFY_CHANNEL}`);
  const db = postgresDriver(pool);
  const coalesced = new CoalescingNotifier(async (payloads) => {
    await side.unsafe(`select pg_notify('${NOTIFY_CHANNEL}', p) from jsonb_array_elements_text($1::text::jsonb) as p`, [JSON.stringify(payloads)], {
      prepare: true,
    });
  });
  const inFlight = new Set<Promise<unknown>>();
  const perAppend = (runId: string, lastSeq: number) => {
    const sent = pool.unsafe(`select pg_notify('${NOTIFY_CHANNEL}', $1)`, [notificationPayload(runId, lastSeq)], { prepare: true }).catch(() => undefined);
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  };
  try {
    const runIds = await createRuns(storage, writers);
    await Promise.all(runIds.map((runId) => appendEvents(db, runId, [event], { notifyInStatement: false }))); // opens the pool
    const results = new Map<Mode, { perSecond: number[]; commits: number; unannounced: number }>();
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of POSTGRES_MODES) {
        const result = await window({
          db,
          runIds,
          notifyInStatement: mode === 'in-statement',
          afterCommit:
            mode === 'after-commit, coalesced' ? (id, seq) => coalesced.announce(id, seq) : mode === 'after-commit, per append' ? perAppend : undefined,
        });
        const lost =
          mode === 'none'
            ? 0
            : await unannounced(heard, result.last, async () => {
                await coalesced.idle();
                await Promise.all(inFlight);
              });
        const entry = results.get(mode) ?? { perSecond: [], commits: 0, unannounced: 0 };
        entry.perSecond.push(result.perSecond);
        entry.commits += result.commits;
        entry.unannounced += lost;
        results.set(mode, entry);
      }
    }
    return summarize('postgres', writers, results);
  } finally {
    await Promise.all([storage.close(), pool.end(), side.end(), listener.end()]);
  }
}

async function pgliteBench(writers: number) {
  const storage = new PGliteStorage();
  const pglite = await storage.pglite();
  await storage.database();
  const heard: Heard = new Map();
  const unlisten = await pglite.listen(NOTIFY_CHANNEL, hear(heard));
  const db = pgliteDriver(pglite);
  const coalesced = new CoalescingNotifier(async (payloads) => {
    await pglite.query(`select pg_notify('${NOTIFY_CHANNEL}', p) from jsonb_array_elements_text($1::text::jsonb) as p`, [JSON.stringify(payloads)]);
  });
  try {
    const runIds = await createRuns(storage, writers);
    const modes: Mode[] = ['in-statement', 'after-commit, coalesced'];
    const results = new Map<Mode, { perSecond: number[]; commits: number; unannounced: number }>();
    for (let r = 0; r < ROUNDS; r++) {
      for (const mode of modes) {
        const result = await window({
          db,
          runIds,
          notifyInStatement: mode === 'in-statement',
          afterCommit: mode === 'after-commit, coalesced' ? (id, seq) => coalesced.announce(id, seq) : undefined,
        });
        const lost = await unannounced(heard, result.last, () => coalesced.idle());
        const entry = results.get(mode) ?? { perSecond: [], commits: 0, unannounced: 0 };
        entry.perSecond.push(result.perSecond);
        entry.commits += result.commits;
        entry.unannounced += lost;
        results.set(mode, entry);
      }
    }
    return summarize('pglite', writers, results);
  } finally {
    await unlisten();
    await storage.close();
  }
}

function summarize(journal: string, writers: number, results: Map<Mode, { perSecond: number[]; commits: number; unannounced: number }>) {
  const base = results.get('none') ?? results.get('in-statement');
  // The median window: a shared machine's noise hits single windows, not the interleaved whole.
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  return [...results].map(([mode, r]) => ({
    journal,
    writers,
    mode,
    commitsPerSecond: median(r.perSecond),
    windows: r.perSecond.join(' / '),
    vsFirst: base ? `${round((median(r.perSecond) / median(base.perSecond) - 1) * 100, 1)} %` : '',
    unannouncedRuns: r.unannounced,
  }));
}

const rows = [];
for (const writers of WRITER_COUNTS) rows.push(...(await postgresBench(writers)));
for (const writers of PGLITE_WRITER_COUNTS) rows.push(...(await pgliteBench(writers)));
printTable(`commit throughput with live notifications (median of ${ROUNDS} interleaved ${SECONDS} s windows)`, rows);
console.log(`written to ${writeResults('notify', rows)}`);
