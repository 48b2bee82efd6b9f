/**
 * Figure 3's floor under GNL's runtime (issue 31: throughput within 2× of Postgres's own commit rate): the
 * journal's own statements for a run, without the SDK, the runtime or the executor. Each of 4 processes
 * (figure 3's workers: 250 runs each at once, pools of 6) first records the calls one run of the 20-step
 * bench agent makes on its hold (the run-start's create, every append, in order, with their events), then
 * plays them for new runs: take the run's hold (its advisory lock, the fence every append checks), load,
 * the same writes with the same events, give the hold back. What is left is what Postgres and postgres.js
 * do for a run's journal; the runtime can come no closer to the INSERT floor than this.
 *
 * In the same run, alternately: GNL itself at the same shape (figure 3's workers, the runs enqueued with
 * startRun), the INSERT floor (one-row INSERT loops, 1,000 writers over 24 connections), and "the rows
 * alone": the same processes and commits, each write's events inserted as plain rows of a copy of
 * gnl.run_events (its columns and indexes) with no run row, no hold, no fence, no erasure check: what
 * storing the journal's data costs before any of its guarantees. Events a second are counted as figure 3
 * counts them (the runs' last_seq; the rows alone: the rows written); commits a second are the writes made
 * (counted by each process; a model step rides with the next record's commit, so a run of 63 events makes
 * 42 commits).
 *
 * The machine's CPU (every core, /proc/stat) is read around each part: within 2× of the INSERT floor
 * means a run may cost at most (2 cores × 2 × its events ÷ the floor's commits a second) of it, printed as
 * the budget beside what each part spent, and beside the plain agent loop's own CPU (generateText with the
 * same scripted model and tool, no durability: what any runtime's run costs before its journal).
 *
 *   npx tsx bench/journal-floor.ts [RUNS=2000] [ROUNDS=2]     (DATABASE_URL, default the local test database)
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import type { Journal, RunHold } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { encodeEvent, type JournalEvent } from '../lib/durable/internal';
import { runJournaled } from './agent';
import { runPlain } from './peers/agent';
import { type Child, ROOT, spawnTsx } from './children';
import { postgresCommitRate } from './floors';
import { cpuOf, machineBusy, postgresCpu } from './proc-cpu';
import { enqueueRuns, progress, startBenchWorkers, waitCompleted } from './throughput';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    child: { type: 'string' },
    runs: { type: 'string' },
    concurrency: { type: 'string', default: '250' },
    pool: { type: 'string', default: '6' },
    rows: { type: 'boolean', default: false },
  },
});
/** The rows alone: a copy of gnl.run_events (columns, keys, indexes; not its append-only triggers). */
const ROWS_TABLE = 'public.bench_journal_rows';
const ROWS_INSERT = `insert into ${ROWS_TABLE} (run_id, seq, type, payload)
  select $1::text, $2::int + x.ord, x.value->>'type', x.value->'payload' from jsonb_array_elements($3::text::jsonb) with ordinality as x(value, ord)`;
const STEPS = 20;
const WORKERS = 4;

type Write = { method: 'create' | 'append' | 'appendAfter'; args: unknown[] };

/** The writes one run of the bench agent makes on its hold, in order (the journal's calls, recorded as made). */
async function recordOneRun(journal: Journal): Promise<Write[]> {
  const writes: Write[] = [];
  const recording = new Proxy(journal, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== 'hold') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const hold = (await (value as (...a: unknown[]) => Promise<RunHold>).apply(target, args)) as RunHold;
        return new Proxy(hold, {
          get(held, name) {
            const member = Reflect.get(held, name, held);
            if (typeof member !== 'function') return member;
            if (name !== 'create' && name !== 'append' && name !== 'appendAfter') return member.bind(held);
            return (...given: unknown[]) => {
              writes.push({ method: name, args: structuredClone(given) });
              return member.apply(held, given);
            };
          },
        });
      };
    },
  });
  await runJournaled(recording as Journal, `bench:journal-floor:recorded:${randomUUID()}`, STEPS);
  return writes;
}

/** Each recorded write's events as the JSON array the journal stores them from (`{ type, payload }`), the run-start's for a create. */
function rowsOf(writes: Write[]): string[] {
  return writes.map((write) => {
    const events =
      write.method === 'create'
        ? [{ type: 'run-start', input: write.args[0] } as JournalEvent]
        : ((write.method === 'append' ? write.args[0] : write.args[1]) as JournalEvent[]);
    return `[${events.map((event) => encodeEvent(event)).join(',')}]`;
  });
}

/** The rows alone (`--rows`): the same writes' events as plain inserts, one commit each, on a pool of `pool`. */
async function playRows(writes: Write[], prefix: string, runs: number, concurrency: number, pool: number): Promise<{ commits: number; events: number }> {
  const sql = postgres(url, { max: pool, onnotice: () => {} });
  const rows = rowsOf(writes);
  const sizes = rows.map((row) => (JSON.parse(row) as unknown[]).length);
  let next = 0;
  let commits = 0;
  let events = 0;
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < runs) {
          next += 1;
          const runId = `${prefix}${randomUUID()}`;
          let seq = 0;
          for (const [i, row] of rows.entries()) {
            await sql.unsafe(ROWS_INSERT, [runId, seq, row], { prepare: true });
            seq += sizes[i] as number;
            commits += 1;
          }
          events += seq;
        }
      }),
    );
    return { commits, events };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** A child: `runs` runs of the recorded writes, `concurrency` at once, on a pool of `pool`; prints its commits. */
async function child(prefix: string, runs: number, concurrency: number, pool: number, rowsOnly: boolean): Promise<void> {
  const storage = new PostgresStorage({ connectionString: url, max: pool });
  try {
    const writes = await recordOneRun(storage.runs);
    // Each process waits for the word to go (SIGUSR2, listened for before it says it started), so the 4 start together.
    const go = new Promise<void>((resolve) => process.once('SIGUSR2', () => resolve()));
    console.log(JSON.stringify({ type: 'started' }));
    await go;
    const played = rowsOnly ? await playRows(writes, prefix, runs, concurrency, pool) : await playJournal(storage, writes, prefix, runs, concurrency);
    console.log(JSON.stringify({ type: 'done', ...played, writesPerRun: writes.length }));
    // Alive, its connections open, until the parent has read its CPU time and that of its backends (then SIGTERM).
    await new Promise(() => setInterval(() => {}, 60_000));
  } finally {
    await storage.close();
  }
}

/** The journal alone: the recorded writes on a hold of each new run, `concurrency` runs at once. */
async function playJournal(storage: PostgresStorage, writes: Write[], prefix: string, runs: number, concurrency: number): Promise<{ commits: number }> {
  let next = 0;
  let commits = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < runs) {
        next += 1;
        const hold = await storage.runs.hold(`${prefix}${randomUUID()}`);
        try {
          await hold.load();
          for (const write of writes) {
            await (hold[write.method] as (...a: unknown[]) => Promise<unknown>).apply(hold, write.args);
            commits += 1;
          }
        } finally {
          await hold.release();
        }
      }
    }),
  );
  return { commits };
}

/** CPU seconds so far of the children and of Postgres (/proc). */
function cpuBefore(children: Child[]) {
  return { children: children.map((c) => cpuOf(c.child.pid as number)), postgres: postgresCpu() };
}

/** CPU seconds since `before`: the children's (workers or players) and Postgres's. */
function cpuSince(children: Child[], before: ReturnType<typeof cpuBefore>) {
  const clients = children.reduce((sum, c, i) => sum + cpuOf(c.child.pid as number) - (before.children[i] ?? 0), 0);
  return { clients, postgres: postgresCpu() - before.postgres };
}

/** The journal alone (or `rowsOnly`, the rows alone): 4 processes playing the recorded writes for `runs` runs in all. */
async function journalAlone(runs: number, rowsOnly = false) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const prefix = `bench:journal-floor:${randomUUID().slice(0, 8)}:`;
  if (rowsOnly) {
    await sql.unsafe(`create table if not exists ${ROWS_TABLE} (like gnl.run_events including all)`);
    await sql.unsafe(`truncate ${ROWS_TABLE}`);
  }
  const children = Array.from({ length: WORKERS }, () =>
    spawnTsx(`${ROOT}/bench/journal-floor.ts`, ['--child', prefix, '--runs', String(runs / WORKERS), ...(rowsOnly ? ['--rows'] : [])], {
      DATABASE_URL: url,
    }),
  );
  try {
    await Promise.all(children.map((c) => c.waitFor((line) => line.type === 'started', 90_000)));
    const before = cpuBefore(children);
    const busy = machineBusy();
    const started = performance.now();
    for (const c of children) c.child.kill('SIGUSR2');
    await Promise.all(children.map((c) => c.waitFor((line) => line.type === 'done', 600_000)));
    const done = children.map((c) => c.lines.find((line) => line.type === 'done') ?? {});
    const elapsed = (performance.now() - started) / 1000;
    const cpu = { ...cpuSince(children, before), machine: machineBusy() - busy };
    const counted = rowsOnly ? { runs, events: done.reduce((sum, line) => sum + Number(line.events), 0) } : await progress(sql, prefix);
    const commits = done.reduce((sum, line) => sum + Number(line.commits), 0);
    if (rowsOnly) await sql.unsafe(`truncate ${ROWS_TABLE}`);
    return { elapsed, ...counted, commits, writesPerRun: Number(done[0]?.writesPerRun), cpu };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await sql.end({ timeout: 5 });
  }
}

/** GNL itself, as figure 3 runs it: 4 workers of 250 runs at once, the runs enqueued with startRun. */
async function gnl(runs: number) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const prefix = `bench:journal-floor:gnl:${randomUUID().slice(0, 8)}:`;
  const children = startBenchWorkers(url, WORKERS, 1000 / WORKERS);
  try {
    await Promise.all(children.map((c) => c.waitFor((line) => line.type === 'started', 90_000)));
    const before = cpuBefore(children);
    const busy = machineBusy();
    const started = performance.now();
    await enqueueRuns(url, prefix, runs);
    const done = await waitCompleted(sql, prefix, runs, Math.max(120_000, runs * 200));
    return { elapsed: (performance.now() - started) / 1000, ...done, cpu: { ...cpuSince(children, before), machine: machineBusy() - busy } };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await sql.end({ timeout: 5 });
  }
}

/** The plain agent loop's own CPU a run (this process: generateText, the scripted model, no durability), after a warm-up. */
async function plainAgentCpuMs(n = 300): Promise<number> {
  for (let i = 0; i < 30; i++) await runPlain();
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await runPlain();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / n;
}

if (values.child) {
  await child(values.child, Number(values.runs), Number(values.concurrency), Number(values.pool), values.rows === true);
} else {
  const runs = Number(positionals[0] ?? 2000);
  const rounds = Number(positionals[1] ?? 2);
  const cores = (await import('node:os')).availableParallelism();
  for (let round = 1; round <= rounds; round++) {
    const alone = await journalAlone(runs);
    const rows = await journalAlone(runs, true);
    const busy = machineBusy();
    const floorStarted = performance.now();
    const floor = await postgresCommitRate(url, { writers: 1000, pool: 24, seconds: 4 });
    const floorCpuPerCommit = ((machineBusy() - busy) * 1000) / (floor * ((performance.now() - floorStarted) / 1000));
    const ours = await gnl(runs);
    const plain = await plainAgentCpuMs();
    const line = (what: string, eventsPerS: number, extra = '') =>
      console.log(`round ${round}: ${what.padEnd(34)} ${Math.round(eventsPerS).toString().padStart(6)} events/s${extra}`);
    const perRun = (cpu: { clients: number; postgres: number; machine: number }, n: number) =>
      `; CPU a run: clients ${((cpu.clients * 1000) / n).toFixed(1)} ms, Postgres ${((cpu.postgres * 1000) / n).toFixed(1)} ms, the machine ${((cpu.machine * 1000) / n).toFixed(1)} ms`;
    const ratio = (eventsPerS: number) => ` (${(floor / eventsPerS).toFixed(2)}× under the floor)`;
    line(
      'GNL (figure 3: workers, executor)',
      ours.events / ours.elapsed,
      `${ratio(ours.events / ours.elapsed)}, ${(ours.completed / ours.elapsed).toFixed(1)} runs/s${perRun(ours.cpu, ours.completed)}`,
    );
    line(
      'the journal alone (same writes)',
      alone.events / alone.elapsed,
      `${ratio(alone.events / alone.elapsed)}, ${Math.round(alone.commits / alone.elapsed)} commits/s (${alone.writesPerRun} writes a run), ${(alone.runs / alone.elapsed).toFixed(1)} runs/s${perRun(alone.cpu, alone.runs)}`,
    );
    line(
      'the rows alone (same events, commits)',
      rows.events / rows.elapsed,
      `${ratio(rows.events / rows.elapsed)}, ${Math.round(rows.commits / rows.elapsed)} commits/s, ${(rows.runs / rows.elapsed).toFixed(1)} runs/s${perRun(rows.cpu, rows.runs)}`,
    );
    console.log(
      `round ${round}: ${'INSERT floor (1,000 writers, 24 conn.)'.padEnd(34)} ${String(floor).padStart(6)} commits/s; the machine's CPU a commit ${floorCpuPerCommit.toFixed(3)} ms`,
    );
    const eventsPerRun = alone.events / alone.runs;
    const budget = (cores * 1000 * 2 * eventsPerRun) / floor;
    console.log(
      `round ${round}: within 2× of the floor, a run of ${Math.round(eventsPerRun)} events may cost ${budget.toFixed(1)} ms of the machine's CPU (${cores} cores); the plain agent loop alone costs ${plain.toFixed(1)} ms a run`,
    );
  }
}
