/**
 * One append's latency, one writer, one event of ~1 KB: through drizzle's `execute(sql`…`)` and through
 * the raw driver with a prepared statement (the journal's hot path). Same SQL text and the same
 * encoding (event-rows.ts appendEvents); only the executor differs. On Postgres also the price of the
 * fence (holder token, then token + advisory-lock check: what the journal runs).
 * Variants are interleaved in rounds so drift on a shared machine hits them alike.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/append.ts
 */
import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import postgres from 'postgres';
import type { JournalEvent } from '../lib/durable';
import { PGliteStorage, PostgresStorage } from '../lib/durable/storage';
import { appendEvents, type Fence } from '../lib/durable/storage/event-rows';
import { advisoryKey } from '../lib/durable/storage/postgres-storage';
import { pgliteDriver, postgresDriver, type SqlQuery } from '../lib/durable/storage/sql-driver';
import { query, type TransactionalDb } from '../lib/durable/storage/sql-rows';
import { DATABASE_URL, latency, printTable, writeResults } from './stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 200);
const WARM_UP = 50;

const event: JournalEvent = {
  type: 'model-step',
  step: 0,
  provider: 'bench',
  modelId: 'bench-1',
  latencyMs: 812.4,
  result: { content: [{ type: 'text', text: 'x'.repeat(900) }], finishReason: { unified: 'stop' }, usage: { inputTokens: { total: 120 } } },
};

interface Variant {
  name: string;
  run(): Promise<unknown>;
}

/** The same statement text and parameters, through drizzle's template API. */
function throughDrizzle(db: TransactionalDb): SqlQuery {
  return {
    query: <T>(text: string, params: readonly unknown[]) => {
      const parts = text.split(/\$(\d+)/);
      const chunks: SQL[] = parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`));
      return query<T>(db, sql.join(chunks));
    },
  };
}

async function createRun(journal: { hold(runId: string): Promise<{ create(i: unknown): Promise<unknown>; release(): Promise<void> }> }) {
  const runId = `bench:append:${randomUUID()}`;
  const hold = await journal.hold(runId);
  await hold.create({ prompt: 'bench', modelId: 'bench-1', provider: 'bench', toolNames: [] });
  await hold.release();
  return runId;
}

async function measure(variants: Variant[]) {
  const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (const variant of variants) for (let i = 0; i < WARM_UP; i++) await variant.run();
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) {
      const list = samples.get(variant.name) as number[];
      for (let i = 0; i < PER_ROUND; i++) {
        const started = performance.now();
        await variant.run();
        list.push(performance.now() - started);
      }
    }
  }
  return variants.map((v) => ({ variant: v.name, ...latency(samples.get(v.name) as number[]) }));
}

async function postgresVariants() {
  const storage = new PostgresStorage({ connectionString: DATABASE_URL, max: 1 });
  const db = await storage.database();
  const client = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  const lockSession = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const raw = postgresDriver(client);
    const drizzled = throughDrizzle(db);
    const runs = {
      drizzle: await createRun(storage.runs),
      raw: await createRun(storage.runs),
      token: await createRun(storage.runs),
      fenced: await createRun(storage.runs),
    };
    const fence = async (runId: string, withLock: boolean): Promise<Fence> => {
      const holder = randomUUID();
      await client`update gnl.runs set holder = ${holder} where run_id = ${runId}`;
      await lockSession`select pg_advisory_lock(${advisoryKey(runId)}::bigint)`;
      return { holder, lockKey: withLock ? advisoryKey(runId) : (null as unknown as string) };
    };
    const tokenOnly = await fence(runs.token, false);
    const full = await fence(runs.fenced, true);
    const plain = { notifyInStatement: false };
    return await measure([
      { name: 'postgres: drizzle execute(sql`…`)', run: () => appendEvents(drizzled, runs.drizzle, [event], plain) },
      { name: 'postgres: raw prepared (postgres.js unsafe, prepare: true)', run: () => appendEvents(raw, runs.raw, [event], plain) },
      { name: 'postgres: raw prepared + holder token', run: () => appendEvents(raw, runs.token, [event], { ...plain, fence: tokenOnly }) },
      {
        name: 'postgres: raw prepared + holder token + lock check (the journal)',
        run: () => appendEvents(raw, runs.fenced, [event], { ...plain, fence: full }),
      },
    ]);
  } finally {
    await Promise.all([storage.close(), client.end(), lockSession.end()]);
  }
}

async function pgliteVariants() {
  const storage = new PGliteStorage();
  try {
    const raw = pgliteDriver(await storage.pglite());
    const drizzled = throughDrizzle(await storage.database());
    const runs = { drizzle: await createRun(storage.runs), raw: await createRun(storage.runs) };
    const options = { notifyInStatement: true };
    return await measure([
      { name: 'pglite: drizzle execute(sql`…`)', run: () => appendEvents(drizzled, runs.drizzle, [event], options) },
      { name: 'pglite: raw query (the journal)', run: () => appendEvents(raw, runs.raw, [event], options) },
    ]);
  } finally {
    await storage.close();
  }
}

const results = [...(await postgresVariants()), ...(await pgliteVariants())];
printTable(`append latency, one writer, ${ROUNDS * PER_ROUND} appends per variant (ms)`, results);
console.log(`written to ${writeResults('append', results)}`);
