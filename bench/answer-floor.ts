/**
 * The floor under a completed run's answer (issue 31: no slower than the fastest peer's). GNL answers with
 * the SDK's whole result, rebuilt from the one record its run-complete keeps (every step's content, usage,
 * response messages: about 24 KB of JSON for the peers' 20-step agent); a peer answers with what its
 * workflow returned. What reading that record costs, on the same server and connection, interleaved:
 * - GNL's answer (runDurable on the completed run: the read, the rebuild, the step callbacks' replay);
 * - GNL's read alone (journal.answerEvents: the one statement and its decoding), and its statement alone
 *   (the rows as postgres.js parses them, not decoded);
 * - the record alone, one row, no GNL code: as GNL keeps it (the run-complete row's json column `answer`,
 *   parsed by postgres.js), and copies of it in a table of the bench's own as jsonb (how it was kept before:
 *   parsed too, after the server's jsonb output) and as text (not parsed: what moving it costs);
 * - a small row (one run's status and a 20-byte output, as a workflow's answer reads).
 *
 *   npx tsx bench/answer-floor.ts [N=2000] [ROUNDS=3]     (DATABASE_URL, default the local test database)
 */
import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { gnlTool, runDurable } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { LOAD } from '../lib/durable/storage/event-rows';
import { loopSettings, recordTool, scriptedModel } from './peers/agent';
import { latency } from './stats';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const n = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 3);
const storage = new PostgresStorage({ connectionString: url });
const sql = postgres(url, { onnotice: () => {} });
const tools = { record: gnlTool(recordTool(), { sideEffect: true }) };
const runId = `bench:answer-floor:${randomUUID()}`;
const answer = () => runDurable({ model: scriptedModel(), tools, ...loopSettings, runId, journal: storage.runs });

try {
  const first = await answer();
  if (first.status !== 'completed') throw new Error(`the run ended ${first.status}`);
  const [record] = await sql<{ text: number }[]>`
    select octet_length(answer::text) as text from gnl.run_events where run_id = ${runId} and type = 'run-complete'`;
  if (!record?.text) throw new Error('the run-complete row keeps no answer in its answer column');
  await sql.unsafe('create table if not exists public.bench_answer_copy (run_id text primary key, body jsonb not null, body_text text not null)');
  await sql.unsafe(
    `insert into public.bench_answer_copy select run_id, answer::text::jsonb, answer::text from gnl.run_events where run_id = $1::text and type = 'run-complete'`,
    [runId],
  );
  const copy = (column: string) => () => sql.unsafe(`select ${column} from public.bench_answer_copy where run_id = $1::text`, [runId], { prepare: true });
  const cases: [string, () => Promise<unknown>][] = [
    ['GNL: the answer (runDurable)', answer],
    ['GNL: its read alone (answerEvents)', () => (storage.runs.answerEvents as (id: string) => Promise<unknown>)(runId)],
    ['GNL: its statement alone (not decoded)', () => sql.unsafe(LOAD.answer, [runId, 0], { prepare: true })],
    [
      `the record alone, as kept (json, ${record.text} B)`,
      () => sql.unsafe(`select answer from gnl.run_events where run_id = $1::text and type = 'run-complete'`, [runId], { prepare: true }),
    ],
    ['the record alone, a jsonb copy', copy('body')],
    ['the record alone, a text copy', copy('body_text')],
    [
      'a small row (status, 20 B output)',
      () => sql.unsafe(`select status, '{"text":"Done.","steps":21}'::jsonb as output from gnl.runs where run_id = $1::text`, [runId], { prepare: true }),
    ],
  ];
  const samples = new Map(cases.map(([name]) => [name, [] as number[]]));
  for (const [, once] of cases) for (let i = 0; i < 200; i++) await once();
  for (let round = 0; round < rounds; round++) {
    for (const [name, once] of cases) {
      const list = samples.get(name) as number[];
      for (let i = 0; i < n / rounds; i++) {
        const started = performance.now();
        await once();
        list.push(performance.now() - started);
      }
    }
  }
  for (const [name] of cases) console.log(`${name.padEnd(44)} ${latency(samples.get(name) as number[]).medianMs} ms (median)`);
} finally {
  await sql.unsafe('delete from public.bench_answer_copy where run_id = $1::text', [runId]).catch(() => {});
  await Promise.all([storage.close(), sql.end({ timeout: 5 })]);
}
