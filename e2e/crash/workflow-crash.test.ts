/**
 * Workflows by real crashes: one workflow run (crash-workflows.ts: a retrySafe ticket, a refund without a
 * check, a durable sleep, a wait for an event, a fan-out of three child workflows each sending an email
 * with a check) carried through a row of real worker processes (workflow-child.ts), each SIGKILLed at a
 * dangerous point, the next started on the same journal:
 *   1. killed after the ticket was created, before it was recorded: the next one creates it again under the same key (the service deduplicates);
 *   2. killed after the refund was issued: the next one does not guess, the run is blocked; a person marks it done;
 *   3. killed while the run sleeps: the next process wakes it when the sleep ends;
 *   4. the run waits for the reply, holding no worker; the event is sent with no worker running;
 *   5. killed after the second child's email was sent: the next process asks the service by key (check) and does not send it again.
 * Judged by the demo outside service's own counters. On PGlite (one data folder, one process at a time)
 * and on the Postgres at DATABASE_URL.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { RunState } from '@/lib/durable';
import { PGliteStorage, PostgresStorage, type Storage } from '@/lib/durable/storage';
import { resumeRun, sendEvent } from '@/lib/executor';
import { childArgs, ROOT } from '@/tests/support/child-bundles';
import { createFreshDatabase } from '@/tests/support/fresh-database';
import { DATABASE_URL, describeEachJournal, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { crashRegistry, KILL_AT_ENV, SERVICE_ENV } from './crash-workflows';

const CHILD_TIMEOUT_MS = 60_000;

interface ChildEnd {
  killed: boolean;
  code: number | null;
  line: { status: string; outcome: string | null } | undefined;
  stderr: string;
}

function worker(env: Record<string, string>, args: string[]): Promise<ChildEnd> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'GNL_DATA_DIR', 'NODE_OPTIONS', KILL_AT_ENV]) delete childEnv[name];
  const child = spawn(process.execPath, [...childArgs('e2e/crash/workflow-child.ts'), ...args], {
    cwd: ROOT,
    env: { ...childEnv, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`workflow-child did not end within ${CHILD_TIMEOUT_MS} ms (${args.join(' ')}, ${env[KILL_AT_ENV] ?? 'no kill'}).\nstderr:\n${stderr}`));
    }, CHILD_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').filter(Boolean).at(-1);
      resolve({ killed: signal === 'SIGKILL', code, line: last ? (JSON.parse(last) as ChildEnd['line']) : undefined, stderr });
    });
  });
}

describeEachJournal('workflows through SIGKILLs', (target) => {
  let service: OutsideService;
  let env: Record<string, string>;
  let open: () => Storage;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    service = await startOutsideService();
    if (target.name === 'pglite') {
      const dataDir = tempDataDir();
      env = { GNL_DATA_DIR: dataDir, [SERVICE_ENV]: service.url };
      open = () => new PGliteStorage({ dataDir });
    } else {
      const database = await createFreshDatabase(DATABASE_URL as string, 'gnl_wfcrash');
      drop = database.drop;
      env = { DATABASE_URL: database.url, [SERVICE_ENV]: service.url };
      open = () => new PostgresStorage({ connectionString: database.url });
    }
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await drop?.();
  });

  /** Opens the journal in this process while no worker runs (the embedded one serves one process at a time). */
  const withStorage = async <T>(body: (storage: Storage) => Promise<T>): Promise<T> => {
    const storage = open();
    try {
      return await body(storage);
    } finally {
      await storage.close();
    }
  };
  const killedAt = async (point: string, args: string[]) => {
    const end = await worker({ ...env, [KILL_AT_ENV]: point }, args);
    expect(end.killed, `expected a SIGKILL at ${point}: code ${end.code}, ${JSON.stringify(end.line)}\n${end.stderr}`).toBe(true);
  };
  const settles = async (runId: string, status: string) => {
    const end = await worker(env, [runId]);
    expect(end.killed, end.stderr).toBe(false);
    expect(end.line?.status, end.stderr).toBe(status);
  };

  it('at most once through every kill: the ticket and the refund once, the sleep and the wait survive, each email once', { timeout: 300_000 }, async () => {
    const runId = uniqueRunId('wf-crash');
    // 1. After the ticket, before its record.
    await killedAt('ticket', [runId, 'start']);
    expect(service.stats().tickets).toMatchObject({ performed: 1, requests: 1 });
    // 2. The ticket is asked again under its key (retrySafe: the service answers from its record); the refund is issued, then the kill.
    await killedAt('refund', [runId]);
    expect(service.stats().tickets).toMatchObject({ performed: 1, requests: 2, deduplicated: 1 });
    expect(service.stats().refunds.performed).toBe(1);
    // The next process does not guess: the refund's outcome is unknown, the run is blocked.
    await settles(runId, 'blocked');
    expect(service.stats().refunds).toMatchObject({ performed: 1, requests: 1 });
    const refundKey = await withStorage(async (storage) => {
      const run = await storage.runs.getRun(runId);
      const call = run?.pending.find((item) => item.toolName === 'refund');
      expect(call?.kind).toBe('side-effect');
      const record = service.records('refunds')[0] as { refundId: string };
      await storage.runs.resolveSideEffect({ runId, toolCallId: call?.toolCallId ?? '', outcome: 'done', output: record.refundId, by: 'ops@acme' });
      await resumeRun(runId, { storage, by: 'ops@acme', reason: 'the service shows the refund' });
      return run?.pending[0]?.toolCallId;
    });
    expect(service.records('refunds')).toMatchObject([{ amount: 5 }]);
    expect(refundKey).toBeTruthy();
    // 3. Killed while it sleeps: another process wakes it after the sleep, and it then waits for the reply.
    await killedAt('sleep', [runId]);
    await settles(runId, 'waiting');
    const waiting = await withStorage(async (storage) => new RunState(await storage.runs.events(runId)));
    expect([...waiting.workflowWaits.values()].map((w) => [w.name, w.wait.kind, w.end?.outcome ?? 'open'])).toEqual([
      ['cool-off', 'sleep', 'elapsed'],
      ['reply', 'event', 'open'],
    ]);
    // 4. The reply, sent while no worker runs; twice under one id.
    await withStorage(async (storage) => {
      const first = await sendEvent({ storage, registry: crashRegistry, runId, name: 'reply', eventId: 'r-1', payload: { text: 'ok' }, by: 'desk' });
      const again = await sendEvent({ storage, registry: crashRegistry, runId, name: 'reply', eventId: 'r-1', payload: { text: 'ok' }, by: 'desk' });
      expect([first.recorded, again.recorded]).toEqual([true, false]);
    });
    // 5. The fan-out: killed after the second child's email was sent, before its record.
    await killedAt('email-1', [runId]);
    // The second child's email was performed before the kill; the first child's (run beside it, concurrency 2) may or may not have been.
    expect(service.records('emails').map((e) => (e as { body: string }).body)).toContain('Notice 1');
    await settles(runId, 'completed');
    expect(service.stats().emails).toMatchObject({ performed: 3, withoutKey: 0 });
    expect(service.stats().refunds.performed).toBe(1);
    expect(service.stats().tickets.performed).toBe(1);
    // The second child asked the service by key rather than send again.
    expect(service.stats().keyLookups).toBeGreaterThanOrEqual(1);
    const done = await withStorage(async (storage) => {
      const state = new RunState(await storage.runs.events(runId));
      const children = await Promise.all([0, 1, 2].map((k) => storage.runs.getRun(`${runId}/notify/${k}`)));
      return { state, children };
    });
    expect(done.state.status).toBe('completed');
    const sent = { status: 'completed', output: expect.stringMatching(/^em_/) };
    expect(done.state.completedOutput).toMatchObject({ reply: 'ok', emails: [sent, sent, sent] });
    expect(done.children.map((c) => c?.status)).toEqual(['completed', 'completed', 'completed']);
    expect(new Set(service.records('emails').map((e) => (e as { emailId: string }).emailId)).size).toBe(3);
  });
});
