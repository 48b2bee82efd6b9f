/**
 * Figure 7, what resumable streams cost the journal (issue 14: the stream log, lib/durable/stream/stream-log.ts,
 * gnl.stream_chunks through storage/stream-rows.ts):
 * - the journal's commit rate without streams: N runs (16 and 64), each held through `storage.runs.hold`
 *   and appending one small event at a time in a loop (a closed loop: the journal at saturation), over one
 *   PostgresStorage (its default pool of 10 connections), a Studio-like listener hearing every change;
 * - the same while S = N other held runs stream: each writes one batch through `hold.appendStream` every
 *   flush interval (10, 40 = the default, 100 ms; at 64 also 250 ms) on the same storage, as writeStreamLog
 *   does while a model streams without pause: appends/s and its drop, stream batches/s (and what was
 *   asked), each batch's write latency; at 64, as a what-if, every stream's batch of a flush in one INSERT;
 * - PGlite (one connection, the NOTIFY inside the statement): the same at 16 writers;
 * - what a reader waits at 40 and 100 ms: the real writeStreamLog on one storage, a followRunStream reader
 *   on another, per text delta from the moment the writer's stream produced it (its flush wait included)
 *   and from its batch's appendStream call, idle and under 64 writers + 64 streams.
 * Each window with streams is paired with one without beside it (the order alternates, the variants'
 * order rotates each round); a figure is the median window, the drop the median of the pairs' ratios.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { UIMessageChunk } from 'ai';
import postgres from 'postgres';
import type { JournalEvent, LiveJournal, RunHold, RunInput } from '../lib/durable';
import { PGliteStorage, PostgresStorage } from '../lib/durable/storage';
import { NOTIFY_CHANNEL } from '../lib/durable/storage/notifications';
import { DEFAULT_FLUSH_MS, followRunStream, writeStreamLog } from '../lib/durable/stream';
import type { BenchContext, FigureResult, GoalCheck } from './report-types';
import { percentile, round, sleep, summary } from './stats';

const INPUT: RunInput = { prompt: 'bench', modelId: 'bench-1', provider: 'bench', toolNames: [] } as never;
/** The small event every journal writer appends (~0.5 KB, a model step's shape). */
const EVENT: JournalEvent = {
  type: 'model-step',
  step: 0,
  provider: 'bench',
  modelId: 'bench-1',
  latencyMs: 812.4,
  result: { content: [{ type: 'text', text: 'x'.repeat(400) }], finishReason: { unified: 'stop' } },
} as never;
const WORDS = 'the refund for order seventeen was approved and will reach your card within three to five working days'.split(' ');
/**
 * One batch: 10 text deltas of 5 words each, as writeStreamLog writes them (it merges consecutive deltas
 * of one text part: one text-delta chunk of 50 words).
 */
function batchChunks(n: number): UIMessageChunk[] {
  const deltas = Array.from({ length: 10 }, (_, i) => `${Array.from({ length: 5 }, (_, w) => WORDS[(n * 50 + i * 5 + w) % WORDS.length]).join(' ')} `);
  return [{ type: 'text-delta', id: 'text-0', delta: deltas.join('') }];
}
export const BATCH_BYTES = Buffer.byteLength(JSON.stringify(batchChunks(0)));

type Storage = PostgresStorage | PGliteStorage;

async function heldRuns(storage: Storage, label: string, count: number): Promise<RunHold[]> {
  const holds: RunHold[] = [];
  for (let i = 0; i < count; i++) {
    const hold = await storage.runs.hold(`bench:stream-log:${label}:${randomUUID()}`);
    await hold.create(INPUT);
    holds.push(hold);
  }
  return holds;
}

interface Window {
  appendsPerS: number;
  batchesPerS: number;
  /** Each batch's write, call to resolve (ms). */
  batchMs: number[];
  /** Stream statements per second (one per batch, or one per flush when coalesced). */
  streamStatementsPerS: number;
  /** This process's CPU time over the window, in % of one core. */
  cpuPercent: number;
}

/** A window's streams: none, one appendStream per stream per flush, or (`coalesced`) one INSERT per flush for all of them. */
interface Variant {
  name: string;
  flushMs?: number;
  coalesced?: boolean;
}

/** What a coalesced writer needs: a connection of its own and each stream run's holder token. */
interface Coalescer {
  sql: postgres.Sql;
  holders: Map<string, string>;
}

const COALESCED_INSERT = `with w as (
    insert into gnl.stream_chunks (run_id, invocation, batch, chunks, done)
    select b.run_id, b.invocation, b.batch, b.chunks::jsonb, false
    from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[]) as b(run_id, invocation, batch, chunks, holder)
    join gnl.runs r on r.run_id = b.run_id and r.holder = b.holder
    returning id, run_id)
  select count(pg_notify('${NOTIFY_CHANNEL}', 's' || w.id || ':' || w.run_id))::int as n from w`;

/** What a window counts: writes that ended between `from` and `until`. */
interface Tally {
  from: number;
  until: number;
  batches: number;
  batchMs: number[];
}

/** One batch per stream per `flushMs`, each through its own hold (what the journal does). */
async function streamEach(hold: RunHold, s: number, count: number, flushMs: number, tally: Tally) {
  const invocation = randomUUID();
  let batch = 0;
  await sleep((s * flushMs) / count); // streams start spread over one interval, as models do
  while (performance.now() < tally.until) {
    const at = performance.now();
    await hold.appendStream({ invocation, batch, chunks: batchChunks(batch), done: false });
    const end = performance.now();
    batch += 1;
    if (end >= tally.from && end <= tally.until) {
      tally.batches += 1;
      tally.batchMs.push(end - at);
    }
    const wait = at + flushMs - end;
    if (wait > 0) await sleep(wait);
  }
  await hold.appendStream({ invocation, batch, chunks: [{ type: 'finish' }], done: true });
}

/** Every stream's batch of each `flushMs` in one INSERT (holder tokens checked in it, a NOTIFY per row inside it). */
async function streamCoalesced(streams: RunHold[], c: Coalescer, flushMs: number, tally: Tally) {
  const invocations = streams.map(() => randomUUID());
  const runIds = streams.map((h) => h.runId);
  const holders = runIds.map((id) => c.holders.get(id) ?? '');
  let batch = 0;
  while (performance.now() < tally.until) {
    const at = performance.now();
    const chunks = JSON.stringify(batchChunks(batch));
    const [row] = await c.sql.unsafe<{ n: number }[]>(
      COALESCED_INSERT,
      [runIds, invocations, runIds.map(() => batch), runIds.map(() => chunks), holders] as never,
      { prepare: true },
    );
    const end = performance.now();
    batch += 1;
    if (end >= tally.from && end <= tally.until) {
      tally.batches += row?.n ?? 0;
      tally.batchMs.push(end - at);
    }
    const wait = at + flushMs - end;
    if (wait > 0) await sleep(wait);
  }
  await Promise.all(streams.map((hold, i) => hold.appendStream({ invocation: invocations[i] as string, batch, chunks: [{ type: 'finish' }], done: true })));
}

/**
 * `writers` append; the variant's streams write (each its done batch at the end, not counted); what
 * ended within `seconds` after one flush interval (every stream has begun by then) is counted. Each
 * writer yields to the event loop between appends: PGlite answers in microtasks, and a closed loop
 * would starve every timer.
 */
async function window(writers: RunHold[], streams: RunHold[], variant: Variant, seconds: number, coalescer?: Coalescer): Promise<Window> {
  const { flushMs } = variant;
  const from = performance.now() + (flushMs ?? 0);
  const tally: Tally = { from, until: from + seconds * 1000, batches: 0, batchMs: [] };
  let appends = 0;
  let cpu: NodeJS.CpuUsage | undefined;
  const measuring = sleep(Math.max(0, from - performance.now())).then(() => {
    cpu = process.cpuUsage();
  });
  const streaming =
    flushMs === undefined
      ? []
      : variant.coalesced && coalescer
        ? [streamCoalesced(streams, coalescer, flushMs, tally)]
        : streams.map((hold, s) => streamEach(hold, s, streams.length, flushMs, tally));
  await Promise.all(
    writers.map(async (hold) => {
      while (performance.now() < tally.until) {
        await hold.append([EVENT]);
        const end = performance.now();
        if (end >= tally.from && end <= tally.until) appends += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  );
  await measuring;
  const used = process.cpuUsage(cpu);
  await Promise.all(streaming);
  return {
    appendsPerS: appends / seconds,
    batchesPerS: tally.batches / seconds,
    batchMs: tally.batchMs,
    streamStatementsPerS: tally.batchMs.length / seconds,
    cpuPercent: ((used.user + used.system) / 1e6 / seconds) * 100,
  };
}

const median = (xs: readonly number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

interface Measured {
  windows: Map<Variant, Window[]>;
  /** Per variant with streams: each of its windows' appends/s ÷ that of the window without streams beside it. */
  ratios: Map<Variant, number[]>;
}

/**
 * Every variant with streams `rounds` times, each window beside one without streams (before it or after
 * it, alternately), the variants' order rotated each round: a shared machine's drift hits both windows
 * of a pair alike.
 */
async function paired(variants: Variant[], rounds: number, run: (v: Variant) => Promise<Window>, log: (m: string) => void): Promise<Measured> {
  const none = variants.find((v) => v.flushMs === undefined) as Variant;
  const streamed = variants.filter((v) => v !== none);
  const windows = new Map<Variant, Window[]>(variants.map((v) => [v, []]));
  const ratios = new Map<Variant, number[]>(streamed.map((v) => [v, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < streamed.length; i++) {
      const v = streamed[(i + r) % streamed.length] as Variant;
      const pair: Window[] = [];
      for (const which of (i + r) % 2 === 0 ? [none, v] : [v, none]) {
        const w = await run(which);
        windows.get(which)?.push(w);
        pair[which === none ? 0 : 1] = w;
        await sleep(50);
      }
      ratios.get(v)?.push((pair[1] as Window).appendsPerS / (pair[0] as Window).appendsPerS);
    }
    log(`figure 7: round ${r + 1}/${rounds}: ${streamed.map((v) => `${v.name} ${round(((ratios.get(v)?.at(-1) ?? Number.NaN) - 1) * 100, 0)} %`).join(', ')}`);
  }
  return { windows, ratios };
}

function rowsOf(journal: string, n: number, { windows, ratios }: Measured): FigureResult['rows'] {
  return [...windows].map(([v, ws]) => {
    const appends = median(ws.map((w) => w.appendsPerS));
    const batches = median(ws.map((w) => w.batchesPerS));
    const batchMs = summary(
      ws.flatMap((w) => w.batchMs),
      1,
    );
    const none = v.flushMs === undefined;
    return {
      journal,
      'journal writers': n,
      streams: none ? 0 : n,
      'stream writes': v.name,
      'appends/s': round(appends, 0),
      'appends/s, windows': ws.map((w) => round(w.appendsPerS, 0)).join(' / '),
      // Paired: each window against the one without streams beside it, then the median.
      'vs no streams': none ? '—' : `${round((median(ratios.get(v) ?? []) - 1) * 100, 1)} %`,
      'pairs, %': none ? '' : (ratios.get(v) ?? []).map((x) => `${round((x - 1) * 100, 0)}`).join(' / '),
      'batches/s': none ? 0 : round(batches, 0),
      'batches/s asked': none ? 0 : round((n * 1000) / (v.flushMs as number), 0),
      'batch write p50': none ? null : batchMs.median,
      'batch write p90': none ? null : batchMs.p90,
      'statements/s': round(appends + (none ? 0 : median(ws.map((w) => w.streamStatementsPerS))), 0),
      'bench CPU %': round(median(ws.map((w) => w.cpuPercent)), 0),
    };
  });
}

const VARIANTS = (intervals: number[], coalesced: boolean): Variant[] => [
  { name: 'none' },
  ...intervals.map((flushMs) => ({ name: `each, ${flushMs} ms`, flushMs })),
  ...(coalesced ? [{ name: `coalesced, ${DEFAULT_FLUSH_MS} ms`, flushMs: DEFAULT_FLUSH_MS, coalesced: true }] : []),
];

async function postgresRates(ctx: BenchContext, n: number, intervals: number[], coalesced: boolean, rounds: number, seconds: number) {
  const storage = new PostgresStorage({ connectionString: ctx.url });
  const studio = new PostgresStorage({ connectionString: ctx.url, max: 2 });
  const sql = postgres(ctx.url, { max: 1, onnotice: () => {} });
  let heard = 0;
  const watch = await studio.runs.watchRuns({
    onChange: () => {
      heard += 1;
    },
  });
  const writers = await heldRuns(storage, `pg-w${n}`, n);
  const streams = await heldRuns(storage, `pg-s${n}`, n);
  try {
    const tokens = await sql<{ run_id: string; holder: string }[]>`select run_id, holder from gnl.runs where run_id = any(${streams.map((h) => h.runId)})`;
    const coalescer: Coalescer = { sql, holders: new Map(tokens.map((t) => [t.run_id, t.holder])) };
    const variants = VARIANTS(intervals, coalesced);
    for (const v of variants) if (v.flushMs !== undefined) await window(writers, streams, v, 0.3, coalescer); // opens the pools, prepares the statements
    const results = await paired(variants, rounds, (v) => window(writers, streams, v, seconds, coalescer), ctx.log);
    return { rows: rowsOf('postgres', n, results), heard };
  } finally {
    await Promise.all([...writers, ...streams].map((h) => h.release()));
    await watch.close();
    await Promise.all([storage.close(), studio.close(), sql.end({ timeout: 5 })]);
  }
}

async function pgliteRates(ctx: BenchContext, n: number, intervals: number[], rounds: number, seconds: number) {
  const storage = new PGliteStorage({ dataDir: path.join(ctx.tmp, `stream-log-${randomUUID().slice(0, 8)}`) });
  const watch = await storage.runs.watchRuns({ onChange: () => undefined });
  const writers = await heldRuns(storage, `pglite-w${n}`, n);
  const streams = await heldRuns(storage, `pglite-s${n}`, n);
  try {
    const variants = VARIANTS(intervals, false);
    await window(writers, streams, variants[1] as Variant, 0.3);
    const results = await paired(variants, rounds, (v) => window(writers, streams, v, seconds), ctx.log);
    return rowsOf('pglite', n, results);
  } finally {
    await Promise.all([...writers, ...streams].map((h) => h.release()));
    await watch.close();
    await storage.close();
  }
}

/**
 * One stream written by the real writeStreamLog (a text delta every `deltaMs`, carrying the time it was
 * produced) on `writer`, read by followRunStream on `reader`: per delta, produced → read, and its batch's
 * appendStream call → read.
 */
async function deltaLatency(writer: PostgresStorage, reader: LiveJournal, flushMs: number, seconds: number, deltaMs = 4) {
  const [hold] = await heldRuns(writer, 'latency', 1);
  if (!hold) throw new Error('no hold');
  const flushedAt = new Map<string, number>(); // a batch's first stamp → when its appendStream was called
  const timed = {
    runId: hold.runId,
    appendStream: (batch: Parameters<RunHold['appendStream']>[0]) => {
      const first = (batch.chunks as UIMessageChunk[]).find((c) => c.type === 'text-delta');
      if (first?.type === 'text-delta') flushedAt.set(first.delta.split(';')[0] as string, performance.now());
      return hold.appendStream(batch);
    },
  } as RunHold; // writeStreamLog uses these two
  const producedToRead: number[] = [];
  const flushToRead: number[] = [];
  const follow = followRunStream({ journal: reader, runId: hold.runId });
  const reading = (async () => {
    for await (const chunk of follow as unknown as AsyncIterable<UIMessageChunk>) {
      const now = performance.now();
      if (chunk.type !== 'text-delta') continue;
      const stamps = chunk.delta.split(';').filter(Boolean);
      const flushed = flushedAt.get(stamps[0] as string);
      if (flushed !== undefined) flushToRead.push(now - flushed);
      for (const stamp of stamps) producedToRead.push(now - Number(stamp));
    }
  })();
  await sleep(300); // the reader listens
  const deadline = performance.now() + seconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      c.enqueue({ type: 'start' });
      c.enqueue({ type: 'text-start', id: 'text-0' });
      timer = setInterval(() => {
        if (performance.now() > deadline) {
          clearInterval(timer);
          c.enqueue({ type: 'text-end', id: 'text-0' });
          c.enqueue({ type: 'finish' });
          c.close();
        } else c.enqueue({ type: 'text-delta', id: 'text-0', delta: `${performance.now()};` });
      }, deltaMs);
    },
    cancel: () => clearInterval(timer),
  });
  try {
    await writeStreamLog({ hold: timed, stream, invocation: randomUUID(), flushMs });
    await Promise.race([reading, sleep(5000)]);
  } finally {
    await hold.release();
  }
  const sorted = [...producedToRead].sort((a, b) => a - b);
  return { produced: summary(producedToRead, 1), p95: round(percentile(sorted, 95), 1), flushed: summary(flushToRead, 1) };
}

async function latencyRows(ctx: BenchContext, n: number, flushes: number[], seconds: number): Promise<FigureResult['rows']> {
  const writer = new PostgresStorage({ connectionString: ctx.url });
  const reader = new PostgresStorage({ connectionString: ctx.url, max: 2 });
  const load = new PostgresStorage({ connectionString: ctx.url });
  const rows: FigureResult['rows'] = [];
  const add = (setup: string, flushMs: number, r: Awaited<ReturnType<typeof deltaLatency>>) =>
    rows.push({
      journal: 'postgres',
      'delta latency': setup,
      'stream writes': `writeStreamLog, ${flushMs} ms`,
      'deltas read': r.produced.n,
      'produced → read p50': r.produced.median,
      'produced → read p90': r.produced.p90,
      'produced → read p95': r.p95,
      'produced → read p99': r.produced.p99,
      'appendStream → read p50': r.flushed.median,
      'appendStream → read p90': r.flushed.p90,
      'appendStream → read p99': r.flushed.p99,
    });
  try {
    await Promise.all([writer.database(), reader.database()]);
    await deltaLatency(writer, reader.runs, DEFAULT_FLUSH_MS, 0.5); // warm-up
    for (const flushMs of flushes) {
      ctx.log(`figure 7: delta latency, idle, flush ${flushMs} ms, ${seconds} s`);
      add('idle', flushMs, await deltaLatency(writer, reader.runs, flushMs, seconds));
    }
    const writers = await heldRuns(load, `load-w${n}`, n);
    const streams = await heldRuns(load, `load-s${n}`, n);
    try {
      for (const flushMs of flushes) {
        ctx.log(`figure 7: delta latency under ${n} journal writers + ${n} streams, flush ${flushMs} ms (all streams), ${seconds} s`);
        const loaded = window(writers, streams, { name: 'load', flushMs }, seconds + 1.2);
        await sleep(300);
        add(
          `under ${n} journal writers + ${n} streams at the same flush (another storage)`,
          flushMs,
          await deltaLatency(writer, reader.runs, flushMs, seconds),
        );
        await loaded;
      }
    } finally {
      await Promise.all([...writers, ...streams].map((h) => h.release()));
    }
  } finally {
    await Promise.all([writer.close(), reader.close(), load.close()]);
  }
  return rows;
}

export async function streamLog(ctx: BenchContext): Promise<FigureResult> {
  const seconds = 0.8;
  const rounds = ctx.quick ? 1 : 5;
  /** Where the question is (64 streams): every interval, and one INSERT per flush for all streams. */
  const intervals = [10, 40, 100, 250];
  // --quick: 64 writers at 40 and 100 ms and coalesced, PGlite at 40 ms, the delay at 40 ms.
  const plan = ctx.quick
    ? [{ n: 64, intervals: [DEFAULT_FLUSH_MS, 100], coalesced: true }]
    : [
        { n: 16, intervals: [10, 40, 100], coalesced: false },
        { n: 64, intervals, coalesced: true },
      ];
  const rows: FigureResult['rows'] = [];
  let heard = 0;
  for (const p of plan) {
    ctx.log(`figure 7: Postgres, ${p.n} journal writers, ${rounds} pairs of ${seconds} s windows per variant`);
    const r = await postgresRates(ctx, p.n, p.intervals, p.coalesced, rounds, seconds);
    rows.push(...r.rows);
    heard += r.heard;
  }
  ctx.log('figure 7: PGlite, 16 journal writers');
  rows.push(...(await pgliteRates(ctx, 16, ctx.quick ? [DEFAULT_FLUSH_MS] : [10, 40, 100], rounds, seconds)));
  const latency = await latencyRows(ctx, 64, ctx.quick ? [DEFAULT_FLUSH_MS] : [DEFAULT_FLUSH_MS, 100], ctx.quick ? 1.5 : 3);

  const pick = (n: number, name: string) => rows.find((r) => r.journal === 'postgres' && r['journal writers'] === n && r['stream writes'] === name);
  const at64 = pick(64, `each, ${DEFAULT_FLUSH_MS} ms`);
  const none64 = pick(64, 'none');
  const drop = at64 ? Number.parseFloat(String(at64['vs no streams'])) : Number.NaN;
  const goals: GoalCheck[] = [
    {
      goal: `resumable streams at the default flush (${DEFAULT_FLUSH_MS} ms) cost the journal at most 10 % of its commit rate at 64 concurrent streams (Postgres)`,
      measured:
        at64 && none64
          ? `${at64['appends/s']} appends/s with 64 streams against ${none64['appends/s']} without (${at64['vs no streams']}), ${at64['batches/s']} batches/s written of ${at64['batches/s asked']} asked; ${intervals
              .filter((f) => f !== DEFAULT_FLUSH_MS && pick(64, `each, ${f} ms`))
              .map((f) => `${f} ms: ${pick(64, `each, ${f} ms`)?.['vs no streams']}`)
              .join(', ')}; one INSERT per flush for all streams: ${pick(64, `coalesced, ${DEFAULT_FLUSH_MS} ms`)?.['vs no streams']}`
          : 'not measured',
      met: Number.isFinite(drop) ? drop >= -10 : null,
    },
  ];
  return {
    id: '7',
    title: 'Stream log: what resumable streams cost the journal',
    rows: [...rows, ...latency],
    goals,
    notes: [
      `Journal writers: N held runs, each appending one ~0.5 KB model-step event at a time in a loop (a closed loop: the journal at saturation; each writer yields to the event loop between appends) over one PostgresStorage (its default pool of 10 connections); a second storage listens to every change as the Studio does (${heard} changes heard).`,
      `Streams ("each"): N other held runs on the same storage, each writing one batch through hold.appendStream every flush interval (the next starts one interval after the previous one started, at once if that write took longer: what writeStreamLog does while a model streams without a pause). A batch is 10 text deltas of 5 words, merged as the writer merges them (one chunk, ${BATCH_BYTES} bytes of JSON). Each window ends with every stream's done batch (not counted). "coalesced" (Postgres only, not what the journal does): every stream's batch of one flush in one INSERT … unnest(…) on a connection of its own, the holder tokens checked and a NOTIFY per row inside it — one statement per flush for the process instead of one per stream.`,
      `${rounds} pair(s) of ${seconds} s windows per variant with streams: one window with them, one without beside it (before or after, alternately; the variants' order rotated each round), counted from one flush interval after the streams began. A figure is the median window; "vs no streams" the median of the pairs' ratios (listed in "pairs": a shared machine's drift hits both windows of a pair alike); "batches/s asked" = N × 1000 / flush; "statements/s" = appends + stream statements (each its own commit); "bench CPU %" is this Node process (one core = 100 %), beside Postgres on the same cores.`,
      ...(rounds === 1 ? ['--quick: one pair per variant, too few to conclude on a shared machine (the full run takes 5).'] : []),
      'PGlite: one connection in one process (every statement queued on it), the NOTIFY inside the statement; a data folder in the bench’s temporary folder.',
      `Delta latency: the real writeStreamLog (one text delta every 4 ms, stamped with the time it was produced) on one PostgresStorage, followRunStream on another (its own pool and LISTEN). "produced → read" includes the wait for the flush; "appendStream → read" is the write, its commit, the coalesced NOTIFY after commit, the reader's wake and its SELECT. Under load: 64 journal writers + 64 streams at the same interval on a third storage.`,
    ],
    data: { rows, latency },
  };
}
