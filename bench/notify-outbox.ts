/**
 * What announcing costs the append (docs/notifications.md): one writer appending a run-fail (its append
 * statement also inserts the notification outbox row) against an inert run-resume-request of about the
 * same size (the plain statement), on the raw drivers the journal uses. Same statement count: one each.
 * Variants are interleaved in rounds so drift on a shared machine hits them alike.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/notify-outbox.ts
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import type { JournalEvent } from '../lib/durable';
import { PGliteStorage, PostgresStorage } from '../lib/durable/storage';
import { appendEvents } from '../lib/durable/storage/event-rows';
import { pgliteDriver, postgresDriver, type SqlQuery } from '../lib/durable/storage/sql-driver';
import { DATABASE_URL, latency, printTable, writeResults } from './stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PER_ROUND = Number(process.env.BENCH_PER_ROUND ?? 100);

const fail: JournalEvent = { type: 'run-fail', error: { name: 'ToolError', message: 'x'.repeat(40) } };
const inert: JournalEvent = { type: 'run-resume-request', by: 'bench', reason: 'x'.repeat(40) };

async function createRun(journal: PGliteStorage['runs']): Promise<string> {
  const runId = `bench:notify:${randomUUID()}`;
  const hold = await journal.hold(runId);
  await hold.create({ prompt: 'bench', modelId: 'bench-1', provider: 'bench', toolNames: [] });
  await hold.release();
  return runId;
}

async function measure(label: string, raw: SqlQuery, runs: { announced: string; plain: string }, notifyInStatement: boolean) {
  const variants = [
    { name: `${label}: run-fail + outbox row`, run: () => appendEvents(raw, runs.announced, [fail], { notifyInStatement }) },
    { name: `${label}: inert event (plain statement)`, run: () => appendEvents(raw, runs.plain, [inert], { notifyInStatement }) },
  ];
  const samples = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  for (const v of variants) for (let i = 0; i < 20; i++) await v.run();
  for (let round = 0; round < ROUNDS; round++)
    for (const v of variants)
      for (let i = 0; i < PER_ROUND; i++) {
        const started = performance.now();
        await v.run();
        samples.get(v.name)?.push(performance.now() - started);
      }
  return variants.map((v) => ({ variant: v.name, ...latency(samples.get(v.name) as number[]) }));
}

async function onPostgres() {
  const storage = new PostgresStorage({ connectionString: DATABASE_URL, max: 1 });
  const client = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await storage.database();
    const runs = { announced: await createRun(storage.runs as never), plain: await createRun(storage.runs as never) };
    return await measure('postgres', postgresDriver(client), runs, false);
  } finally {
    await Promise.all([storage.close(), client.end()]);
  }
}

async function onPGlite() {
  const storage = new PGliteStorage();
  try {
    const runs = { announced: await createRun(storage.runs), plain: await createRun(storage.runs) };
    return await measure('pglite', pgliteDriver(await storage.pglite()), runs, true);
  } finally {
    await storage.close();
  }
}

const results = [...(await onPostgres()), ...(await onPGlite())];
printTable(`append latency with and without the outbox row, one writer, ${ROUNDS * PER_ROUND} appends per variant (ms)`, results);
console.log(`written to ${writeResults('notify-outbox', results)}`);
