/**
 * `npm run bench:soak`: the soak of issue 33. Not part of CI (it lasts 20 minutes by default).
 *
 * A private Postgres cluster (e2e/faults/private-cluster.ts: its own server, so the restart touches no one
 * else), the demo's outside service, and 4 real worker processes (`npm run worker`, the deployment's
 * `support` agent: a ticket and an email per run, each a side effect with a check; the service answers
 * after --latency-ms, so runs spend their time inside side effects). Runs are started at
 * a steady rate over the whole window; meanwhile a worker is SIGKILLed every --kill-every-s seconds
 * (and a fresh one started in its place), and the database server is restarted once, in the middle.
 *
 * Judged by the outside service's own counters (each ticket and email performed once per run, by key)
 * and the journal's audit (seq contiguous, one run-complete, one outcome per call, one writer per
 * invocation: e2e/faults/journal-audit.ts), plus every run completed and none waiting for a person.
 * Reported every 30 s and at the end: each worker's resident memory and the server's connection count,
 * which must stay flat (no leak per run).
 *
 *   npm run bench:soak -- [--runs 10000] [--minutes 20] [--workers 4] [--kill-every-s 180] [--latency-ms 300]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { supportAgent } from '../agents/support';
import { FaultWorker, namedUrl } from '../e2e/faults/fault-worker';
import { auditRuns, installAudit } from '../e2e/faults/journal-audit';
import { postgresBinaries, startPrivateCluster } from '../e2e/faults/private-cluster';
import { createAgentRegistry } from '../lib/agents';
import { startOutsideService } from '../lib/demo';
import { PostgresStorage } from '../lib/durable/storage';
import { startRun } from '../lib/executor';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' },
    minutes: { type: 'string', default: '20' },
    workers: { type: 'string', default: '4' },
    'kill-every-s': { type: 'string', default: '180' },
    'latency-ms': { type: 'string', default: '300' },
  },
  strict: true,
});
const RUNS = positive('runs');
const WINDOW_MS = positive('minutes') * 60_000;
const WORKERS = positive('workers');
const KILL_EVERY_MS = positive('kill-every-s') * 1000;
// Each answer of the outside service waits this long: runs spend their time inside side effects, where a SIGKILL matters.
const LATENCY_MS = Number(values['latency-ms']);
const SETTLE_MS = 10 * 60_000; // after the last start: every run must have settled within this

function positive(name: keyof typeof values): number {
  const value = Number(values[name]);
  if (!(value > 0)) throw new TypeError(`--${name} must be a positive number (got "${values[name]}")`);
  return value;
}

if (!postgresBinaries()) throw new Error('bench:soak needs PostgreSQL server binaries (/usr/lib/postgresql/*/bin) for its private cluster.');

interface Sample {
  atS: number;
  started: number;
  completed: number;
  rssMb: number[];
  connections: number;
}

const cluster = await startPrivateCluster();
const service = await startOutsideService({ latencyMs: LATENCY_MS });
const storage = new PostgresStorage({ connectionString: namedUrl(cluster.url, 'soak-starter') });
const admin = postgres(cluster.url, { max: 1, onnotice: () => {} });
const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
const t0 = performance.now();
const elapsedS = () => Math.round((performance.now() - t0) / 1000);
const log = (text: string) => console.log(`[soak ${String(elapsedS()).padStart(5)} s] ${text}`);
let generation = 0;
const newWorker = () =>
  new FaultWorker({ name: `soak-${++generation}`, databaseUrl: cluster.url, serviceUrl: service.url, concurrency: 8, leaseMs: 10_000, pollMs: 200 });
const workers: FaultWorker[] = [];
const retired: FaultWorker[] = [];
const samples: Sample[] = [];
const faults = { kills: 0, restarts: 0 };
const runIds: string[] = [];

try {
  await installAudit(await storage.database());
  for (let n = 0; n < WORKERS; n++) workers.push(newWorker());
  await Promise.all(workers.map((w) => w.waitFor((l) => l.type === 'started')));
  log(
    `cluster on port ${cluster.port}, ${WORKERS} workers, ${RUNS} runs over ${WINDOW_MS / 60_000} min, a worker killed every ${KILL_EVERY_MS / 1000} s, one restart`,
  );

  const sample = async () => {
    const [row] = await admin<{ connections: number; completed: number }[]>`
      select (select count(*)::int from pg_stat_activity where application_name like 'fw-soak-%') as connections,
             (select count(*)::int from gnl.runs where status = 'completed') as completed`.catch(() => [{ connections: -1, completed: -1 }]);
    const s: Sample = {
      atS: elapsedS(),
      started: runIds.length,
      completed: row?.completed ?? -1,
      rssMb: workers.filter((w) => w.alive).map((w) => rssMb(w.pid)),
      connections: row?.connections ?? -1,
    };
    samples.push(s);
    log(`started ${s.started}, completed ${s.completed}; workers' RSS ${s.rssMb.join(' / ')} MB; ${s.connections} worker connections`);
  };
  const sampler = setInterval(() => void sample(), 30_000);
  let nextKill = KILL_EVERY_MS;
  let restarted = false;
  let victim = 0;

  // Starts at a steady rate, the faults on their schedule.
  for (let n = 0; n < RUNS; n++) {
    const due = (n / RUNS) * WINDOW_MS;
    const wait = due - (performance.now() - t0);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const now = performance.now() - t0;
    if (now >= nextKill) {
      nextKill += KILL_EVERY_MS;
      // The worker with the most runs in hand (inside their side effects, most likely), else the next in turn.
      const busiest = workers.reduce(
        (best, w, i) => (w.activeRuns().length > (workers[best] as FaultWorker).activeRuns().length ? i : best),
        victim++ % workers.length,
      );
      const index = busiest;
      const old = workers[index] as FaultWorker;
      old.signal('SIGKILL');
      retired.push(old);
      faults.kills += 1;
      workers[index] = newWorker();
      log(`SIGKILL worker ${old.options.name} (pid ${old.pid}) with ${old.activeRuns().length} runs in hand; ${workers[index]?.options.name} started`);
    }
    if (!restarted && now >= WINDOW_MS / 2) {
      restarted = true;
      const r0 = performance.now();
      await cluster.restart();
      faults.restarts += 1;
      log(`database server restarted (pg_ctl restart -m fast) in ${Math.round(performance.now() - r0)} ms`);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        runIds.push((await startRun({ storage, registry, agent: 'support', input: { prompt: `Customer c_7 has question ${n} about order o_21` } })).runId);
        break;
      } catch (error) {
        if (attempt >= 50) throw error; // the server away for longer than 10 s
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }
  log(`all ${RUNS} runs started; settling`);

  // Settled: nothing runnable or leased, bounded.
  const settleBy = Date.now() + SETTLE_MS;
  for (;;) {
    const [row] = await admin<{ n: number }[]>`select count(*)::int as n from gnl.run_queue where runnable or lease_owner is not null`;
    if (row?.n === 0) break;
    if (Date.now() > settleBy) throw new Error(`${row?.n} runs still runnable or leased ${SETTLE_MS / 60_000} min after the last start`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  clearInterval(sampler);
  await sample();
  const totalS = elapsedS();

  // The judgement.
  const statuses = await admin<{ status: string; n: number }[]>`select status, count(*)::int as n from gnl.runs group by status order by status`;
  const stats = service.stats();
  const problems: string[] = [];
  const completed = statuses.find((s) => s.status === 'completed')?.n ?? 0;
  if (completed !== RUNS) problems.push(`${completed} of ${RUNS} runs completed: ${JSON.stringify(statuses)}`);
  for (const kind of ['tickets', 'emails'] as const) {
    if (stats[kind].performed !== RUNS) problems.push(`${kind}: ${stats[kind].performed} performed for ${RUNS} runs`);
    const twice = Object.entries(stats[kind].byKey).filter(([, k]) => k.performed !== 1);
    if (twice.length > 0) problems.push(`${kind}: ${twice.length} keys performed other than once`);
  }
  const audits = await auditRuns(await storage.database());
  const auditProblems = audits.flatMap((a) => a.problems.filter((p) => !p.startsWith('journal:')).map((p) => `${a.runId}: ${p}`));
  problems.push(...auditProblems.slice(0, 20));
  const waited = await admin<{ n: number }[]>`select count(*)::int as n from gnl.run_events where type = 'run-suspend'`;
  if ((waited[0]?.n ?? 0) > 0) problems.push(`${waited[0]?.n} suspensions (a run waited for a person)`);

  const steady = samples.filter((s) => s.atS >= totalS * 0.25);
  const rss = steady.flatMap((s) => s.rssMb);
  const conns = steady.map((s) => s.connections).filter((c) => c >= 0);
  const summary = {
    date: new Date().toISOString(),
    load: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
    runs: RUNS,
    workers: WORKERS,
    seconds: totalS,
    runsPerSecond: Math.round((RUNS / totalS) * 10) / 10,
    latencyMs: LATENCY_MS,
    kills: faults.kills,
    restarts: faults.restarts,
    // Claims of a run whose lease another worker had held (a killed worker's runs, taken over after their lease).
    takeovers: [...workers, ...retired].reduce((n, w) => n + w.events('claimed').filter((l) => l.previousOwner && l.previousOwner !== l.worker).length, 0),
    checksAsked: stats.keyLookups,
    statuses: Object.fromEntries(statuses.map((s) => [s.status, s.n])),
    workerRssMb: { min: Math.min(...rss), max: Math.max(...rss), first: steady[0]?.rssMb, last: steady.at(-1)?.rssMb },
    workerConnections: { min: Math.min(...conns), max: Math.max(...conns) },
    audit: { runs: audits.length, problems: auditProblems.length },
    problems,
  };
  console.log(JSON.stringify(summary, null, 2));
  if (problems.length > 0) {
    console.error(`bench:soak: ${problems.length} problems`);
    process.exitCode = 1;
  } else log('sound: every run completed once, no person needed, the audit clean');
} finally {
  await Promise.all(workers.map((w) => w.end()));
  await admin.end({ timeout: 1 }).catch(() => undefined);
  await storage.close().catch(() => undefined);
  await service.close();
  await cluster.destroy();
}

function rssMb(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return Math.round(Number(line?.split(/\s+/)[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}
