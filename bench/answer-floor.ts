/**
 * The floor under a completed run's answer (issue 31: no slower than the fastest peer's). GNL answers with
 * the SDK's whole result, rebuilt from the one record its run-complete keeps (every step's content, usage,
 * response messages: about 24 KB of JSON for the peers' 20-step agent); a peer answers with what its
 * workflow returned. What reading that record costs, on the same server and connection, interleaved:
 * - GNL's answer (runDurable on the completed run: the read, the rebuild, the step callbacks' replay);
 * - GNL's read alone (journal.answerEvents: the one statement and its decoding), and its statement alone
 *   (the rows as postgres.js parses them, not decoded);
 * - the record alone: one row, its payload as jsonb (parsed by postgres.js, as every read of it is), as
 *   text (not parsed: what moving it from the server costs), and a copy of it in a json column (a table of
 *   the bench's own: kept as text, parsed by postgres.js: what jsonb's own output costs);
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
    select octet_length(payload::text) as text from gnl.run_events where run_id = ${runId} and type = 'run-complete'`;
  await sql.unsafe('create table if not exists public.bench_answer_json (run_id text primary key, body json not null)');
  await sql.unsafe(
    `insert into public.bench_answer_json select run_id, payload::text::json from gnl.run_events where run_id = $1::text and type = 'run-complete'`,
    [runId],
  );
  const oneRow = (column: string) => () =>
    sql.unsafe(`select ${column} from gnl.run_events where run_id = $1::text and type = 'run-complete'`, [runId], { prepare: true });
  const cases: [string, () => Promise<unknown>][] = [
    ['GNL: the answer (runDurable)', answer],
    ['GNL: its read alone (answerEvents)', () => (storage.runs.answerEvents as (id: string) => Promise<unknown>)(runId)],
    ['GNL: its statement alone (not decoded)', () => sql.unsafe(LOAD.answer, [runId, 0], { prepare: true })],
    [`the record alone, jsonb (${record?.text} B of JSON)`, oneRow('payload')],
    ['the record alone, as text', oneRow('payload::text')],
    ['the record alone, a json column', () => sql.unsafe('select body from public.bench_answer_json where run_id = $1::text', [runId], { prepare: true })],
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
  await sql.unsafe('delete from public.bench_answer_json where run_id = $1::text', [runId]).catch(() => {});
  await Promise.all([storage.close(), sql.end({ timeout: 5 })]);
}
