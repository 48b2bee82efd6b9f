/**
 * Connections lost or stalled mid-run, in-process on the shared server (each test ends only the backends
 * of its own storage, found by an application_name of its own): a pool connection terminated while its
 * append waits for the run's row lock, the lock session terminated, idle pool connections terminated,
 * and an append that outlasts statement_timeout. The run is inside sendEmail when the fault strikes (the
 * request held at a proxy), so the journal has the side effect's start and the service gets the request.
 * An invocation whose hold or connection was lost as it recorded the email takes the run's hold again
 * and records it (run-session.ts retakeToRecord); one that cannot stops with a clear error and a resume
 * reaches the same outcome; the email performed once by the outside service's own counter, seq contiguous.
 */
import postgres from 'postgres';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { supportAgent } from '@/agents/support';
import { runAgent } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { PostgresStorage } from '@/lib/durable/storage';
import { type GateProxy, startGateProxy } from '@/tests/support/gate-proxy';
import { DATABASE_URL, uniqueRunId } from '@/tests/support/journals';
import { QUESTION, until } from './fault-checks';
import { faultTotals, namedUrl } from './fault-worker';

const suite = DATABASE_URL ? describe : describe.skip;

suite(`connections lost or stalled mid-run [postgres]${DATABASE_URL ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  let service: OutsideService;
  let proxy: GateProxy;
  const admin = DATABASE_URL ? postgres(DATABASE_URL, { max: 2, onnotice: () => {} }) : (undefined as never);
  const opened: PostgresStorage[] = [];
  let counter = 0;

  beforeEach(async () => {
    service = await startOutsideService();
    proxy = await startGateProxy(service.url);
    proxy.hold((method, path) => method === 'POST' && path === '/emails');
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await proxy.close();
    await service.close();
  });
  afterAll(async () => {
    await admin.end({ timeout: 5 });
    console.log(`[faults] connections: ${faultTotals.terminatedBackends} backends terminated by the connection tests`);
  });

  function storageNamed(role: string, connection: Record<string, string> = {}) {
    const applicationName = `faults-${role}-${process.pid}-${++counter}`;
    const storage = new PostgresStorage({ connectionString: namedUrl(DATABASE_URL as string, applicationName), clientOptions: { connection } });
    opened.push(storage);
    return { storage, applicationName };
  }

  /** Starts a support run that stops inside sendEmail (its start journaled, its request held at the proxy). */
  async function insideSendEmail(storage: PostgresStorage, options: { recordOutcomeWithinMs?: number } = {}) {
    const runId = uniqueRunId('faults-conn');
    const agent = supportAgent({ serviceUrl: proxy.url });
    const invocation = runAgent({ agent, runId, input: QUESTION(counter), journal: storage.runs, ...options }).catch((error: unknown) => error);
    await proxy.waitForHeld(1);
    return { runId, agent, invocation };
  }

  /** Terminates backends of `applicationName` that match `where` (a SQL condition on pg_stat_activity), waiting until they are gone. */
  async function terminate(applicationName: string, where: 'idle' | 'waiting' | 'any') {
    const rows = await admin<{ pid: number }[]>`
      select pid from pg_stat_activity where application_name = ${applicationName}
        and (${where} = 'any' or (${where} = 'idle' and state = 'idle') or (${where} = 'waiting' and wait_event_type = 'Lock'))`;
    for (const { pid } of rows) await admin`select pg_terminate_backend(${pid}, 5000)`;
    faultTotals.terminatedBackends += rows.length;
    return rows.length;
  }

  /** Another session takes the run's row lock and keeps it until `release()`: the run's next append waits for it. */
  async function lockRunRow(runId: string) {
    const locker = postgres(DATABASE_URL as string, { max: 1, onnotice: () => {}, connection: { application_name: `faults-locker-${process.pid}` } });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked: () => void = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const done = locker
      .begin(async (tx) => {
        await tx`select 1 from gnl.runs where run_id = ${runId} for update`;
        locked();
        await released;
      })
      .finally(() => locker.end({ timeout: 5 }));
    await isLocked;
    return async () => {
      release();
      await done;
    };
  }

  async function resumeAndJudge(storage: PostgresStorage, runId: string, agent: ReturnType<typeof supportAgent>) {
    const before = await storage.runs.events(runId);
    expect(before.map((e) => e.seq)).toEqual(before.map((_, i) => i + 1));
    expect(before.filter((e) => e.type === 'tool-call-start' && e.toolName === 'sendEmail')).toHaveLength(1);
    const result = await runAgent({ agent, runId, input: QUESTION(counter), journal: storage.runs });
    expect(result.status).toBe('completed');
    const events = await storage.runs.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'run-complete')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool-call-end' && e.toolName === 'sendEmail')).toHaveLength(1);
    const stats = service.stats();
    expect(stats.tickets).toMatchObject({ performed: 1 });
    expect(stats.emails).toMatchObject({ requests: 1, performed: 1 });
    return events;
  }

  it('the pool connection whose append waits for the row lock is terminated: the invocation takes its hold again and records the email itself, one email', async () => {
    const { storage, applicationName } = storageNamed('pool');
    const { runId, agent, invocation } = await insideSendEmail(storage);
    const unlock = await lockRunRow(runId);
    proxy.release(); // the email is sent; its tool-call-end append now waits for the row lock
    await until('the append waiting for the lock', async () => ((await terminate(applicationName, 'waiting')) > 0 ? true : undefined));
    await unlock();
    const result = await invocation;
    console.log(`[faults] pool connection terminated mid-append: ${outcomeOf(result)}`);
    // postgres.js said CONNECTION_CLOSED under the append; the process knew the email went out, took the
    // run's hold again and recorded it (run-session.ts retakeToRecord): no check, no second invocation.
    expect(result).toMatchObject({ status: 'completed' });
    const events = await storage.runs.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.find((e) => e.type === 'tool-call-end' && e.toolName === 'sendEmail')).not.toMatchObject({ source: 'check' });
    expect(service.stats().emails).toMatchObject({ requests: 1, performed: 1 });
    void agent;
  });

  it('the lock session is terminated: the next append is refused (HoldLostError), the invocation takes its hold again and records the email, one email', async () => {
    const { storage, applicationName } = storageNamed('holds');
    const { runId, agent, invocation } = await insideSendEmail(storage);
    // The storage's connections all carry the same name; the lock session is the one holding an advisory lock.
    const [lockSession] = await admin<{ pid: number }[]>`
      select a.pid from pg_stat_activity a join pg_locks l on l.pid = a.pid and l.locktype = 'advisory' and l.granted
      where a.application_name = ${applicationName}`;
    expect(lockSession).toBeDefined();
    await admin`select pg_terminate_backend(${lockSession?.pid as number}, 5000)`;
    faultTotals.terminatedBackends += 1;
    proxy.release();
    const result = await invocation;
    console.log(`[faults] lock session terminated: ${outcomeOf(result)}`);
    expect(result).toMatchObject({ status: 'completed' });
    const events = await storage.runs.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'run-resume')).toEqual([]);
    expect(service.stats().emails).toMatchObject({ requests: 1, performed: 1 });
    void agent;
  });

  it('the lock session is terminated and another process takes the run meanwhile: the invocation does not take it back, writes nothing, and the run stays with the other process', async () => {
    const { storage, applicationName } = storageNamed('taken');
    const { storage: other } = storageNamed('other'); // opened first: the run's question is numbered by the last storage made
    const { runId, agent, invocation } = await insideSendEmail(storage);
    const [lockSession] = await admin<{ pid: number }[]>`
      select a.pid from pg_stat_activity a join pg_locks l on l.pid = a.pid and l.locktype = 'advisory' and l.granted
      where a.application_name = ${applicationName}`;
    await admin`select pg_terminate_backend(${lockSession?.pid as number}, 5000)`;
    faultTotals.terminatedBackends += 1;
    // Another process takes the run's hold the moment the lock is free, and keeps it.
    const taken = await other.runs.hold(runId);
    const before = (await storage.runs.events(runId)).length;
    proxy.release();
    const failed = await invocation;
    console.log(`[faults] lock session terminated, run taken by another process: ${outcomeOf(failed)}`);
    // The email went out, and this process knows it; the run is another's now: it does not write (HoldLostError).
    expect(failed).toMatchObject({ name: 'HoldLostError', runId });
    expect((await storage.runs.events(runId)).length).toBe(before);
    await taken.release();
    // The next invocation finds the email started without an end: the tool's check settles it, no second email.
    const events = await resumeAndJudge(storage, runId, agent);
    expect(events.find((e) => e.type === 'tool-call-end' && e.toolName === 'sendEmail')).toMatchObject({ source: 'check' });
  });

  it('the idle pool connections are terminated while the run is inside a tool: it rides through in the same invocation, one email', async () => {
    const { storage, applicationName } = storageNamed('idle');
    const { runId, agent, invocation } = await insideSendEmail(storage);
    const lockPids = new Set(
      (
        await admin<{ pid: number }[]>`select l.pid from pg_locks l join pg_stat_activity a on a.pid = l.pid
          where a.application_name = ${applicationName} and l.locktype = 'advisory' and l.granted`
      ).map((r) => r.pid),
    );
    const idle = await admin<{ pid: number }[]>`select pid from pg_stat_activity where application_name = ${applicationName} and state = 'idle'`;
    const pool = idle.filter((r) => !lockPids.has(r.pid));
    expect(pool.length).toBeGreaterThan(0);
    for (const { pid } of pool) await admin`select pg_terminate_backend(${pid}, 5000)`;
    faultTotals.terminatedBackends += pool.length;
    proxy.release();
    const result = await invocation;
    console.log(`[faults] ${pool.length} idle pool connections terminated: ${outcomeOf(result)}`);
    expect(result).toMatchObject({ status: 'completed' });
    const events = await storage.runs.events(runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'run-resume' || e.type === 'run-fail')).toEqual([]);
    expect(service.stats().emails).toMatchObject({ requests: 1, performed: 1 });
    void agent;
  });

  it('an append outlasts statement_timeout (another session holds the row lock): the invocation stops with the timeout; a resume completes, one email', async () => {
    const { storage } = storageNamed('timeout', { statement_timeout: '500' });
    // Each retake of the hold meets the same row lock and times out too: 2 s of them, not the default 30 s.
    const startedAt = Date.now();
    const { runId, agent, invocation } = await insideSendEmail(storage, { recordOutcomeWithinMs: 2_000 });
    const unlock = await lockRunRow(runId);
    proxy.release();
    const failed = await invocation;
    const tookMs = Date.now() - startedAt;
    await unlock();
    console.log(`[faults] statement timeout: ${outcomeOf(failed)} after ${tookMs} ms`);
    expect(failed).toMatchObject({ name: 'PostgresError', code: '57014' });
    expect(tookMs).toBeLessThan(30_000); // the window given, not the default: the option reached the invocation
    await resumeAndJudge(storage, runId, agent);
  });
});

function outcomeOf(value: unknown): string {
  if (!(value instanceof Error)) return `resolved ${JSON.stringify((value as { status?: string })?.status)}`;
  const code = (value as { code?: string }).code;
  return `${value.name}${code ? ` ${code}` : ''}: ${value.message}`;
}
