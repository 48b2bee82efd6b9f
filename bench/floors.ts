/**
 * The floors every figure is divided by, measured in the same run on the same server:
 * - one-row INSERT commit through postgres.js (a prepared statement on one connection), or through
 *   PGlite's own query on the same PGlite instance;
 * - one SELECT of a run's event rows (the same text the journal's load sends);
 * - Postgres's own commit rate: the same INSERT loop from `writers` concurrent loops over a pool of
 *   `pool` connections (the journal's pool size), for `seconds`.
 */
import type { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { round } from './stats';

const FLOOR_TABLE = 'create table if not exists public.bench_floor (id bigserial primary key, v text not null, at timestamptz not null default now())';
const INSERT = 'insert into public.bench_floor (v) values ($1)';
const SELECT_EVENTS = 'select seq, type, payload, created_at from gnl.run_events where run_id = $1::text and seq > $2::int order by seq';
const PAYLOAD = 'x'.repeat(200);

async function timed(n: number, once: () => Promise<unknown>, warmUp = Math.min(20, n)): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await once();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await once();
    samples.push(performance.now() - started);
  }
  return samples;
}

export async function postgresInsertFloor(url: string, n: number): Promise<number[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(FLOOR_TABLE);
    return await timed(n, () => sql.unsafe(INSERT, [PAYLOAD], { prepare: true }));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function pgliteInsertFloor(pglite: PGlite, n: number): Promise<number[]> {
  await pglite.exec(FLOOR_TABLE);
  return timed(n, () => pglite.query(INSERT, [PAYLOAD]));
}

export async function postgresSelectFloor(url: string, runId: string, n: number): Promise<number[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return await timed(n, () => sql.unsafe(SELECT_EVENTS, [runId, 0], { prepare: true }), Math.min(3, n));
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export async function pgliteSelectFloor(pglite: PGlite, runId: string, n: number): Promise<number[]> {
  return timed(n, () => pglite.query(SELECT_EVENTS, [runId, 0]), Math.min(3, n));
}

/** Commits per second of `writers` loops of one-row INSERTs over a pool of `pool` connections. */
export async function postgresCommitRate(url: string, args: { writers: number; pool: number; seconds: number }): Promise<number> {
  const sql = postgres(url, { max: args.pool, onnotice: () => {} });
  try {
    await sql.unsafe(FLOOR_TABLE);
    await Promise.all(Array.from({ length: args.pool }, () => sql.unsafe(INSERT, [PAYLOAD], { prepare: true }))); // opens the pool
    let commits = 0;
    const started = performance.now();
    const deadline = started + args.seconds * 1000;
    await Promise.all(
      Array.from({ length: args.writers }, async () => {
        while (performance.now() < deadline) {
          await sql.unsafe(INSERT, [PAYLOAD], { prepare: true });
          commits += 1;
        }
      }),
    );
    return round(commits / ((performance.now() - started) / 1000), 0);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * The SDK's own work per step that grows with the run, alone: before each step generateText copies every
 * earlier step's response messages and the step list (`[...initialResponseMessages, ...steps.flatMap((step) =>
 * step.response.messages)]` and `steps: [...steps]`, node_modules/ai/dist/index.js), which a resume runs through
 * for every recorded step. The same two copies over `n` steps of two messages each (the bench agent's: a
 * tool call and its result); ms a step, on average over the `n` steps and over their last tenth. Where the
 * message array passes 128 KB of pointers (about 8,000 steps) V8 allocates it as a large object, and the
 * cost per step jumps (`npx tsx bench/sdk-step-copies.ts`).
 */
export function sdkStepCopiesFloor(n: number): { perStep: number; lastTenth: number } {
  const steps: { response: { messages: unknown[] } }[] = [];
  let kept = 0;
  const tenth = Math.floor(n * 0.9);
  const started = performance.now();
  let lastTenthStarted = started;
  for (let i = 0; i < n; i++) {
    if (i === tenth) lastTenthStarted = performance.now();
    const accumulated = [...steps.flatMap((step) => step.response.messages)];
    const copy = [...steps];
    kept += accumulated.length - copy.length; // read, so neither copy is optimized away
    steps.push({
      response: {
        messages: [
          { role: 'assistant', content: [{ type: 'tool-call', i }] },
          { role: 'tool', content: [{ type: 'tool-result', i }] },
        ],
      },
    });
  }
  const ended = performance.now();
  if (kept < 0) throw new Error('sdkStepCopiesFloor: fewer messages than steps');
  return { perStep: round((ended - started) / n, 3), lastTenth: round((ended - lastTenthStarted) / (n - tenth), 3) };
}
