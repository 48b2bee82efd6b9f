/**
 * Retention on both real journals: ended runs past their agent's retention are dropped with every row
 * of theirs (counted with raw SQL in each table), one gnl.retention_log row each; runs that wait, failed,
 * ended recently, belong to an agent with a longer retention, or are leased or held are kept; batches are
 * bounded; the log and the journal still refuse every change outside a retention drop. Agent names and
 * run ids are unique per suite: the Postgres server is shared, so only this suite's rows are compared.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { createAgentRegistry, defineAgent } from '@/lib/agents';
import { defineWorkflow, type JournalEvent, RunRetiredError, runDurable } from '@/lib/durable';
import { z } from 'zod';
import type { Storage } from '@/lib/durable/storage';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { scriptedModel } from '@/tests/support/scripted-model';
import { Executor } from '../executor';
import { startRun } from '../start-run';
import { dropExpiredRuns, findExpiredRuns } from './retention';
import { retentionLog } from './retention-log';
import { retentionPolicy, retentionSettingsFromEnv } from './retention-policy';

const DAY = 86_400_000;
const pending = [{ kind: 'approval' as const, toolCallId: 'c', toolName: 't', input: {}, requestedAt: new Date().toISOString() }];
const complete: JournalEvent = { type: 'run-complete', text: 'done', finishReason: 'stop', steps: 0 };
const suspend: JournalEvent = { type: 'run-suspend', status: 'waiting-approval', pending };
const fail: JournalEvent = { type: 'run-fail', error: { name: 'Boom', message: 'no' } };

type Kind = 'completed' | 'canceled' | 'failed' | 'waiting';

async function rows<T>(storage: Storage, statement: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await (await storage.database()).execute(statement)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** Rows naming the run in every table that holds a run's data. */
async function rowsOf(storage: Storage, runId: string): Promise<Record<string, number>> {
  const [row] = await rows<Record<string, number | string>>(
    storage,
    sql`select (select count(*) from gnl.runs where run_id = ${runId}) as runs,
          (select count(*) from gnl.run_events where run_id = ${runId}) as events,
          (select count(*) from gnl.run_queue where run_id = ${runId}) as queue,
          (select count(*) from gnl.stream_chunks where run_id = ${runId}) as chunks,
          (select count(*) from gnl.notifications where run_id = ${runId}) as notifications,
          (select count(*) from gnl.demo_crash_points where run_id = ${runId}) as crash_points`,
  );
  return Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)]));
}

async function blobCount(storage: Storage, hash: string): Promise<number> {
  const [row] = await rows<{ n: number | string }>(storage, sql`select count(*) as n from gnl.payloads where hash = ${hash}`);
  return Number(row?.n);
}

describeEachJournal('retention', (target) => {
  const { journal, storage } = target.open();
  const tag = randomUUID().slice(0, 8);
  const agentA = `ret-a-${tag}`;
  const agentB = `ret-b-${tag}`;
  const agentC = `ret-c-${tag}`;
  // Ages are measured from `later`: runs made now ended 10 days before it.
  const later = new Date(Date.now() + 10 * DAY);
  const policy = {
    agents: [
      { agent: agentA, days: 7 },
      { agent: agentB, days: 30 },
    ],
  };

  /** A run of `agent` in the state `kind`, with a stream batch, a queue row, a crash point and (with `big`) a stored big value. */
  async function makeRun(agent: string, kind: Kind, options: { big?: string } = {}): Promise<string> {
    const runId = uniqueRunId(`ret-${tag}`);
    const hold = await journal.hold(runId);
    await hold.create({ prompt: options.big ?? 'p', modelId: 'm', provider: 'x', toolNames: [], agent });
    await hold.appendStream({ invocation: 'i1', batch: 0, chunks: [{ type: 'start' }], done: true });
    if (kind !== 'canceled') await hold.append([suspend]); // a notification outbox row
    if (kind === 'completed') await hold.append([{ type: 'run-resume', fromStatus: 'waiting-approval' }, complete]);
    if (kind === 'failed') await hold.append([{ type: 'run-resume', fromStatus: 'waiting-approval' }, fail]);
    await hold.release();
    if (kind === 'canceled') await journal.cancel({ runId, by: 'ops@example.com', reason: 'test' });
    await rows(storage, sql`insert into gnl.run_queue (run_id, agent, runnable) values (${runId}, ${agent}, false)`);
    await rows(storage, sql`insert into gnl.demo_crash_points (run_id, crash_at) values (${runId}, 'after-email-sent')`);
    return runId;
  }

  it('drops ended runs past their retention with every row of theirs and one log row each; keeps waiting, failed, recent and longer-kept runs', async () => {
    const completed = await makeRun(agentA, 'completed');
    const canceled = await makeRun(agentA, 'canceled');
    const waiting = await makeRun(agentA, 'waiting');
    const failed = await makeRun(agentA, 'failed');
    const longerKept = await makeRun(agentB, 'completed');
    const otherAgent = await makeRun(`ret-x-${tag}`, 'completed');
    expect(await rowsOf(storage, completed)).toEqual({ runs: 1, events: 4, queue: 1, chunks: 1, notifications: 1, crash_points: 1 });

    // Recent: measured from now, nothing of this suite is old enough.
    expect((await findExpiredRuns({ storage, policy })).runs.filter((r) => r.runId.includes(tag))).toEqual([]);

    const preview = await findExpiredRuns({ storage, policy, now: later });
    expect(preview.runs.map((r) => r.runId).sort()).toEqual([completed, canceled].sort());
    expect(await rowsOf(storage, completed)).toMatchObject({ runs: 1, events: 4 }); // finding drops nothing

    const batch = await dropExpiredRuns({ storage, policy, now: later, droppedBy: 'test-job' });
    expect(batch).toMatchObject({ selected: 2, skipped: [], more: false });
    expect(batch.dropped.map((r) => r.runId).sort()).toEqual([completed, canceled].sort());
    const none = { runs: 0, events: 0, queue: 0, chunks: 0, notifications: 0, crash_points: 0 };
    expect(await rowsOf(storage, completed)).toEqual(none);
    expect(await rowsOf(storage, canceled)).toEqual(none);
    for (const kept of [waiting, failed, longerKept, otherAgent]) expect((await rowsOf(storage, kept)).events).toBeGreaterThan(0);

    const log = await retentionLog({ storage, agent: agentA });
    expect(log).toHaveLength(2);
    expect(log.find((e) => e.runId === completed)).toMatchObject({
      agent: agentA,
      status: 'completed',
      eventCount: 4,
      policyDays: 7,
      droppedBy: 'test-job',
      blobBytes: 0,
      payloadBytes: expect.any(Number),
    });
    expect(log.find((e) => e.runId === canceled)).toMatchObject({ status: 'canceled', eventCount: 2 });

    // 40 days on, agent B's 30 days are past too; the waiting and the failed run are still kept.
    const after40 = await dropExpiredRuns({ storage, policy, now: new Date(Date.now() + 40 * DAY), droppedBy: 'test-job' });
    expect(after40.dropped.map((r) => r.runId)).toEqual([longerKept]);
    for (const kept of [waiting, failed]) expect((await rowsOf(storage, kept)).runs).toBe(1);
  });

  it('a job delivered again after its run was dropped meets a tombstone: RunRetiredError from runDurable and startRun, and its refund does not execute again', async () => {
    const runId = uniqueRunId(`ret-${tag}`);
    const first = refundAgent();
    const job = (agent: ReturnType<typeof refundAgent>) =>
      runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', agent: agentA });
    expect((await job(first)).status).toBe('completed');
    expect(first.ledger.total).toBe(1);
    const batch = await dropExpiredRuns({ storage, policy, now: later, droppedBy: 'test-job' });
    expect(batch.dropped.map((r) => r.runId)).toContain(runId);

    // The queue delivers the job again under its id: refused, naming when and why, nothing written, nothing executed.
    const again = refundAgent();
    const refused = await job(again).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(again.ledger.total).toBe(0);
    expect(RunRetiredError.isInstance(refused)).toBe(true);
    expect(refused).toMatchObject({ runId, endedAs: 'completed', droppedBy: 'test-job', droppedAt: expect.any(Date) });
    expect((refused as Error).message).toMatch(/start it under another runId/);
    expect(await rowsOf(storage, runId)).toMatchObject({ runs: 0, events: 0 });

    // Through the executor's startRun too; another id starts the job anew.
    const registry = createAgentRegistry([defineAgent({ name: agentA, model: again.scripted.model, tools: again.tools })]);
    await expect(startRun({ storage, registry, agent: agentA, runId, input: { prompt: 'Refund o_17' } })).rejects.toSatisfy(RunRetiredError.isInstance);
    expect(await rowsOf(storage, runId)).toMatchObject({ runs: 0, events: 0, queue: 0 });
    expect((await startRun({ storage, registry, agent: agentA, runId: `${runId}:again`, input: { prompt: 'Refund o_17' } })).created).toBe(true);
  });

  it('keeps a leased run, and (Postgres) a run whose hold a writer still has; drops them once let go', async () => {
    const leased = await makeRun(agentA, 'completed');
    await rows(storage, sql`update gnl.run_queue set lease_owner = 'w1', lease_expires_at = now() + interval '1 hour' where run_id = ${leased}`);
    const held = await makeRun(agentA, 'completed');
    const hold = target.name === 'postgres' ? await journal.hold(held) : undefined;
    try {
      const batch = await dropExpiredRuns({ storage, policy, now: later, droppedBy: 'test-job' });
      const mine = (ids: { runId: string }[]) => ids.filter((r) => r.runId === leased || r.runId === held);
      expect(mine(batch.skipped)).toEqual(
        target.name === 'postgres'
          ? expect.arrayContaining([
              { runId: leased, reason: 'leased' },
              { runId: held, reason: 'held' },
            ])
          : [{ runId: leased, reason: 'leased' }],
      );
      expect((await rowsOf(storage, leased)).runs).toBe(1);
      if (hold) expect((await rowsOf(storage, held)).runs).toBe(1);
    } finally {
      await hold?.release();
    }
    await rows(storage, sql`update gnl.run_queue set lease_owner = null, lease_expires_at = null where run_id = ${leased}`);
    const again = await dropExpiredRuns({ storage, policy, now: later, droppedBy: 'test-job' });
    // On PGlite a hold is in-process, invisible to SQL: the "held" run went in the first batch (no lease there).
    expect(again.dropped.map((r) => r.runId)).toEqual(expect.arrayContaining(target.name === 'postgres' ? [leased, held] : [leased]));
    expect((await rowsOf(storage, held)).runs).toBe(0);
    expect(await rowsOf(storage, leased)).toMatchObject({ runs: 0, events: 0, queue: 0 });
  });

  it('drops a stored big value with its run only when no other run names it', async () => {
    const shared = `shared ${randomBytes(40_000).toString('hex')}`; // 80 KB: stored apart
    const own = `own ${randomBytes(40_000).toString('hex')}`;
    const dropped = await makeRun(agentA, 'completed', { big: shared });
    const sharing = await makeRun(agentA, 'waiting', { big: shared });
    const alone = await makeRun(agentA, 'completed', { big: own });
    const hashes = async (runId: string) =>
      (await rows<{ h: string }>(storage, sql`select distinct unnest(blobs) as h from gnl.run_events where run_id = ${runId} and blobs is not null`)).map(
        (r) => r.h,
      );
    const [sharedHash] = await hashes(dropped);
    const [ownHash] = await hashes(alone);
    expect(sharedHash).toBeDefined();
    expect(await hashes(sharing)).toEqual([sharedHash]);

    const batch = await dropExpiredRuns({ storage, policy, now: later, droppedBy: 'test-job' });
    expect(batch.dropped.map((r) => r.runId)).toEqual(expect.arrayContaining([dropped, alone]));
    expect(await blobCount(storage, sharedHash as string)).toBe(1); // the waiting run still names it
    expect(await blobCount(storage, ownHash as string)).toBe(0);
    expect(batch.dropped.find((r) => r.runId === alone)?.blobBytes).toBeGreaterThan(80_000);
    expect(batch.dropped.find((r) => r.runId === dropped)?.blobBytes).toBe(0);
    expect((await journal.events(sharing))[0]).toMatchObject({ type: 'run-start', input: { prompt: shared } });
  });

  it('drops a bounded batch per call: 7 eligible runs with batches of 3 take 3 calls', async () => {
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(await makeRun(agentC, i % 2 ? 'canceled' : 'completed'));
    const cPolicy = { agents: [{ agent: agentC, days: 1 }] };
    const sizes: number[] = [];
    const mores: boolean[] = [];
    for (let call = 0; call < 4; call++) {
      const batch = await dropExpiredRuns({ storage, policy: cPolicy, now: later, batchSize: 3, droppedBy: 'test-job' });
      sizes.push(batch.dropped.length);
      mores.push(batch.more);
    }
    expect(sizes).toEqual([3, 3, 1, 0]);
    expect(mores).toEqual([true, true, false, false]);
    expect(new Set((await retentionLog({ storage, agent: agentC })).map((e) => e.runId))).toEqual(new Set(ids));
  });

  it('the log refuses UPDATE, DELETE and TRUNCATE; the journal still refuses a DELETE without the drop setting, or for another run', async () => {
    const kept = await makeRun(agentB, 'waiting', { big: `kept ${randomBytes(40_000).toString('hex')}` });
    const [{ h: hash } = { h: '' }] = await rows<{ h: string }>(
      storage,
      sql`select distinct unnest(blobs) as h from gnl.run_events where run_id = ${kept} and blobs is not null`,
    );
    const db = await storage.database();
    const refused = (statement: ReturnType<typeof sql>, settingRunId?: string) =>
      db
        .transaction(async (tx) => {
          if (settingRunId) await tx.execute(sql`select set_config('gnl.retention_drop', ${settingRunId}, true)`);
          await tx.execute(statement);
          throw new Error('not refused');
        })
        .then(
          () => 'committed',
          (error: unknown) => String((error as { cause?: Error }).cause?.message ?? (error as Error).message),
        );
    expect(await refused(sql`update gnl.retention_log set agent = 'x' where agent = ${agentA}`)).toMatch(/retention_log is append-only: UPDATE/);
    expect(await refused(sql`delete from gnl.retention_log where agent = ${agentA}`)).toMatch(/retention_log is append-only: DELETE/);
    expect(await refused(sql`truncate gnl.retention_log`)).toMatch(/retention_log is append-only: TRUNCATE/);
    expect(await refused(sql`delete from gnl.run_events where run_id = ${kept}`)).toMatch(/run_events is append-only: DELETE/);
    expect(await refused(sql`delete from gnl.run_events where run_id = ${kept}`, uniqueRunId('another'))).toMatch(/run_events is append-only: DELETE/);
    expect(await refused(sql`update gnl.run_events set type = 'x' where run_id = ${kept}`, kept)).toMatch(/run_events is append-only: UPDATE/);
    expect(await refused(sql`truncate gnl.run_events`, kept)).toMatch(/run_events is append-only: TRUNCATE/);
    expect(await refused(sql`delete from gnl.payloads where hash = ${hash}`)).toMatch(/payloads is append-only: DELETE/);
    // The setting alone is not enough for a blob an event still names.
    expect(await refused(sql`delete from gnl.payloads where hash = ${hash}`, kept)).toMatch(/payloads is append-only: DELETE/);
    expect(await rowsOf(storage, kept)).toMatchObject({ runs: 1, events: 2 });
    expect(await blobCount(storage, hash)).toBe(1);
    expect((await retentionLog({ storage, agent: agentA })).length).toBeGreaterThan(0);
  });

  it("the policy: an agent's retentionDays, else the fleet default; 'forever' keeps; GNL_RETENTION_DAYS is validated", () => {
    const { model } = scriptedModel(() => ({ text: 'ok' }));
    const registry = createAgentRegistry([
      defineAgent({ name: 'short', model, tools: {}, retentionDays: 3 }),
      defineAgent({ name: 'keep', model, tools: {}, retentionDays: 'forever' }),
      defineAgent({ name: 'plain', model, tools: {} }),
    ]);
    expect(retentionPolicy({ registry, defaultDays: 30 }).agents).toEqual([
      { agent: 'plain', days: 30 },
      { agent: 'short', days: 3 },
    ]);
    expect(retentionPolicy({ registry }).agents).toEqual([{ agent: 'short', days: 3 }]);
    // Workflows are covered the same way: their runs record the workflow's name.
    const flow = (name: string, retentionDays?: number | 'forever') =>
      defineWorkflow({ name, input: z.object({}), run: async () => null, ...(retentionDays !== undefined ? { retentionDays } : {}) });
    const withFlows = createAgentRegistry([defineAgent({ name: 'plain', model, tools: {} })], {
      workflows: [flow('flow-short', 2), flow('flow-keep', 'forever'), flow('flow-plain')],
    });
    expect(retentionPolicy({ registry: withFlows, defaultDays: 30 }).agents).toEqual([
      { agent: 'plain', days: 30 },
      { agent: 'flow-plain', days: 30 },
      { agent: 'flow-short', days: 2 },
    ]);
    expect(() => flow('flow-bad', 0)).toThrow(/retentionDays/);
    expect(() => defineAgent({ name: 'bad', model, tools: {}, retentionDays: 0 })).toThrow(/retentionDays/);
    expect(retentionSettingsFromEnv({ GNL_RETENTION_DAYS: '90' })).toEqual({ defaultDays: 90 });
    expect(retentionSettingsFromEnv({ GNL_RETENTION_DAYS: 'forever' })).toEqual({});
    expect(retentionSettingsFromEnv({})).toEqual({});
    const error = (() => {
      try {
        retentionSettingsFromEnv({ GNL_RETENTION_DAYS: '2.5' });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error).toMatchObject({ name: 'RetentionSettingsError', setting: 'GNL_RETENTION_DAYS' });
    expect(error?.cause).toBeDefined();
  });

  it('executors run one pass per interval between them; a pass drops what a batch at a time finds', async () => {
    const name = `ret-e-${tag}`;
    const registry = createAgentRegistry([defineAgent({ name, model: scriptedModel(() => ({ text: 'ok' })).model, tools: {}, retentionDays: 2 })]);
    const ended = [await makeRun(name, 'completed'), await makeRun(name, 'canceled'), await makeRun(name, 'completed')];
    const events: unknown[] = [];
    const make = (intervalMs: number) =>
      new Executor({ storage, registry, notify: false, retention: { intervalMs, batchSize: 2 }, onEvent: (event) => events.push(event) });
    const [x, y] = [make(3_600_000), make(3_600_000)];
    const forced = await x.retentionPass({ force: true, now: later });
    expect(forced).toMatchObject({ batches: 2, more: false });
    expect((forced?.dropped ?? 0) >= 3).toBe(true);
    for (const runId of ended) expect((await rowsOf(storage, runId)).runs).toBe(0);
    expect(events).toContainEqual(expect.objectContaining({ type: 'retention-pass' }));
    // Within the interval, nobody starts another.
    expect(await Promise.all([x.retentionPass(), y.retentionPass()])).toEqual([undefined, undefined]);
    // Past it, one of two executors trying at once does.
    const [p, q] = [make(1_000), make(1_000)];
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const passes = await Promise.all([p.retentionPass(), q.retentionPass()]);
    expect(passes.filter((pass) => pass !== undefined)).toHaveLength(1);
  });
});
