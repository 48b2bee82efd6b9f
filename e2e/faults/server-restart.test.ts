/**
 * The database server goes away mid-run, for real: a private Postgres cluster of the test's own
 * (private-cluster.ts; never the shared server) is restarted, or stopped and started again, while
 * worker processes are inside a side effect (the sendEmail requests held at a proxy). The workers do not
 * crash; the invocations the server lost stop with a clear error and are given back; the workers carry
 * on when the server is back, and every run completes with each ticket and email performed once by the
 * outside service's own counter, seq contiguous and one writer per invocation (journal-audit.ts).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgentRegistry } from '@/lib/agents';
import { supportAgent } from '@/agents/support';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { PostgresStorage } from '@/lib/durable/storage';
import { startRun } from '@/lib/executor';
import { type GateProxy, startGateProxy } from '@/tests/support/gate-proxy';
import { expectOnce, QUESTION, quiet, until } from './fault-checks';
import { FaultWorker, faultTotals, namedUrl, type WorkerLine } from './fault-worker';
import { auditRuns, installAudit } from './journal-audit';
import { clusterTotals, type PrivateCluster, postgresBinaries, startPrivateCluster } from './private-cluster';

const RUNS = 4;
const suite = postgresBinaries() ? describe : describe.skip;

suite(`database server restarted mid-run (private cluster)${postgresBinaries() ? '' : ' (skipped: no PostgreSQL server binaries)'}`, () => {
  let cluster: PrivateCluster;
  let service: OutsideService;
  let proxy: GateProxy;
  let storage: PostgresStorage;
  let workers: FaultWorker[] = [];

  beforeEach(async () => {
    cluster = await startPrivateCluster();
    service = await startOutsideService();
    proxy = await startGateProxy(service.url);
    storage = new PostgresStorage({ connectionString: namedUrl(cluster.url, 'faults-test') });
    await installAudit(await storage.database());
  });
  afterEach(async () => {
    await Promise.all(workers.map((w) => w.end()));
    workers = [];
    await storage.close();
    await proxy.close();
    await service.close();
    await cluster.destroy();
  });
  afterAll(() => {
    console.log(
      `[faults] server: ${clusterTotals.clusters} private clusters, ${clusterTotals.restarts} restarts, ${clusterTotals.stops} stops; ` +
        `${faultTotals.processes} worker processes so far`,
    );
  });

  async function inFlight() {
    workers = ['a', 'b'].map(
      (name) =>
        new FaultWorker({
          name: `${name}-${process.pid}`,
          databaseUrl: cluster.url,
          serviceUrl: proxy.url,
          concurrency: 4,
          leaseMs: 3_000,
          heartbeatMs: 500,
          pollMs: 100,
        }),
    );
    await Promise.all(workers.map((w) => w.waitFor((l) => l.type === 'started')));
    proxy.hold((method, path) => method === 'POST' && path === '/emails');
    const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
    const runs: string[] = [];
    for (let n = 0; n < RUNS; n++) runs.push((await startRun({ storage, registry, agent: 'support', input: QUESTION(n) })).runId);
    await proxy.waitForHeld(RUNS); // every run has journaled its email's start and is waiting for the answer
    return runs;
  }

  /**
   * Every guarantee, and that the fault was met: the invocation each run was in at the outage (inside
   * sendEmail) ended given back, its hold lost or its journal failing. It cannot have gone on: a restart or
   * a stop ends every server session, so the advisory lock its appends are fenced on (event-rows.ts) is
   * gone. Waits for the workers to report the end of every invocation (an event, not a guessed pause).
   */
  async function judge(runs: string[]) {
    await quiet(storage);
    for (const runId of runs) expect((await storage.runs.getRun(runId))?.status).toBe('completed');
    expectOnce(service.stats(), { tickets: RUNS, refunds: 0, emails: RUNS });
    expect(service.stats().emails.requests).toBe(RUNS); // a check by key settled each interrupted email: none was sent again
    const audits = await auditRuns(await storage.database());
    expect(audits).toHaveLength(RUNS);
    expect(audits.flatMap((a) => a.problems)).toEqual([]);
    const ends = await until('every invocation reported its end', () => {
      if (workers.some((w) => w.activeRuns().length > 0)) return undefined;
      const byRun = runs.map((runId) => workers.flatMap((w) => w.events('finished', runId)).sort((a, b) => a.t.localeCompare(b.t)));
      return byRun.every((lines) => lines.at(-1)?.outcome === 'completed') ? byRun : undefined;
    });
    const interrupted = ends.map((lines) => lines[0] as WorkerLine);
    expect(
      interrupted.map((l) => `${l.kind} ${l.outcome === 'hold-lost' || l.outcome === 'journal-error' ? 'hold-lost or journal-error' : l.outcome}`),
      'the invocation of each run that the outage met',
    ).toEqual(runs.map(() => 'given-back hold-lost or journal-error'));
    const given = workers.flatMap((w) => w.events('finished').filter((l) => l.kind === 'given-back'));
    for (const w of workers) expect(w.alive, `worker ${w.options.name} still running. stderr: ${w.stderr.slice(-2000)}`).toBe(true);
    for (const w of workers) expect((await w.stop()).code).toBe(0);
    return given;
  }

  it('restarted (pg_ctl restart -m fast) while four runs wait inside sendEmail: the workers ride through, each run completes, each email once', async () => {
    const runs = await inFlight();
    await cluster.restart();
    proxy.release();
    const given = await judge(runs);
    const outcomes = [...new Set(given.map((l) => `${l.outcome}: ${String(l.error).split('"')[0]}`))];
    console.log(`[faults] restart: ${given.length} invocations given back: ${outcomes.join(' | ')}`);
    expect(given.every((l) => l.outcome === 'hold-lost' || l.outcome === 'journal-error')).toBe(true);
  }, 150_000);

  it('stopped while four runs wait inside sendEmail, their emails answered while it is down, started again: the same', async () => {
    const runs = await inFlight();
    const t0 = performance.now();
    await cluster.stop();
    proxy.release();
    // While the server is down each invocation's append fails: wait until every one was given back. Each
    // learns it within a second or so of its email's answer (the driver's reconnect wait is capped:
    // storage/reconnect-backoff.ts; it was 11 to 43 s with postgres.js's own, up to 20 s per connection).
    await until(
      'every interrupted invocation ended',
      () => {
        const n = workers.flatMap((w) => w.lines.filter((l) => l.type === 'finished')).length;
        return n >= RUNS ? n : undefined;
      },
      60_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${workers.map((w) => w.lines.map((l) => JSON.stringify(l)).join('\n')).join('\n')}`);
    });
    const errors = workers.flatMap((w) => w.events('error'));
    const down = Math.round(performance.now() - t0);
    await cluster.start();
    const t1 = performance.now();
    const given = await judge(runs);
    const recovered = Math.round(performance.now() - t1);
    const outcomes = [...new Set(given.map((l) => `${l.outcome}: ${String(l.error).split('"')[0]}`))];
    console.log(
      `[faults] stop/start: ${given.length} invocations given back (${outcomes.join(' | ')}); ${errors.length} error lines while down ` +
        `(${[...new Set(errors.map((l) => `${l.where}`.split(' ')[0]))].join(', ')}: ${String(errors[0]?.error).slice(0, 160)}); down ${down} ms, all completed ${recovered} ms after the start`,
    );
  }, 150_000);
});
