/**
 * Proof by real crashes (issue 2): a real child process running the refund agent is killed with SIGKILL
 * at each dangerous point, a fresh child is started at once with the same runId, and the outcome is
 * judged by the refund service's OWN counters (refund-service.ts), never by the agent's logs.
 * Runs on embedded PGlite (a data folder shared by the successive children) and on the Postgres at
 * DATABASE_URL (skipped, visibly, without it).
 *
 * For every case it also checks: the run's final status (journal.getRun), that no recorded model step
 * reached the model twice (the children's model log counts real calls per step), that the service saw
 * only the journal's idempotency key for the refund, and that the run's sequence numbers are 1..n.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Journal, type MemoryStore, type RecordedEvent, type RunStatus, type RunSummary, unitVector } from '@/lib/durable';
import { PGliteStorage, PostgresStorage } from '@/lib/durable/storage';
import { DATABASE_URL, describeEachJournal, tempDataDir, uniqueRunId } from '@/tests/support/journals';
import { type AgentConfig, type ChildEnd, describeEnd, modelCallsByStep, newModelLog, repeatedModelCalls, runAgent, startAgent, totals } from './harness';
import { type AgentOutcome, type CrashPoint, FINAL_TEXT, type ModelLogLine, memoryOf, ORDER_ID, PROMPT, RECALL_QUERY, type Scenario } from './protocol';
import { type RefundService, type RefundServiceOptions, startRefundService } from './refund-service';

const CASE_TIMEOUT_MS = 240_000;
const suiteStarted = performance.now();

interface Row {
  journal: string;
  case: string;
  children: number;
  kills: number;
  requests: number;
  executions: number;
  distinctKeys: number;
  status: string;
  seconds: number;
}
const rows: Row[] = [];

afterAll(() => {
  const failed = rows.filter((r) => r.status === 'FAILED').length;
  const width = Math.max(0, ...rows.map((r) => r.case.length));
  const lines = rows.map(
    (r) =>
      `${r.journal.padEnd(8)} | ${r.case.padEnd(width)} | children ${String(r.children).padStart(2)} | kills ${String(r.kills).padStart(2)} | ` +
      `requests ${r.requests} | executions ${r.executions} | keys ${r.distinctKeys} | ${r.status.padEnd(10)} | ${r.seconds.toFixed(1)} s`,
  );
  const journals = [...new Set(rows.map((r) => r.journal))].join(' + ');
  console.log(
    [
      '[crash-suite] outcome table (counts are the refund service\u2019s own):',
      ...lines,
      `[crash-suite] SUMMARY: ${rows.length} cases (${failed} failed) on ${journals || 'no journal'}; ${totals.children} child processes, ${totals.kills} SIGKILLs; ` +
        `service executions total ${rows.reduce((a, r) => a + r.executions, 0)}; suite ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s.`,
    ].join('\n'),
  );
});

/** Temp folders (PGlite data, model logs) removed when the suite ends. */
const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** How the test process reaches a journal between children. */
interface JournalAccess {
  childConfig: Pick<AgentConfig, 'journal' | 'dataDir' | 'databaseUrl'>;
  /** For PGlite: opens the folder (only while no child runs: the folder lock allows one process) and closes it after. */
  use<T>(fn: (journal: Journal) => Promise<T>): Promise<T>;
  /** The same, for the journal's memory store. */
  memory<T>(fn: (store: MemoryStore) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function pgliteAccess(): JournalAccess {
  const dataDir = tempDataDir();
  tempDirs.push(path.dirname(dataDir));
  const withStorage = async <T>(fn: (storage: PGliteStorage) => Promise<T>): Promise<T> => {
    const storage = new PGliteStorage({ dataDir });
    try {
      return await fn(storage);
    } finally {
      await storage.close();
    }
  };
  return {
    childConfig: { journal: 'pglite', dataDir },
    use: (fn) => withStorage((storage) => fn(storage.runs)),
    memory: (fn) => withStorage((storage) => fn(storage.memory)),
    close: async () => {},
  };
}

function modelLogFile(): string {
  const file = newModelLog();
  tempDirs.push(path.dirname(file));
  return file;
}

function postgresAccess(): JournalAccess {
  const storage = new PostgresStorage({ connectionString: DATABASE_URL as string, max: 2 });
  return {
    childConfig: { journal: 'postgres', databaseUrl: DATABASE_URL as string },
    use: (fn) => fn(storage.runs),
    memory: (fn) => fn(storage.memory),
    close: () => storage.close(),
  };
}

interface Case {
  runId: string;
  service: RefundService;
  modelLog: string;
  access: JournalAccess;
  children: ChildEnd[];
  /** Runs a child to its end (its own SIGKILL or its outcome line). */
  run(scenario: Scenario, crashPoint: CrashPoint, extra?: Pick<AgentConfig, 'killInsideAppend' | 'mode'>): Promise<ChildEnd>;
  start(scenario: Scenario, crashPoint: CrashPoint, extra?: Pick<AgentConfig, 'killInsideAppend' | 'mode'>): ReturnType<typeof startAgent>;
}

/** Waits until the paused refund request is in; fails (instead of hanging) if the child ended first. */
async function inside(pause: { arrived: Promise<void> }, child: { ended: Promise<ChildEnd> }): Promise<void> {
  const first = await Promise.race([pause.arrived.then(() => undefined), child.ended]);
  if (first) throw new Error(`the child ended before its refund call reached the service: ${describeEnd(first)}`);
}

function expectKilled(end: ChildEnd): void {
  expect(end.killed, describeEnd(end)).toBe(true);
  expect(end.outcome, describeEnd(end)).toBeUndefined();
}

function expectOutcome<K extends AgentOutcome['outcome']>(end: ChildEnd, kind: K): Extract<AgentOutcome, { outcome: K }> {
  expect(end.killed, describeEnd(end)).toBe(false);
  expect(end.code, describeEnd(end)).toBe(0);
  expect(end.outcome?.outcome, describeEnd(end)).toBe(kind);
  return end.outcome as Extract<AgentOutcome, { outcome: K }>;
}

async function readRun(access: JournalAccess, runId: string): Promise<{ run: RunSummary | undefined; events: RecordedEvent[] }> {
  return access.use(async (journal) => ({ run: await journal.getRun(runId), events: await journal.events(runId) }));
}

interface Expected {
  status: RunStatus;
  /** Refunds the service executed (all for o_17). */
  executions: number;
  /** POST /refunds the service received (exactly, or within [min, max] where the kill timing decides). */
  requests: number | [number, number];
  /** Order lookups the service served (default 1: the read-only tool never ran twice). */
  lookups?: number | [number, number];
  /**
   * 'exact' (default): exactly one real model call per recorded step. 'no-repeats': where a kill may land
   * between a model call and its record, a step may be called again, but never after it was recorded.
   */
  modelCalls?: 'exact' | 'no-repeats';
}

function expectCount(actual: number, expected: number | [number, number], what: string): void {
  if (typeof expected === 'number') expect(actual, what).toBe(expected);
  else {
    expect(actual, what).toBeGreaterThanOrEqual(expected[0]);
    expect(actual, what).toBeLessThanOrEqual(expected[1]);
  }
}

/** The checks every case ends with; adds the case's row to the outcome table. */
async function verify(c: Case, title: string, journalName: string, started: number, expected: Expected): Promise<void> {
  const stats = c.service.stats();
  expect(stats.executions, 'refunds the service executed').toBe(expected.executions);
  expect(stats.executionsByOrder[ORDER_ID] ?? 0, 'refunds of o_17').toBe(expected.executions);
  expectCount(stats.requests, expected.requests, 'refund requests the service received');
  expectCount(stats.lookups, expected.lookups ?? 1, 'order lookups the service served');

  const { run, events } = await readRun(c.access, c.runId);
  expect(run?.status).toBe(expected.status);
  // Sequence numbers are contiguous 1..n, and the summary agrees.
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
  expect(run?.lastSeq).toBe(events.length);

  // No real model call for a step that was recorded: exactly one real call per recorded step, none else.
  const recordedSteps = events.flatMap((e) => (e.type === 'model-step' ? [e.step] : []));
  expect(new Set(recordedSteps).size, 'a model step recorded twice').toBe(recordedSteps.length);
  expect(repeatedModelCalls(c.modelLog), 'model calls after the step was recorded').toEqual([]);
  const calls = modelCallsByStep(c.modelLog);
  if ((expected.modelCalls ?? 'exact') === 'exact') {
    expect(calls, 'real model calls per step').toEqual(Object.fromEntries(recordedSteps.map((s) => [s, 1])));
  } else {
    expect(Object.keys(calls).map(Number).sort(), 'steps that reached the model').toEqual([...recordedSteps].sort());
  }

  // The service saw only the journal's idempotency key for the refund.
  const refundKeys = new Set(events.flatMap((e) => (e.type === 'tool-call-start' && e.toolName === 'refund' ? [e.idempotencyKey] : [])));
  expect(refundKeys.size).toBeLessThanOrEqual(1);
  for (const request of stats.log) expect(request.idempotencyKey).toBe([...refundKeys][0]);
  expect(stats.distinctKeys).toBe(stats.requests > 0 ? 1 : 0);

  rows.push({
    journal: journalName,
    case: title,
    children: c.children.length,
    kills: c.children.filter((e) => e.killed).length,
    requests: stats.requests,
    executions: stats.executions,
    distinctKeys: stats.distinctKeys,
    status: run?.status ?? 'none',
    seconds: (performance.now() - started) / 1000,
  });
}

describeEachJournal('crash suite: SIGKILL at each point, restart at once with the same runId', (target) => {
  let access: JournalAccess;
  beforeAll(async () => {
    access = target.name === 'pglite' ? pgliteAccess() : postgresAccess();
    // Create and migrate the journal once, outside the cases' timings (an empty PGlite folder takes seconds).
    await access.use((journal) => journal.listRuns({ limit: 1 }));
  });
  afterAll(() => access?.close());

  /** Declares one case: a fresh refund service, a fresh runId and model log. */
  function crashCase(title: string, serviceOptions: RefundServiceOptions, body: (c: Case) => Promise<Expected>): void {
    it(
      title,
      async () => {
        const started = performance.now();
        const service = await startRefundService(serviceOptions);
        const children: ChildEnd[] = [];
        const c: Case = {
          runId: uniqueRunId(`crash:${target.name}`),
          service,
          modelLog: modelLogFile(),
          access,
          children,
          start(scenario, crashPoint, extra) {
            const child = startAgent({ ...access.childConfig, ...extra, runId: c.runId, scenario, crashPoint, serviceUrl: service.url, modelLog: c.modelLog });
            child.ended.then((end) => children.push(end)).catch(() => {});
            return child;
          },
          async run(scenario, crashPoint, extra) {
            return c.start(scenario, crashPoint, extra).ended;
          },
        };
        try {
          const expected = await body(c);
          await verify(c, title, target.name, started, expected);
        } catch (error) {
          const stats = service.stats();
          rows.push({
            journal: target.name,
            case: title,
            children: children.length,
            kills: children.filter((e) => e.killed).length,
            requests: stats.requests,
            executions: stats.executions,
            distinctKeys: stats.distinctKeys,
            status: 'FAILED',
            seconds: (performance.now() - started) / 1000,
          });
          throw error;
        } finally {
          await service.close();
        }
      },
      CASE_TIMEOUT_MS,
    );
  }

  // A new model step is journaled with the record that follows it (RunSession.defer): the lookup's end, the
  // refund's start, the run's completion. A kill after it is a kill after those; a kill before it loses
  // only the model's answer (asked again: nothing acted on it).
  crashCase('kill after a model step is recorded: with the lookup\u2019s end, the refund\u2019s start, the completion', {}, async (c) => {
    expectKilled(await c.run('retrySafe', 'after:model-step:0'));
    expect(c.service.stats()).toMatchObject({ lookups: 1, requests: 0 });
    expect((await readRun(c.access, c.runId)).events.map((e) => e.type)).toEqual(['run-start', 'model-step', 'tool-call-end']);
    expectKilled(await c.run('retrySafe', 'after:model-step:1'));
    // The refund's start is durable with its step; the refund has not run.
    expect(c.service.stats()).toMatchObject({ lookups: 1, requests: 0 });
    expect((await readRun(c.access, c.runId)).events.slice(-2).map((e) => e.type)).toEqual(['model-step', 'tool-call-start']);
    expectKilled(await c.run('retrySafe', 'after:model-step:2'));
    expect(c.service.stats()).toMatchObject({ lookups: 1, requests: 1, executions: 1 });
    // The final answer was recorded with the run's completion.
    expect((await readRun(c.access, c.runId)).run?.status).toBe('completed');
    const done = expectOutcome(await c.run('retrySafe', 'none'), 'completed');
    expect(done.text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('kill after the read-only tool finished', {}, async (c) => {
    expectKilled(await c.run('plain', 'after:tool-call-end:lookupOrder'));
    expect(c.service.stats()).toMatchObject({ lookups: 1, requests: 0 });
    expect(expectOutcome(await c.run('plain', 'none'), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('(a) kill inside refund after the service answered: blocked, resolved done', {}, async (c) => {
    expectKilled(await c.run('plain', 'in-refund-after-response'));
    expect(c.service.stats().executions).toBe(1);

    const blocked = expectOutcome(await c.run('plain', 'none'), 'blocked');
    const key = c.service.stats().log[0]?.idempotencyKey;
    expect(blocked.error).toMatchObject({
      name: 'SideEffectRetryBlockedError',
      runId: c.runId,
      toolCallId: 'call-refund',
      toolName: 'refund',
      idempotencyKey: key,
    });
    expect(blocked.error.input).toEqual({ orderId: ORDER_ID, amount: 40 });
    expect(c.service.stats()).toMatchObject({ requests: 1, executions: 1 });
    // It stays blocked until someone decides.
    expectOutcome(await c.run('plain', 'none'), 'blocked');
    expect(c.service.stats()).toMatchObject({ requests: 1, executions: 1 });

    // The operator asks the service, which says the refund happened, and records that as the result.
    const asked = (await (await fetch(`${c.service.url}/refunds/${key}`)).json()) as { status: string; result: unknown };
    expect(asked.status).toBe('done');
    await c.access.use(async (journal) => {
      expect((await journal.getRun(c.runId))?.status).toBe('blocked');
      expect((await journal.getRun(c.runId))?.pending).toMatchObject([{ kind: 'side-effect', toolCallId: 'call-refund', idempotencyKey: key }]);
      await journal.resolveSideEffect({ runId: c.runId, toolCallId: 'call-refund', outcome: 'done', output: asked.result, by: 'crash-suite' });
    });
    expect(expectOutcome(await c.run('plain', 'none'), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('(b) kill inside refund after the service answered: retrySafe', {}, async (c) => {
    expectKilled(await c.run('retrySafe', 'in-refund-after-response'));
    expect(expectOutcome(await c.run('retrySafe', 'none'), 'completed').text).toBe(FINAL_TEXT);
    // Sent twice under one key; the service executed once.
    return { status: 'completed', executions: 1, requests: 2 };
  });

  crashCase('(c) kill inside refund after the answer: check (and kill after its answer was recorded)', {}, async (c) => {
    expectKilled(await c.run('check', 'in-refund-after-response'));
    expectKilled(await c.run('check', 'after:side-effect-check'));
    expect(c.service.stats()).toMatchObject({ checks: 1, requests: 1, executions: 1 });
    expect(expectOutcome(await c.run('check', 'none'), 'completed').text).toBe(FINAL_TEXT);
    expect(c.service.stats().checks).toBe(2);
    const { events } = await readRun(c.access, c.runId);
    expect(events.filter((e) => e.type === 'side-effect-check').map((e) => e.type === 'side-effect-check' && e.result)).toEqual([
      { done: true },
      { done: true },
    ]);
    expect(events.find((e) => e.type === 'tool-call-end' && e.toolName === 'refund')).toMatchObject({ source: 'check', output: { execution: 1 } });
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase("(c') check, killed after the start was recorded, before the call: runs again", {}, async (c) => {
    expectKilled(await c.run('check', 'after:tool-call-start:refund'));
    expect(c.service.stats().requests).toBe(0);
    expect(expectOutcome(await c.run('check', 'none'), 'completed').text).toBe(FINAL_TEXT);
    expect(c.service.stats().checks).toBe(1);
    const { events } = await readRun(c.access, c.runId);
    expect(events.find((e) => e.type === 'side-effect-check')).toMatchObject({ result: { done: false } });
    expect(events.flatMap((e) => (e.type === 'tool-call-start' && e.toolName === 'refund' ? [e.attempt] : []))).toEqual([1, 2]);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  for (const dedupe of [true, false]) {
    const title = dedupe
      ? '(d) kill inside refund after the answer: resolved not-done, reruns under the same key'
      : "(d') same, service does NOT dedupe: the rerun executes again";
    crashCase(title, { dedupe }, async (c) => {
      expectKilled(await c.run('plain', 'in-refund-after-response'));
      expectOutcome(await c.run('plain', 'none'), 'blocked');
      await c.access.use((journal) => journal.resolveSideEffect({ runId: c.runId, toolCallId: 'call-refund', outcome: 'not-done', by: 'crash-suite' }));
      expect(expectOutcome(await c.run('plain', 'none'), 'completed').text).toBe(FINAL_TEXT);
      const { events } = await readRun(c.access, c.runId);
      expect(events.flatMap((e) => (e.type === 'tool-call-start' && e.toolName === 'refund' ? [e.attempt] : []))).toEqual([1, 2]);
      // Same key both times: a deduplicating service executed once; one that does not, twice.
      return { status: 'completed', executions: dedupe ? 1 : 2, requests: 2 };
    });
  }

  crashCase('(e) kill after the refund start was recorded, before the call: blocked, not-done', {}, async (c) => {
    expectKilled(await c.run('plain', 'after:tool-call-start:refund'));
    expect(c.service.stats().requests).toBe(0);
    const blocked = expectOutcome(await c.run('plain', 'none'), 'blocked');
    // GNL cannot tell this from (a); the service can: nothing under that key.
    expect((await fetch(`${c.service.url}/refunds/${blocked.error.idempotencyKey}`)).status).toBe(404);
    await c.access.use((journal) => journal.resolveSideEffect({ runId: c.runId, toolCallId: 'call-refund', outcome: 'not-done', by: 'crash-suite' }));
    expect(expectOutcome(await c.run('plain', 'none'), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('kill after the side effect was recorded', {}, async (c) => {
    expectKilled(await c.run('plain', 'after:tool-call-end:refund'));
    expect(c.service.stats().executions).toBe(1);
    expect(expectOutcome(await c.run('plain', 'none'), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('approval: wait, approve, kill after resume, kill after the approved call', {}, async (c) => {
    const waiting = expectOutcome(await c.run('approval', 'none'), 'waiting-approval');
    expect(waiting.pending).toMatchObject([{ toolCallId: 'call-refund', toolName: 'refund', input: { orderId: ORDER_ID, amount: 40 } }]);
    // Undecided: a resume keeps waiting and refunds nothing.
    expectOutcome(await c.run('approval', 'none'), 'waiting-approval');
    expect(c.service.stats().requests).toBe(0);
    await c.access.use(async (journal) => {
      expect((await journal.getRun(c.runId))?.status).toBe('waiting-approval');
      await journal.approve({ runId: c.runId, toolCallId: 'call-refund', by: 'crash-suite' });
    });
    expectKilled(await c.run('approval', 'after:run-resume'));
    expect(c.service.stats().requests).toBe(0);
    expectKilled(await c.run('approval', 'after:tool-call-end:refund'));
    expect(c.service.stats().executions).toBe(1);
    expect(expectOutcome(await c.run('approval', 'none'), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('edited approval: kill after resume, before the call: the approved arguments run once, under the same key', {}, async (c) => {
    expectOutcome(await c.run('approval', 'none'), 'waiting-approval');
    await c.access.use((journal) =>
      journal.approve({ runId: c.runId, toolCallId: 'call-refund', by: 'crash-suite', input: { orderId: ORDER_ID, amount: 25 } }),
    );
    expectKilled(await c.run('approval', 'after:run-resume'));
    expect(c.service.stats().requests).toBe(0);
    expectKilled(await c.run('approval', 'after:tool-call-end:refund'));
    expect(expectOutcome(await c.run('approval', 'none'), 'completed').text).toBe(FINAL_TEXT);
    // The service's own log: one refund, of the approved amount, under the key the journal recorded.
    const { events } = await readRun(c.access, c.runId);
    const start = events.find((e) => e.type === 'tool-call-start');
    expect(start).toMatchObject({ input: { orderId: ORDER_ID, amount: 25 } });
    expect(c.service.stats().log).toEqual([
      { idempotencyKey: start?.type === 'tool-call-start' ? start.idempotencyKey : '', orderId: ORDER_ID, amount: 25, executed: true },
    ]);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('approval: kill after the question was recorded, before the run suspended', {}, async (c) => {
    expectKilled(await c.run('approval', 'after:tool-approval-request:refund'));
    // Asked once: the resume keeps waiting on the recorded question instead of asking again.
    expectOutcome(await c.run('approval', 'none'), 'waiting-approval');
    await c.access.use(async (journal) => {
      const events = await journal.events(c.runId);
      expect(events.filter((e) => e.type === 'tool-approval-request')).toHaveLength(1);
      await journal.approve({ runId: c.runId, toolCallId: 'call-refund', by: 'crash-suite' });
    });
    expect(expectOutcome(await c.run('approval', 'none'), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  // Memory given to a run (runDurable's memory option): what the run was given is recorded when it starts;
  // a process started after a SIGKILL is given the record, though the thread grew meanwhile, and the
  // turn's append (a side effect through the door) is written once, counted in the store itself.
  const words32 = (text: string) => {
    const v = new Array<number>(32).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9_]+/g) ?? []) {
      let h = 0;
      for (const ch of word) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
      v[h % 32] = (v[h % 32] ?? 0) + 1;
    }
    return unitVector(v);
  };
  const EARLIER = 'earlier: my order o_17 was late';
  const LATER = 'later: please use my new address';
  const FACT = 'order o_17 refunds go to the card';
  async function seedMemory(c: Case): Promise<void> {
    const { resource, thread } = memoryOf(c.runId);
    await c.access.memory(async (store) => {
      await store.add({ resource, key: `${c.runId}:seed`, items: [{ kind: 'message', thread, role: 'user', text: EARLIER }] });
      await store.add({ resource, key: `${c.runId}:fact`, items: [{ kind: 'fact', text: FACT, embedding: words32(FACT) }] });
    });
  }
  async function turnsWritten(c: Case): Promise<string[]> {
    const { resource, thread } = memoryOf(c.runId);
    const history = await c.access.memory((store) => store.history({ resource, thread, limit: 50 }));
    return history.filter((item) => item.runId === c.runId).map((item) => `${item.role}: ${item.text}`);
  }
  function seenByTheModel(c: Case): string[][] {
    const lines = readFileSync(c.modelLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ModelLogLine);
    return lines.flatMap((line) => ('seen' in line && line.seen ? [line.seen] : []));
  }

  crashCase(
    'memory: kill after the run started with its memory; the thread grows; the restart is given the record and appends its turn once',
    {},
    async (c) => {
      await seedMemory(c);
      expectKilled(await c.run('retrySafe', 'after:run-start', { mode: 'memory' }));
      const { resource, thread } = memoryOf(c.runId);
      await c.access.memory((store) => store.add({ resource, key: `${c.runId}:later`, items: [{ kind: 'message', thread, role: 'user', text: LATER }] }));
      expect(expectOutcome(await c.run('retrySafe', 'none', { mode: 'memory' }), 'completed').text).toBe(FINAL_TEXT);
      const seen = seenByTheModel(c);
      expect(seen.length).toBeGreaterThan(0);
      for (const given of seen) {
        expect(
          given.some((text) => text.includes(FACT) && /similarity/.test(text)),
          'the recalled fact, with its similarity',
        ).toBe(true);
        expect(given, 'the thread as it was when the run started').toContain(EARLIER);
        expect(given, 'never the message added after the start').not.toContain(LATER);
      }
      expect(await turnsWritten(c)).toEqual([`user: ${PROMPT}`, `assistant: ${FINAL_TEXT}`]);
      return { status: 'completed', executions: 1, requests: 1 };
    },
  );

  crashCase('memory: kill inside the turn’s append after the store wrote it: the restart writes nothing more', {}, async (c) => {
    await seedMemory(c);
    expectKilled(await c.run('retrySafe', 'in-memory-append-after-write', { mode: 'memory' }));
    expect(await turnsWritten(c)).toEqual([`user: ${PROMPT}`, `assistant: ${FINAL_TEXT}`]);
    expect(expectOutcome(await c.run('retrySafe', 'none', { mode: 'memory' }), 'completed').text).toBe(FINAL_TEXT);
    expect(await turnsWritten(c)).toEqual([`user: ${PROMPT}`, `assistant: ${FINAL_TEXT}`]);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase(
    'memory: kill between a recall and its use: the restart is given the recorded items, embeds nothing again, and a closer fact added meanwhile is not among them',
    {},
    async (c) => {
      const { resource } = memoryOf(c.runId);
      const CLOSER = RECALL_QUERY; // the query itself: as close as a fact can be
      await c.access.memory((store) => store.add({ resource, key: `${c.runId}:fact`, items: [{ kind: 'fact', text: FACT, embedding: words32(FACT) }] }));
      expectKilled(await c.run('retrySafe', 'after:tool-call-end:recall', { mode: 'recall' }));
      await c.access.memory((store) => store.add({ resource, key: `${c.runId}:closer`, items: [{ kind: 'fact', text: CLOSER, embedding: words32(CLOSER) }] }));
      expect(expectOutcome(await c.run('retrySafe', 'none', { mode: 'recall' }), 'completed').text).toBe(FINAL_TEXT);
      const lines = readFileSync(c.modelLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ModelLogLine);
      // The query was embedded once, by the process that was killed; the restart embedded nothing.
      const embedded = lines.flatMap((line) => ('embedded' in line ? [line] : []));
      expect(embedded.map((line) => line.embedded)).toEqual([[RECALL_QUERY]]);
      // The model calls after the recall (the first, before it, was given no result).
      const seen = seenByTheModel(c).filter((given) => given.length > 0);
      expect(seen.length).toBeGreaterThan(0);
      for (const given of seen) {
        expect(given.join(' '), 'the recalled fact, with its score').toContain(FACT);
        expect(given.join(' '), 'never the fact added after the recall').not.toContain(`"text":"${CLOSER}"`);
      }
      expect(seen.every((given) => given.length === 1)).toBe(true);
      return { status: 'completed', executions: 1, requests: 1 };
    },
  );

  // Every journal boundary of the run, in order: a fresh run killed right after each, then resumed.
  // With retrySafe, no boundary may cost a second lookup, refund request or execution.
  // (A read-only call records no start: its only boundary is its end.)
  const boundaries = [
    'run-start',
    'model-step:0',
    'tool-call-end:lookupOrder',
    'model-step:1',
    'tool-call-start:refund',
    'tool-call-end:refund',
    'model-step:2',
    'run-complete',
  ];
  for (const boundary of boundaries) {
    crashCase(`sweep: kill after ${boundary} (retrySafe)`, {}, async (c) => {
      expectKilled(await c.run('retrySafe', `after:${boundary}`));
      const done = expectOutcome(await c.run('retrySafe', 'none'), 'completed');
      expect(done.text).toBe(FINAL_TEXT);
      return { status: 'completed', executions: 1, requests: 1 };
    });
  }

  // Kills from outside, aimed at appends in progress (the child announces each append as it begins; the
  // test SIGKILLs it 0-5 ms later): some land before the commit, some inside it, some just after.
  const aims = [
    { nth: 1, delayMs: 0 },
    { nth: 2, delayMs: 0 },
    { nth: 2, delayMs: 2 },
    { nth: 3, delayMs: 1 },
    { nth: 1, delayMs: 5 },
    { nth: 2, delayMs: 0 },
    { nth: 3, delayMs: 3 },
    { nth: 4, delayMs: 0 },
  ];
  crashCase(`kills from outside aimed inside appends (${aims.length} children, retrySafe)`, {}, async (c) => {
    for (const aim of aims) {
      const end = await c.run('retrySafe', 'announce-appends', { killInsideAppend: aim });
      // A child whose run finished before the aimed kill completes; nothing else is acceptable.
      if (!end.killed) expect(expectOutcome(end, 'completed').text).toBe(FINAL_TEXT);
    }
    expect(expectOutcome(await c.run('retrySafe', 'none'), 'completed').text).toBe(FINAL_TEXT);
    // Timing decides whether a lookup or refund request was cut off and sent again; never a second refund.
    return { status: 'completed', executions: 1, requests: [1, aims.length + 1], lookups: [1, aims.length + 1], modelCalls: 'no-repeats' };
  });

  crashCase('two processes at once on one run', {}, async (c) => {
    const pause = c.service.pauseNext();
    const first = c.start('plain', 'none');
    await inside(pause, first); // the first child is inside its refund call, holding the run
    const second = expectOutcome(await c.run('plain', 'none'), 'busy');
    if (target.name === 'pglite') {
      expect(second.error.name).toBe('DataDirLockedError');
      expect(second.error.holder?.pid).toBe(first.pid);
      expect(second.error.message).toContain(`process ${first.pid}`);
    } else {
      expect(second.error.name).toBe('RunBusyError');
      expect(second.error.message).toContain(c.runId);
    }
    expect(c.service.stats()).toMatchObject({ requests: 1, executions: 0 });
    pause.release();
    expect(expectOutcome(await first.ended, 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('holder SIGKILLed from outside mid-call, immediate restart is not refused (retrySafe)', {}, async (c) => {
    const pause = c.service.pauseNext();
    const first = c.start('retrySafe', 'none');
    await inside(pause, first);
    process.kill(first.pid, 'SIGKILL');
    expectKilled(await first.ended);
    pause.release(); // the service executes the refund the dead child asked for
    await pause.settled;
    expect(c.service.stats()).toMatchObject({ requests: 1, executions: 1 });
    expect(expectOutcome(await c.run('retrySafe', 'none'), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 2 };
  });

  // streamDurable: the same agent streamed. A step's calls reach the tools only once the step is journaled.
  const stream = { mode: 'stream' } as const;

  crashCase('stream: kill inside the refund step\u2019s stream as its call began: nothing refunded; the restart asks again, refunds once', {}, async (c) => {
    expectKilled(await c.run('plain', 'mid-stream-before-call:1', stream));
    expect(c.service.stats()).toMatchObject({ lookups: 1, requests: 0 });
    expect(expectOutcome(await c.run('plain', 'none', stream), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1, modelCalls: 'no-repeats' };
  });

  crashCase('stream: kill after the refund call came out of the stream, before its step finished: nothing refunded; refunds once', {}, async (c) => {
    expectKilled(await c.run('plain', 'mid-stream-after-call:1', stream));
    // The call had arrived; its step was not journaled, so it never reached the tool.
    expect(c.service.stats()).toMatchObject({ lookups: 1, requests: 0 });
    expect((await readRun(c.access, c.runId)).events.filter((e) => e.type === 'model-step').map((e) => e.step)).toEqual([0]);
    expect(expectOutcome(await c.run('plain', 'none', stream), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1, modelCalls: 'no-repeats' };
  });

  crashCase('stream: kill after the refund step was journaled, before the refund ran: the restart replays the call, refunds once', {}, async (c) => {
    expectKilled(await c.run('plain', 'after:model-step:1', stream));
    expect(c.service.stats()).toMatchObject({ lookups: 1, requests: 0 });
    const done = expectOutcome(await c.run('plain', 'none', stream), 'completed');
    expect(done).toMatchObject({ text: FINAL_TEXT, replayedSteps: 2 });
    return { status: 'completed', executions: 1, requests: 1 };
  });

  crashCase('stream: kill inside refund after the service answered: blocked, never sent again', {}, async (c) => {
    expectKilled(await c.run('plain', 'in-refund-after-response', stream));
    expect(c.service.stats().executions).toBe(1);
    expect(expectOutcome(await c.run('plain', 'none', stream), 'blocked').error).toMatchObject({ name: 'SideEffectRetryBlockedError', toolName: 'refund' });
    expect(c.service.stats()).toMatchObject({ requests: 1, executions: 1 });
    return { status: 'blocked', executions: 1, requests: 1 };
  });

  crashCase('stream: kill after the refund ended; the restart streams the answer and never refunds again', {}, async (c) => {
    expectKilled(await c.run('retrySafe', 'after:tool-call-end:refund', stream));
    expect(c.service.stats()).toMatchObject({ requests: 1, executions: 1 });
    expect(expectOutcome(await c.run('retrySafe', 'none', stream), 'completed').text).toBe(FINAL_TEXT);
    return { status: 'completed', executions: 1, requests: 1 };
  });
});

it(
  'control group (no GNL): plain generateText rerun from the top after a kill after the refund refunds twice',
  async () => {
    const started = performance.now();
    const service = await startRefundService();
    const modelLog = modelLogFile();
    const config = { journal: 'none', runId: 'control', scenario: 'control', serviceUrl: service.url, modelLog } as const;
    try {
      const killed = await runAgent({ ...config, crashPoint: 'in-refund-after-response' });
      expectKilled(killed);
      expect(service.stats().executions).toBe(1);
      const rerun = await runAgent({ ...config, crashPoint: 'none' });
      expect(expectOutcome(rerun, 'completed').text).toBe(FINAL_TEXT);
      const stats = service.stats();
      // The seed's expectation for group A, by the service's own count.
      expect(stats.executions).toBe(2);
      expect(stats.executionsByOrder[ORDER_ID]).toBe(2);
      expect(stats.lookups).toBe(2);
      // And every model step before the kill was paid for twice.
      expect(modelCallsByStep(modelLog)).toEqual({ 0: 2, 1: 2, 2: 1 });
      rows.push({
        journal: 'none',
        case: 'CONTROL: plain generateText rerun from the top',
        children: 2,
        kills: 1,
        requests: stats.requests,
        executions: stats.executions,
        distinctKeys: stats.distinctKeys,
        status: 'n/a',
        seconds: (performance.now() - started) / 1000,
      });
    } finally {
      await service.close();
    }
  },
  CASE_TIMEOUT_MS,
);
