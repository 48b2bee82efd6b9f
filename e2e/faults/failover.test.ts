/**
 * The primary dies mid-refund (issue 33): a pg_auto_failover formation of the test's own
 * (failover-formation.ts: monitor, primary, synchronous secondary, run as the postgres user), two real
 * worker processes on its multi-host connection string (`target_session_attrs=primary`), five runs
 * inside their side effects (a refund approved by a person, four emails; the requests held at a proxy),
 * and then the primary's machine dies: SIGKILL to its postmaster and its keeper. The side effects are
 * answered while no primary exists; the formation promotes the secondary.
 *
 * Judged by the outside service's own counters and the journal's audit on the new primary: every run
 * completes, no person needed (the processes saw their tools finish and record it there: retakeToRecord),
 * each refund, ticket and email performed once; every event acknowledged before the kill (read back from
 * the old primary while the side effects were held: each writer had its tool's start acknowledged before
 * its request left) is on the new primary unchanged, the person's approval among them; the workers say in
 * their logs that the journal went away and came back, and their health is up again.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { createAgentRegistry } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import type { RecordedEvent } from '@/lib/durable';
import { PostgresStorage } from '@/lib/durable/storage';
import { resumeRun, startRun } from '@/lib/executor';
import { type GateProxy, startGateProxy } from '@/tests/support/gate-proxy';
import { type Formation, pgAutoctl, startFormation } from './failover-formation';
import { expectOnce, QUESTION, quiet, until } from './fault-checks';
import { FaultWorker, faultTotals, namedUrl } from './fault-worker';
import { auditRuns, installAudit } from './journal-audit';

const EMAILS = 4;
const AGENT = 'support-unchecked'; // no checks: an outcome not recorded would need a person
const suite = pgAutoctl() ? describe : describe.skip;

suite(`the primary dies mid-refund: pg_auto_failover promotes the secondary${pgAutoctl() ? '' : ' (skipped: pg_auto_failover is not installed)'}`, () => {
  let formation: Formation;
  let service: OutsideService;
  let proxy: GateProxy;
  let storage: PostgresStorage;
  let workers: FaultWorker[] = [];

  beforeAll(async () => {
    const t0 = performance.now();
    formation = await startFormation();
    console.log(`[failover] formation up in ${Math.round(performance.now() - t0)} ms: ${JSON.stringify(await formation.states())}`);
    service = await startOutsideService();
    proxy = await startGateProxy(service.url);
    storage = new PostgresStorage({ connectionString: namedUrl(formation.url, 'faults-test') });
    await installAudit(await storage.database());
  }, 120_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.end()));
    await storage?.close().catch(() => undefined);
    await proxy?.close();
    await service?.close();
    await formation?.destroy();
  });

  it('a storage on the secondary alone is refused, naming target_session_attrs; the Studio lists runs from the secondary as its read replica (GNL_READ_DATABASE_URL)', async () => {
    const secondary = formation.nodes.find((n) => n.name === 'b') as (typeof formation.nodes)[number];
    const onStandby = new PostgresStorage({ connectionString: secondary.url });
    await expect(onStandby.database()).rejects.toThrow(/takes no writes.*target_session_attrs=primary/s);
    await onStandby.close();

    const runId = (
      await startRun({ storage, registry: createAgentRegistry([supportAgent({ serviceUrl: service.url })]), agent: 'support', input: QUESTION(99) })
    ).runId;
    await storage.runs.cancel({ runId, by: 'failover-test', reason: 'only listed' }); // no worker runs it
    const saved = { url: process.env.DATABASE_URL, read: process.env.GNL_READ_DATABASE_URL };
    const key = Symbol.for('gnl.storage.fromEnv');
    const global = globalThis as Record<symbol, unknown>;
    process.env.DATABASE_URL = formation.url;
    process.env.GNL_READ_DATABASE_URL = secondary.url;
    global[key] = undefined;
    try {
      const { listRuns } = await import('@/lib/studio/reads/runs');
      const { storageFromEnv } = await import('@/lib/durable/storage');
      const studio = storageFromEnv() as PostgresStorage;
      // Where the listing's reads go: the replica's own port, in recovery.
      const [where] = (await studio.readReplica((db) => db.execute(sql`select inet_server_port() as port, pg_is_in_recovery() as standby`))) as unknown as {
        port: number;
        standby: boolean;
      }[];
      expect(where).toEqual({ port: secondary.port, standby: true });
      const listed = await until('the replica has replayed the run', async () => {
        const page = await listRuns({ limit: 50 });
        return 'runs' in page && page.runs.some((r) => r.runId === runId) ? page : undefined;
      });
      expect('runs' in listed && listed.runs.find((r) => r.runId === runId)?.status).toBeDefined();
      expect(studio.replicaCounts?.primary, 'no read fell back to the primary').toBe(0);
      expect(studio.replicaCounts?.replica).toBeGreaterThan(1);
      await studio.close();
    } finally {
      global[key] = undefined;
      process.env.DATABASE_URL = saved.url;
      if (saved.read === undefined) delete process.env.GNL_READ_DATABASE_URL;
      else process.env.GNL_READ_DATABASE_URL = saved.read;
    }
  });

  it('five runs inside a refund or an email when the primary is SIGKILLed: each completes on the new primary, once, no person needed, nothing acknowledged lost', async () => {
    workers = ['a', 'b'].map(
      (name) =>
        new FaultWorker({
          name: `${name}-${process.pid}`,
          databaseUrl: formation.url,
          serviceUrl: proxy.url,
          concurrency: 4,
          // Far longer than the failover (6-8 s here, more on a loaded machine) and as long as the window to
          // record an outcome (30 s): no worker takes another's run while the primary is away.
          leaseMs: 30_000,
          heartbeatMs: 500,
          pollMs: 100,
          health: true,
        }),
    );
    await Promise.all(workers.map((w) => w.waitFor((l) => l.type === 'started')));
    const health = (await workers[0]?.waitFor((l) => l.type === 'health'))?.url as string;
    const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url, name: AGENT, checks: false })]);

    // A refund waits for a person, who approves it; the run is resumed; its refund and four emails are held.
    const refund = (await startRun({ storage, registry, agent: AGENT, input: { prompt: 'Customer c_42 wants a refund of 40 for order o_17' } })).runId;
    const waiting = await until('the refund waits for a person', async () => {
      const run = await storage.runs.getRun(refund);
      return run?.status === 'waiting-approval' ? run : undefined;
    });
    proxy.hold((method, path) => method === 'POST' && (path === '/emails' || path === '/refunds'));
    await storage.runs.approve({ runId: refund, toolCallId: waiting.pending[0]?.toolCallId as string, by: 'ops@example.com' });
    await resumeRun(refund, { storage, by: 'failover-test', reason: 'approved' });
    const runs = [refund];
    for (let n = 0; n < EMAILS; n++) runs.push((await startRun({ storage, registry, agent: AGENT, input: QUESTION(n) })).runId);
    await proxy.waitForHeld(EMAILS + 1);

    // Acknowledged: every writer had its side effect's start acknowledged before its request left it.
    const primary = await formation.primary();
    expect(primary?.name).toBe('a');
    const acknowledged = new Map<string, string[]>();
    for (const runId of runs) acknowledged.set(runId, (await storage.runs.events(runId)).map(fingerprint));
    expect(
      acknowledged.get(refund)?.some((e) => e.startsWith('tool-approval-response')),
      'the approval is among them',
    ).toBe(true);

    formation.kill('a');
    faultTotals.sigkill += 1;
    proxy.release(); // answered while no primary exists
    const healthSeen = new Set<string>();
    const watchHealth = (async () => {
      for (;;) {
        const answer = await fetch(health)
          .then((r) => r.json() as Promise<{ status: string; journal: string }>)
          .catch(() => ({ status: 'no answer', journal: '' }));
        healthSeen.add(`${answer.status}:${answer.journal}`);
        if (answer.status === 'up') return;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();

    const promotedMs = await formation.waitForPrimary('b');
    await quiet(storage);
    await watchHealth;
    for (const runId of runs) expect((await storage.runs.getRun(runId))?.status, runId).toBe('completed');
    expectOnce(service.stats(), { tickets: runs.length, refunds: 1, emails: EMAILS + 1 });
    expect(service.records('refunds')).toMatchObject([{ amount: 40, orderId: 'o_17' }]);
    expect(service.stats().keyLookups, 'no check was needed: each outcome was recorded by the process that saw it').toBe(0);

    // Nothing acknowledged was lost: the new primary has each of those events, unchanged, at its seq.
    for (const runId of runs) {
      const now = (await storage.runs.events(runId)).map(fingerprint);
      const before = acknowledged.get(runId) ?? [];
      expect(now.slice(0, before.length), `run ${runId}: the acknowledged events`).toEqual(before);
      const statuses = (await storage.runs.events(runId)).flatMap((e) => (e.type === 'run-suspend' ? [e.status] : []));
      expect(
        statuses.filter((s) => s !== 'waiting-approval'),
        `run ${runId} never waited for a person after the kill`,
      ).toEqual([]);
    }
    const audits = (await auditRuns(await storage.database())).filter((a) => runs.includes(a.runId));
    expect(audits.flatMap((a) => a.problems)).toEqual([]);
    expect(audits).toHaveLength(runs.length);

    // The workers lived through it, said the journal went away and came back, and are healthy again.
    for (const w of workers) {
      expect(w.alive, `worker ${w.options.name}: ${w.stderr.slice(-2000)}`).toBe(true);
      expect(w.events('journal-unreachable').length, `worker ${w.options.name} said the journal went away`).toBeGreaterThan(0);
      const back = w.events('journal-reachable');
      expect(back.length, `worker ${w.options.name} said the journal came back`).toBeGreaterThan(0);
    }
    expect(
      [...healthSeen].some((h) => h.startsWith('down')),
      `health went down meanwhile: ${[...healthSeen]}`,
    ).toBe(true);
    expect((await fetch(health).then((r) => r.json())) as unknown).toEqual({ status: 'up', journal: 'reachable' });
    const outageMs = workers.flatMap((w) => w.events('journal-reachable').map((l) => Number(l.afterMs)));
    for (const w of workers) expect((await w.stop()).code).toBe(0);
    console.log(
      `[failover] primary SIGKILLed with ${runs.length} side effects in flight: secondary writable ${promotedMs} ms later; ` +
        `workers' journal away ${Math.min(...outageMs)}-${Math.max(...outageMs)} ms; health seen ${[...healthSeen].join(', ')}; ` +
        `every run completed, none needed a person, each side effect once`,
    );
  }, 180_000);
});

/** An event as it must survive: its seq, type and a digest of everything else. */
function fingerprint(event: RecordedEvent): string {
  return `${event.type}#${event.seq}:${createHash('sha256').update(JSON.stringify(event)).digest('hex').slice(0, 16)}`;
}
