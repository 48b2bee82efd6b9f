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
 * startRun), and the INSERT floor (one-row INSERT loops, 1,000 writers over 24 connections). Events a
 * second are counted as figure 3 counts them (the runs' last_seq); commits a second are the writes made
 * (the journal alone: counted by each process; a model step rides with the next record's commit, so a
 * run of 63 events makes 42 commits).
 *
 *   npx tsx bench/journal-floor.ts [RUNS=2000] [ROUNDS=2]     (DATABASE_URL, default the local test database)
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import type { Journal, RunHold } from '../lib/durable';
import { PostgresStorage } from '../lib/durable/storage';
import { runJournaled } from './agent';
import { type Child, ROOT, spawnTsx } from './children';
import { postgresCommitRate } from './floors';
import { cpuOf, postgresCpu } from './proc-cpu';
import { enqueueRuns, progress, startBenchWorkers, waitCompleted } from './throughput';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { child: { type: 'string' }, runs: { type: 'string' }, concurrency: { type: 'string', default: '250' }, pool: { type: 'string', default: '6' } },
});
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

/** A child: `runs` runs of the recorded writes, `concurrency` at once, on a pool of `pool`; prints its commits. */
async function child(prefix: string, runs: number, concurrency: number, pool: number): Promise<void> {
  const storage = new PostgresStorage({ connectionString: url, max: pool });
  try {
    const writes = await recordOneRun(storage.runs);
    // Each process waits for the word to go (SIGUSR2, listened for before it says it started), so the 4 start together.
    const go = new Promise<void>((resolve) => process.once('SIGUSR2', () => resolve()));
    console.log(JSON.stringify({ type: 'started' }));
    await go;
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
    console.log(JSON.stringify({ type: 'done', commits, writesPerRun: writes.length }));
    // Alive, its connections open, until the parent has read its CPU time and that of its backends (then SIGTERM).
    await new Promise(() => setInterval(() => {}, 60_000));
  } finally {
    await storage.close();
  }
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

/** The journal alone: 4 processes playing the recorded writes for `runs` runs in all. */
async function journalAlone(runs: number) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const prefix = `bench:journal-floor:${randomUUID().slice(0, 8)}:`;
  const children = Array.from({ length: WORKERS }, () =>
    spawnTsx(`${ROOT}/bench/journal-floor.ts`, ['--child', prefix, '--runs', String(runs / WORKERS)], { DATABASE_URL: url }),
  );
  try {
    await Promise.all(children.map((c) => c.waitFor((line) => line.type === 'started', 90_000)));
    const before = cpuBefore(children);
    const started = performance.now();
    for (const c of children) c.child.kill('SIGUSR2');
    await Promise.all(children.map((c) => c.waitFor((line) => line.type === 'done', 600_000)));
    const done = children.map((c) => c.lines.find((line) => line.type === 'done') ?? {});
    const elapsed = (performance.now() - started) / 1000;
    const cpu = cpuSince(children, before);
    const counted = await progress(sql, prefix);
    const commits = done.reduce((sum, line) => sum + Number(line.commits), 0);
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
    const started = performance.now();
    await enqueueRuns(url, prefix, runs);
    const done = await waitCompleted(sql, prefix, runs, Math.max(120_000, runs * 200));
    return { elapsed: (performance.now() - started) / 1000, ...done, cpu: cpuSince(children, before) };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    await sql.end({ timeout: 5 });
  }
}

if (values.child) {
  await child(values.child, Number(values.runs), Number(values.concurrency), Number(values.pool));
} else {
  const runs = Number(positionals[0] ?? 2000);
  const rounds = Number(positionals[1] ?? 2);
  for (let round = 1; round <= rounds; round++) {
    const alone = await journalAlone(runs);
    const floor = await postgresCommitRate(url, { writers: 1000, pool: 24, seconds: 4 });
    const ours = await gnl(runs);
    const line = (what: string, eventsPerS: number, extra = '') =>
      console.log(`round ${round}: ${what.padEnd(34)} ${Math.round(eventsPerS).toString().padStart(6)} events/s${extra}`);
    const perRun = (cpu: { clients: number; postgres: number }, n: number) =>
      `; CPU a run: clients ${((cpu.clients * 1000) / n).toFixed(1)} ms, Postgres ${((cpu.postgres * 1000) / n).toFixed(1)} ms`;
    line(
      'GNL (figure 3: workers, executor)',
      ours.events / ours.elapsed,
      `, ${(ours.completed / ours.elapsed).toFixed(1)} runs/s${perRun(ours.cpu, ours.completed)}`,
    );
    line(
      'the journal alone (same writes)',
      alone.events / alone.elapsed,
      `, ${Math.round(alone.commits / alone.elapsed)} commits/s (${alone.writesPerRun} writes a run), ${(alone.runs / alone.elapsed).toFixed(1)} runs/s${perRun(alone.cpu, alone.runs)}`,
    );
    console.log(`round ${round}: ${'INSERT floor (1,000 writers, 24 conn.)'.padEnd(34)} ${String(floor).padStart(6)} commits/s`);
  }
}
