/**
 * `npm run worker` for real: worker child processes sharing one Postgres (a fresh database per test),
 * the demo support agent as the workload, its outside service (in this process) as the judge. Runs are
 * started with startRun from this process; workers claim them. Workers are killed (SIGKILL), paused
 * (SIGSTOP/SIGCONT) and stopped (SIGTERM) for real. Short leases; waits are bounded, never timed.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentRegistry } from '@/lib/agents';
import { supportAgent } from '@/agents/support';
import { type CrashPoint, CrashPointStore, type OutsideService, type ServiceStats, startOutsideService } from '@/lib/demo';
import type { RecordedEvent } from '@/lib/durable';
import { PostgresStorage } from '@/lib/durable/storage';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { type GateProxy, startGateProxy } from '@/tests/support/gate-proxy';
import { DATABASE_URL } from '@/tests/support/journals';
import { startWorker, type WorkerOptions, type WorkerProcess, workerTotals } from '@/tests/support/worker-process';
import { cancelRun, queueEntry, resumeRun, startRun } from './index';

const QUESTION = (n: number) => ({ prompt: `Customer c_7 has question ${n} about order o_21` });
const REFUND = (n: number) => ({ prompt: `Customer c_42 wants a refund of ${(n % 40) + 1} for order o_17` });
const totals = { runs: 0, workers: 0 };

const suite = DATABASE_URL ? describe : describe.skip;

suite(`workers sharing one Postgres${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  let service: OutsideService;
  let storage: PostgresStorage;
  let databaseUrl: string;
  let drop: () => Promise<void>;
  let workers: WorkerProcess[] = [];
  let proxies: GateProxy[] = [];
  const registry = () => createAgentRegistry([supportAgent({ serviceUrl: service.url })]);

  beforeEach(async () => {
    service = await startOutsideService();
    const database = await createFreshDatabase(DATABASE_URL as string);
    databaseUrl = database.url;
    drop = database.drop;
    storage = new PostgresStorage({ connectionString: databaseUrl });
    await storage.database();
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.end()));
    workers = [];
    await Promise.all(proxies.map((p) => p.close()));
    proxies = [];
    await storage.close();
    await service.close();
    await drop();
  });
  afterAll(() => {
    console.log(
      `[workers] totals: ${totals.runs} runs, ${workerTotals.started} worker processes, ${workerTotals.sigkill} SIGKILL from the test (plus crash points), ` +
        `${workerTotals.sigstop} SIGSTOP, ${workerTotals.sigterm} SIGTERM`,
    );
  });

  const worker = (options: Partial<WorkerOptions> = {}) => {
    const w = startWorker({ databaseUrl, serviceUrl: service.url, pollMs: 100, ...options });
    workers.push(w);
    totals.workers += 1;
    return w;
  };
  /** With a crash point: recorded first in the demo's table, which the workers' hook reads (worker-main.ts). */
  const start = async (input: { prompt: string }, crashAt?: CrashPoint) => {
    totals.runs += 1;
    const runId = `support:${randomUUID()}`;
    if (crashAt) await new CrashPointStore(storage).arm(runId, crashAt);
    return startRun({ storage, registry: registry(), agent: 'support', runId, input });
  };
  const gate = async () => {
    const proxy = await startGateProxy(service.url);
    proxies.push(proxy);
    return proxy;
  };

  /** Waits (bounded) until no run is runnable or leased. */
  const quiet = async (timeoutMs = 240_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const db = await storage.database();
      const rows = (await db.execute(sql`select count(*)::int as n from gnl.run_queue where runnable or lease_owner is not null`)) as unknown as {
        n: number;
      }[];
      if (rows[0]?.n === 0) return;
      if (Date.now() > deadline) throw new Error(`${rows[0]?.n} runs still runnable or leased after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const settledAs = async (runId: string, outcomes: string[], timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const entry = await queueEntry(runId, { storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && outcomes.includes(entry.outcome ?? '')) return entry;
      if (Date.now() > deadline) throw new Error(`run ${runId} did not settle as ${outcomes}: ${JSON.stringify(entry)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  // Runs enough for every slot of every worker to be claimed many times over (4 workers × concurrency 4 = 16);
  // a quarter wait for an approval and are resumed, so a run is claimed twice.
  const RUNS = 120;

  async function poolOf(workerCount: number) {
    const pool = Array.from({ length: workerCount }, () => worker({ concurrency: 4, leaseMs: 20_000 }));
    await Promise.all(pool.map((w) => w.waitFor((l) => l.type === 'started')));
    const started = performance.now();
    const runs = [];
    for (let n = 0; n < RUNS; n++) runs.push(await start(n % 4 === 3 ? REFUND(n) : QUESTION(n)));
    await quiet();
    // The refund runs wait for a person: approve each, resume it, and let the pool finish them.
    const refunds = [];
    for (const { runId } of runs) {
      const run = await storage.runs.getRun(runId);
      if (run?.status !== 'waiting-approval') continue;
      refunds.push(runId);
      await storage.runs.approve({ runId, toolCallId: run.pending[0]?.toolCallId as string, by: 'ops@example.com' });
      await resumeRun(runId, { storage, by: 'workers-test', reason: 'approved by the test' });
    }
    await quiet();
    const ms = Math.round(performance.now() - started);

    const stats = service.stats();
    for (const { runId } of runs) {
      const events = await storage.runs.events(runId);
      const entry = await queueEntry(runId, { storage });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'run-complete')).toHaveLength(1);
      expect(invocationsOf(events)).toBe(entry?.claims);
    }
    expect(refunds).toHaveLength(RUNS / 4);
    expectOnce(stats, { tickets: RUNS, refunds: RUNS / 4, emails: RUNS });
    const claims = pool.map((w) => w.events('claimed').length);
    expect(claims.reduce((a, b) => a + b, 0)).toBe(RUNS + RUNS / 4);
    expect(pool.flatMap((w) => [...w.events('took-over'), ...w.events('lease-lost')])).toEqual([]);
    expectNoOverlap(pool);
    for (const kind of ['tickets', 'refunds', 'emails'] as const) expect(stats[kind].requests, `${kind} requests`).toBe(stats[kind].performed);
    console.log(
      `[workers] ${workerCount} workers × concurrency 4, ${RUNS} runs (${RUNS / 4} with an approval, resumed): ${RUNS + RUNS / 4} invocations, claims per worker ${claims.join(' / ')}; ` +
        `tickets ${stats.tickets.performed}, refunds ${stats.refunds.performed}, emails ${stats.emails.performed}, each key performed once, no repeated request; ${ms} ms`,
    );
    for (const w of pool) w.signal('SIGTERM');
    for (const w of pool) expect((await w.exited).code).toBe(0);
  }

  it(`two workers, ${RUNS} runs: each run completes once, never in two places at once, each side effect once by the service`, async () => {
    await poolOf(2);
  }, 300_000);

  it(`four workers, ${RUNS} runs: the same`, async () => {
    await poolOf(4);
  }, 300_000);

  it('a worker that SIGKILLs itself right after the email was sent: another claims the run only after the lease expired, check settles it, nothing is sent twice', async () => {
    const a = worker({ concurrency: 1, leaseMs: 2_000 });
    const { runId } = await start(QUESTION(1), 'after-email-sent');
    expect((await a.exited).signal).toBe('SIGKILL');
    const left = await queueEntry(runId, { storage });
    const b = worker({ concurrency: 1, leaseMs: 2_000 });
    const claimed = await b.waitFor((l) => l.type === 'claimed' && l.runId === runId);
    expect(new Date(claimed.claimedAt as string).getTime()).toBeGreaterThanOrEqual(new Date(left?.leaseExpiresAt as Date).getTime());
    await settledAs(runId, ['completed']);
    expect(service.stats().emails).toMatchObject({ requests: 1, performed: 1 });
    expect(service.stats().keyLookups).toBe(1);
    const end = (await storage.runs.events(runId)).find((e) => e.type === 'tool-call-end' && e.toolName === 'sendEmail');
    expect(end).toMatchObject({ source: 'check' });
  }, 120_000);

  it('the same kill without a check: the email in flight at the kill is blocked, not sent again', async () => {
    const env = { GNL_DEMO_CHECKS: '0' };
    const a = worker({ concurrency: 1, leaseMs: 2_000, env });
    const { runId } = await start(QUESTION(2), 'after-email-sent');
    expect((await a.exited).signal).toBe('SIGKILL');
    worker({ concurrency: 1, leaseMs: 2_000, env });
    const entry = await settledAs(runId, ['blocked']);
    expect(entry.error).toContain('SideEffectRetryBlockedError');
    expect(await storage.runs.getRun(runId)).toMatchObject({ status: 'blocked', pending: [{ kind: 'side-effect', toolName: 'sendEmail' }] });
    expect(service.stats().emails).toMatchObject({ requests: 1, performed: 1 });
  }, 120_000);

  it('a worker SIGKILLed from outside while four runs wait inside createTicket: another finishes them after the lease expired, one ticket each', async () => {
    const proxy = await gate();
    proxy.hold((method, path) => method === 'POST' && path === '/tickets');
    const a = worker({ concurrency: 4, leaseMs: 2_000, serviceUrl: proxy.url });
    const runs = [];
    for (let n = 0; n < 4; n++) runs.push(await start(QUESTION(10 + n)));
    await proxy.waitForHeld(4);
    a.signal('SIGKILL');
    await a.exited;
    proxy.release(); // the killed worker's requests had left it: the service now performs them
    worker({ concurrency: 4, leaseMs: 2_000 });
    for (const { runId } of runs) await settledAs(runId, ['completed']);
    expectOnce(service.stats(), { tickets: 4, refunds: 0, emails: 4 });
    expect(service.stats().tickets.deduplicated).toBe(4); // the retries under the same keys
  }, 120_000);

  it('a worker paused (SIGSTOP) past its lease inside sendEmail: another takes the run over; resumed (SIGCONT), its next append is refused and it gives the run up', async () => {
    const proxy = await gate();
    proxy.hold((method, path) => method === 'POST' && path === '/emails');
    const a = worker({ concurrency: 1, leaseMs: 1_500, heartbeatMs: 300, serviceUrl: proxy.url });
    const { runId } = await start(QUESTION(20));
    await proxy.waitForHeld(1);
    a.signal('SIGSTOP');
    const b = worker({ concurrency: 1, leaseMs: 1_500, heartbeatMs: 300 });
    const takeover = await b.waitFor((l) => l.type === 'took-over' && l.runId === runId);
    expect(takeover.terminatedPids).toHaveLength(1);
    await settledAs(runId, ['completed']);
    proxy.release(); // a's request reaches the service now: a repeat under the same key
    a.signal('SIGCONT');
    const gaveUp = await a.waitFor((l) => l.type === 'finished' && l.runId === runId);
    expect(gaveUp).toMatchObject({ kind: 'given-back', released: false });
    expect(['hold-lost', 'lease-lost']).toContain(gaveUp.outcome);
    console.log(`[workers] SIGSTOP: the paused worker, resumed, ended its invocation as ${gaveUp.outcome}: ${gaveUp.error}`);
    expect(service.stats().emails).toMatchObject({ requests: 2, performed: 1, deduplicated: 1 });
    const events = await storage.runs.events(runId);
    expect(events.filter((e) => e.type === 'tool-call-end' && e.toolName === 'sendEmail')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'run-complete')).toHaveLength(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    // The paused worker lives on: alone again, it executes a new run (its lock session reconnected), and stops cleanly.
    b.signal('SIGTERM');
    expect((await b.exited).code).toBe(0);
    const next = await start(QUESTION(21));
    await a.waitFor((l) => l.type === 'finished' && l.runId === next.runId && l.outcome === 'completed');
    a.signal('SIGTERM');
    expect((await a.exited).code).toBe(0);
  }, 120_000);

  it('cancelRun while a worker executes the run (inside createTicket): it stops at the next step boundary and never sends the email', async () => {
    const proxy = await gate();
    proxy.hold((method, path) => method === 'POST' && path === '/tickets');
    const a = worker({ concurrency: 1, leaseMs: 5_000, serviceUrl: proxy.url });
    const { runId } = await start(QUESTION(40));
    await proxy.waitForHeld(1);
    await cancelRun(runId, { storage, by: 'ops@example.com', reason: 'duplicate request' });
    proxy.release();
    const finished = await a.waitFor((l) => l.type === 'finished' && l.runId === runId);
    expect(finished).toMatchObject({ kind: 'settled', outcome: 'canceled' });
    expect(await storage.runs.getRun(runId)).toMatchObject({ status: 'canceled' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(service.stats().tickets.performed).toBe(1); // in flight when canceled: it completed
    expect(service.stats().emails.requests).toBe(0);
    const events = await storage.runs.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  }, 120_000);

  it('SIGTERM: the worker stops its runs at the next step boundary, gives back those stuck in a tool after the grace period, exits; another resumes them all', async () => {
    const proxy = await gate();
    proxy.hold((method, path) => method === 'GET' && path.startsWith('/customers/'));
    const a = worker({ concurrency: 4, leaseMs: 30_000, graceMs: 1_000, serviceUrl: proxy.url });
    const runs = [];
    for (let n = 0; n < 6; n++) runs.push(await start(QUESTION(30 + n)));
    await proxy.waitForHeld(4);
    const stopping = performance.now();
    a.signal('SIGTERM');
    await a.waitFor((l) => l.type === 'stopping');
    proxy.release(2); // two lookups answer: those runs reach a step boundary and stop there
    const exit = await a.exited;
    const exitMs = Math.round(performance.now() - stopping);
    expect(exit.code).toBe(0);
    const finished = a.events('finished');
    expect(finished.filter((l) => l.outcome === 'stopping')).toHaveLength(2);
    expect(a.events('stopped')[0]?.givenBack).toHaveLength(2); // the two still inside lookupCustomer
    const b = worker({ concurrency: 4, leaseMs: 30_000 });
    for (const { runId } of runs) await settledAs(runId, ['completed']);
    proxy.release();
    expectOnce(service.stats(), { tickets: 6, refunds: 0, emails: 6 });
    const failedAtBoundary = await Promise.all(runs.map(async ({ runId }) => (await storage.runs.events(runId)).some((e) => isStopped(e))));
    expect(failedAtBoundary.filter(Boolean)).toHaveLength(2);
    expect(b.events('claimed')).toHaveLength(6);
    console.log(`[workers] SIGTERM: 4 runs in flight, 2 stopped at a step boundary, 2 given back after the 1 s grace; the worker exited in ${exitMs} ms`);
  }, 120_000);
});

describe('npm run worker without Postgres', () => {
  it('exits non-zero, saying that workers need Postgres', async () => {
    const w = startWorker({ serviceUrl: 'http://127.0.0.1:1' });
    const exit = await w.exited;
    expect(exit.code).toBe(2);
    expect(w.stderr).toContain('Workers need Postgres: set DATABASE_URL');
  }, 60_000);
});

/** Invocations that wrote to the run: each begins with run-resume and ends with a terminal event before the next begins; operators' events fall between them. */
function invocationsOf(events: RecordedEvent[]): number {
  let open = false;
  let count = 0;
  for (const event of events) {
    if (event.type === 'run-resume') {
      expect(open, `run-resume at seq ${event.seq} inside an open invocation`).toBe(false);
      open = true;
      count += 1;
    } else if (event.type === 'run-complete' || event.type === 'run-suspend' || event.type === 'run-fail') {
      expect(open, `${event.type} at seq ${event.seq} outside an invocation`).toBe(true);
      open = false;
    } else if (event.type !== 'run-start' && event.type !== 'tool-approval-response' && event.type !== 'run-resume-request') {
      // Operators' events (a decision, who asked for the resume) land between invocations; everything else inside one.
      expect(open, `${event.type} at seq ${event.seq} outside an invocation`).toBe(true);
    }
  }
  return count;
}

/** Per run, the workers' invocations (claimed → finished, from their logs) never overlap in time. */
function expectNoOverlap(pool: WorkerProcess[]) {
  const spans = new Map<string, { from: number; to: number; pid: number }[]>();
  for (const w of pool) {
    const open = new Map<string, number>();
    for (const line of w.lines) {
      if (!line.runId) continue;
      if (line.type === 'claimed') open.set(line.runId, Date.parse(line.t));
      if (line.type === 'finished') {
        const list = spans.get(line.runId) ?? [];
        list.push({ from: open.get(line.runId) as number, to: Date.parse(line.t), pid: w.pid });
        spans.set(line.runId, list);
      }
    }
  }
  for (const [runId, list] of spans) {
    list.sort((a, b) => a.from - b.from);
    for (let i = 1; i < list.length; i++) expect(list[i - 1]?.to, `run ${runId}: two invocations at once`).toBeLessThanOrEqual(list[i]?.from as number);
  }
}

function isStopped(event: RecordedEvent): boolean {
  return event.type === 'run-fail' && event.error.name === 'InvocationStoppedError';
}

/** Each kind performed exactly `expected` times, every idempotency key performed once. */
function expectOnce(stats: ServiceStats, expected: { tickets: number; refunds: number; emails: number }) {
  for (const kind of ['tickets', 'refunds', 'emails'] as const) {
    expect(stats[kind].performed, kind).toBe(expected[kind]);
    expect(
      Object.values(stats[kind].byKey).filter((k) => k.performed !== 1),
      `${kind} keys performed other than once`,
    ).toEqual([]);
    expect(Object.keys(stats[kind].byKey)).toHaveLength(expected[kind]);
  }
}
