/**
 * The explorer's child process, precompiled by bundle.ts into one .mjs file. It loads every module
 * (and, with EXPLORER_DATABASE_URL, connects its Postgres pools) BEFORE it is given work, says `ready`
 * on its IPC channel and waits for RunCommands, one at a time (a warm child of the pool takes commands of
 * other schedules after its outcome, as a worker takes other runs: pool.ts). For each: apply the operator's decisions through the journal's
 * operator API, run the scenario with runDurable (or streamDurable) on the real journal and the real OpenAI provider
 * (talking to the schedule's model server), and at its boundaries: send the operator requests the
 * schedule races there (a second Postgres connection's operator API; PGlite's own), terminate its own
 * hold session inside a side effect (Postgres) and wait there while the explorer resumes the run in a
 * rival process, make the operator's migrations and forks (version-ops.ts; an agent scenario runs as its
 * registered agent, on the version runVersion picks), and SIGKILL itself at boundary `killAt` (a real kill: no finally, no flush,
 * no release). A workflow scenario runs with runWorkflow instead (workflow-driver.ts: its child runs on the
 * same journal, their boundaries labelled `child/…`), and its event is sent at the boundaries the schedule says. Every boundary passed, every real HTTP request to the model, every policy answer and
 * operator request is appended to the schedule log with writeSync first, so the log survives the kill.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { createOpenAI } from '@ai-sdk/openai';
import { stepCountIs } from 'ai';
import postgres from 'postgres';
import { runAgent, streamAgent } from '@/lib/agents';
import {
  type Journal,
  type RecordedEvent,
  RunBusyError,
  RunDivergedError,
  RunState,
  runDurable,
  SideEffectElsewhereError,
  SideEffectRetryBlockedError,
  streamDurable,
} from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';
import { PostgresStorage } from '@/lib/durable/storage/postgres-storage';
import { runVersion } from '@/lib/executor';
import { boundaryJournal } from './boundary-journal';
import type { OperatorAction } from './faults';
import { terminateOwnHoldSessions } from './own-sessions';
import { type ChildMessage, EVENTS_SQL, type JournalRead, type LogEntry, type ParentMessage, RUN_SQL, type RunCommand, type RunOutcome } from './protocol';
import { type Scenario, scenarioNamed, scenarioOptions, scenarioTools } from './scenarios';
import { makeVersionOp, type VersionOpContext } from './version-ops';
import { agentName, explorerRegistry, OPERATOR } from './versions';
import { driveWorkflow } from './workflow-driver';
import { explorerWorkflows } from './workflow-scenarios';

const loadStarted = Number(process.env.EXPLORER_SPAWNED_AT ?? Date.now());
const OPERATOR_TIMEOUT_MS = 5_000;

/**
 * Whether this child may take another schedule's command (ChildPool): every journal given back, no
 * command ended in an unexpected error, and no work of a command left going (an operator request or a
 * rival past its timeout, a write after its end).
 */
let reusable = true;

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())));
}

/** Postgres pools opened while waiting for work (the database is known at spawn time): the run's, the operator's, the fault's. */
const warmUrl = process.env.EXPLORER_DATABASE_URL;
const warmPostgres = warmUrl ? new PostgresStorage({ connectionString: warmUrl, max: 2 }) : undefined;
const warmOperator = warmUrl ? new PostgresStorage({ connectionString: warmUrl, max: 1 }) : undefined;
// Exempt from the database's idle_session_timeout (`-c` in options: postgres.js drops a falsy startup parameter such as 0).
const warmSql = warmUrl ? postgres(warmUrl, { max: 1, onnotice: () => {}, connection: { options: '-c idle_session_timeout=0' } }) : undefined;
if (warmPostgres && warmOperator) await Promise.all([warmPostgres.database(), warmOperator.database()]);

interface Opened {
  journal: Journal;
  /** The storages of `journal` and `operator` (migrateRun and forkRun take a storage: its journal and its run queue). */
  storage: Storage;
  operatorStorage: Storage;
  /** The operator API for races: a second connection (Postgres), the same storage (PGlite serves one process). */
  operator: Journal;
  /** SQL on the journal's own tables (PGlite only: the explorer reads Postgres itself). */
  query?: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

async function openJournal(command: RunCommand): Promise<Opened> {
  if (command.journal.kind === 'pglite') {
    // Loaded only by PGlite children (a chunk of its own in the bundle): Postgres children skip its load.
    const { PGliteStorage } = await import('@/lib/durable/storage/pglite-storage');
    const storage = new PGliteStorage({ dataDir: command.journal.dataDir });
    await storage.database();
    const pglite = await storage.pglite();
    return {
      journal: storage.runs,
      operator: storage.runs,
      storage,
      operatorStorage: storage,
      query: async (sql, params) => (await pglite.query<Record<string, unknown>>(sql, params)).rows,
      close: () => storage.close(),
    };
  }
  // The warm pools stay open for this child's next command (runDurable released the run's hold).
  if (warmPostgres && warmOperator && command.journal.databaseUrl === warmUrl)
    return { journal: warmPostgres.runs, operator: warmOperator.runs, storage: warmPostgres, operatorStorage: warmOperator, close: async () => {} };
  const storage = new PostgresStorage({ connectionString: command.journal.databaseUrl, max: 2 });
  const operator = new PostgresStorage({ connectionString: command.journal.databaseUrl, max: 1 });
  await Promise.all([storage.database(), operator.database()]);
  return {
    journal: storage.runs,
    operator: operator.runs,
    storage,
    operatorStorage: operator,
    close: async () => {
      await Promise.all([storage.close(), operator.close()]);
    },
  };
}

type Write = (line: LogEntry) => void;

/** Runs one operator request and logs how the journal answered it; a refusal is an answer, not a failure. */
async function operatorRequest(
  write: Write,
  entry: { action: OperatorAction | 'provide' | 'event'; toolCallId?: string; eventId?: string; outcome?: string; race: boolean },
  request: () => Promise<unknown>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      request(),
      new Promise((_, reject) => {
        timer = setTimeout(() => {
          // The request goes on (it may commit later): this child is not given another schedule's command.
          reusable = false;
          reject(Object.assign(new Error(`no answer in ${OPERATOR_TIMEOUT_MS} ms`), { name: 'Timeout' }));
        }, OPERATOR_TIMEOUT_MS);
      }),
    ]);
    const recorded = (answer as { recorded?: unknown } | undefined)?.recorded;
    write({ kind: 'operator', ...entry, result: 'accepted', ...(typeof recorded === 'boolean' ? { recorded } : {}) });
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    write({
      kind: 'operator',
      ...entry,
      result: name === 'Timeout' ? 'skipped' : 'refused',
      detail: `${name}: ${error instanceof Error ? error.message : String(error)}`,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Sends the workflow scenario's event through the operator API (`race`: at a boundary of the live run). */
function sendScenarioEvent(journal: Journal, command: RunCommand, write: Write, race: boolean): Promise<void> {
  const event = scenarioNamed(command.scenario).workflow?.event;
  if (!event) return Promise.resolve(write({ kind: 'operator', action: 'event', result: 'skipped', detail: 'the scenario waits for no event', race }));
  return operatorRequest(write, { action: 'event', eventId: event.eventId, race }, () =>
    journal.sendEvent({ runId: command.runId, name: event.name, eventId: event.eventId, payload: event.payload, by: OPERATOR }),
  );
}

async function applyDecisions(journal: Journal, command: RunCommand, write: Write): Promise<void> {
  for (const decision of command.decisions) {
    if (decision.kind === 'event') {
      await sendScenarioEvent(journal, command, write, false);
      continue;
    }
    const base = { runId: command.runId, toolCallId: decision.toolCallId, by: OPERATOR, reason: 'explorer: the operator looked at the outside service' };
    const entry = { toolCallId: decision.toolCallId, race: false };
    if (decision.kind === 'approve') await operatorRequest(write, { action: 'approve', ...entry }, () => journal.approve(base));
    else if (decision.kind === 'provide') {
      const provide = (journal as { provideToolResult?: (r: unknown) => Promise<unknown> }).provideToolResult;
      await operatorRequest(write, { action: 'provide', ...entry }, async () => {
        if (!provide) throw new Error('journal.provideToolResult is not on the Journal port');
        return provide.call(journal, { runId: command.runId, toolCallId: decision.toolCallId, output: decision.output, by: OPERATOR });
      });
    } else if (decision.outcome === 'done') {
      await operatorRequest(write, { action: 'resolve', ...entry, outcome: 'done' }, () =>
        journal.resolveSideEffect({ ...base, outcome: 'done', output: decision.output }),
      );
    } else
      await operatorRequest(write, { action: 'resolve', ...entry, outcome: 'not-done' }, () => journal.resolveSideEffect({ ...base, outcome: 'not-done' }));
  }
}

/** What an operator racing the run acts on: the latest undecided approval, or the latest started side effect without an end. */
function raceTarget(seen: readonly RecordedEvent[], action: OperatorAction): RecordedEvent | undefined {
  const decided = new Set(seen.flatMap((e) => (e.type === 'tool-approval-response' ? [e.toolCallId] : [])));
  const ended = new Set(seen.flatMap((e) => (e.type === 'tool-call-end' || e.type === 'side-effect-resolution' ? [e.toolCallId] : [])));
  for (let i = seen.length - 1; i >= 0; i--) {
    const e = seen[i] as RecordedEvent;
    if ((action === 'approve' || action === 'reject') && e.type === 'tool-approval-request' && !decided.has(e.toolCallId)) return e;
    if (action === 'resolve' && e.type === 'tool-call-start' && !ended.has(e.toolCallId)) return e;
  }
  return undefined;
}

async function race(args: {
  action: OperatorAction;
  command: RunCommand;
  scenario: Scenario;
  operator: Journal;
  seen: readonly RecordedEvent[];
  write: Write;
}) {
  const { action, command, scenario, operator, seen, write } = args;
  const base = { runId: command.runId, by: OPERATOR, reason: 'explorer: an operator racing the run' };
  if (action === 'cancel') return operatorRequest(write, { action, race: true }, () => operator.cancel(base));
  if (action === 'resume') return operatorRequest(write, { action, race: true }, () => operator.requestResume(base));
  const target = raceTarget(seen, action);
  if (!target || !('toolCallId' in target)) return write({ kind: 'operator', action, result: 'skipped', detail: 'nothing to act on', race: true });
  const toolCallId = String((target as { toolCallId: string }).toolCallId);
  if (action === 'approve') return operatorRequest(write, { action, toolCallId, race: true }, () => operator.approve({ ...base, toolCallId }));
  if (action === 'reject') return operatorRequest(write, { action, toolCallId, race: true }, () => operator.reject({ ...base, toolCallId }));
  // resolve: as an operator would, from the outside service's own answer for the key.
  const start = target as Extract<RecordedEvent, { type: 'tool-call-start' }>;
  const kind = scenario.sideEffects[start.toolName];
  const res = kind ? await fetch(`${command.serviceUrl}/op/${kind}/by-key/${encodeURIComponent(start.idempotencyKey)}`) : undefined;
  if (res?.ok) {
    const output = (await res.json()) as unknown;
    return operatorRequest(write, { action, toolCallId, outcome: 'done', race: true }, () =>
      operator.resolveSideEffect({ ...base, toolCallId, outcome: 'done', output }),
    );
  }
  return operatorRequest(write, { action, toolCallId, outcome: 'not-done', race: true }, () =>
    operator.resolveSideEffect({ ...base, toolCallId, outcome: 'not-done' }),
  );
}

type Answer = { result: RunOutcome; boundaries: number; openMs: number; journal?: JournalRead; others?: Record<string, JournalRead> };

async function readJournal(opened: Opened, runId: string): Promise<JournalRead | undefined> {
  if (!opened.query) return undefined;
  const events = (await opened.query(EVENTS_SQL, [runId])) as JournalRead['events'];
  const run = (await opened.query(RUN_SQL, [runId]))[0] as { status: string; last_seq: number } | undefined;
  return { events, run: run && { status: run.status, lastSeq: run.last_seq } };
}

async function run(command: RunCommand): Promise<Answer> {
  const received = performance.now();
  const log = openSync(command.logFile, 'a');
  let logOpen = true;
  // A write after this command ended (late work) must not land in whatever file reuses the descriptor: dropped, and the child retired.
  const write: Write = (line) => {
    if (!logOpen) {
      reusable = false;
      return;
    }
    writeSync(log, `${JSON.stringify({ pid: process.pid, run: command.runId, ...line })}\n`);
  };
  write({ kind: 'start' });
  const scenario = scenarioNamed(command.scenario);
  const opened = await openJournal(command);
  let boundaries = 0;
  let terminated = false;
  const seen: RecordedEvent[] = [];
  /** The operator's migrations and forks need the agent's registry, built below with the tools that call `boundary`. */
  let versionOps: ((storage: Storage) => VersionOpContext) | undefined;
  const boundary = async (label: string, recordedSteps?: number[], childRun?: string) => {
    write({ kind: 'boundary', label, ...(recordedSteps?.length ? { recordedSteps } : {}), ...(childRun ? { childRun } : {}) });
    const index = boundaries;
    boundaries += 1;
    for (const r of command.races.filter((x) => x.boundary === index))
      await race({ action: r.action, command, scenario, operator: opened.operator, seen, write });
    for (const _ of (command.eventSends ?? []).filter((x) => x.boundary === index)) await sendScenarioEvent(opened.operator, command, write, true);
    for (const op of (command.versionOps ?? []).filter((x) => x.boundary === index))
      if (versionOps) await makeVersionOp(op, versionOps(opened.operatorStorage), true);
    if (command.terminateHold && !terminated && label.startsWith('in-execute:') && warmSql) {
      terminated = true;
      write({ kind: 'terminated', sessions: await terminateOwnHoldSessions(warmSql, Number(new URL(warmUrl as string).port || 5432)) });
      // The lock went with the session: the explorer resumes the run elsewhere while this execute waits.
      await rivalDone();
    }
    if (index === command.killAt) process.kill(process.pid, 'SIGKILL');
  };
  try {
    const journal = boundaryJournal(opened.journal, async (label, events, loaded) => {
      if (loaded) seen.push(...loaded);
      // What was appended, as far as a racing operator needs it (types and fields, no seq).
      if (label.startsWith('after:')) seen.push(...(events as RecordedEvent[]));
      await boundary(label, label.startsWith('after:') ? events.flatMap((e) => (e.type === 'model-step' ? [e.step] : [])) : undefined);
    });
    const provider = createOpenAI({
      baseURL: command.modelUrl,
      apiKey: 'x',
      fetch: async (input, init) => {
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { messages?: { role: string; content?: unknown }[] }) : undefined;
        const system = body?.messages?.find((m) => m.role === 'system')?.content;
        write({ kind: 'model', step: (body?.messages ?? []).filter((m) => m.role === 'assistant').length, ...(typeof system === 'string' ? { system } : {}) });
        return fetch(input, init);
      },
    });
    const tools = scenarioTools(
      scenario,
      command.serviceUrl,
      (toolName) => boundary(`in-execute:${toolName}`),
      (toolName) => write({ kind: 'perform', toolName }),
    );
    const model = provider.chat('explorer-model');
    const versions = command.agent ? explorerRegistry({ scenario: scenario.name, model, tools }) : undefined;
    if (versions) versionOps = (storage) => ({ runId: command.runId, storage, ...versions, write });
    await applyDecisions(opened.journal, command, write);
    for (const op of (command.versionOps ?? []).filter((x) => x.boundary === 'before'))
      if (versionOps) await makeVersionOp(op, versionOps(opened.storage), false);
    const openMs = performance.now() - received;
    const readAll = async (settled: boolean) => {
      if (!command.readJournal || !settled) return {};
      const read = await readJournal(opened, command.runId);
      const others: Record<string, JournalRead> = {};
      for (const runId of command.alsoRead ?? []) {
        const rows = await readJournal(opened, runId);
        if (rows) others[runId] = rows;
      }
      return { ...(read ? { journal: read } : {}), ...(command.alsoRead ? { others } : {}) };
    };
    if (command.mustExist && (await opened.journal.events(command.runId, { limit: 1 })).length === 0)
      return { result: { outcome: 'absent' }, boundaries, openMs, ...(await readAll(true)) };
    if (scenario.workflow) {
      // A workflow run and its children on the same journal: the children's boundaries are counted (and killed) too, labelled child/….
      const childJournal = boundaryJournal(opened.journal, (label, _events, _loaded, childRun) => boundary(`child/${label}`, undefined, childRun));
      const workflows = explorerWorkflows(
        command.serviceUrl,
        (step) => boundary(`in-execute:${step}`),
        (step) => write({ kind: 'perform', toolName: step }),
      );
      let result: RunOutcome;
      try {
        result = await driveWorkflow({ scenario, runId: command.runId, journal, childJournal, plain: opened.journal, workflows });
      } catch (error) {
        result = errorOutcome(error);
      }
      return { result, boundaries, openMs, ...(await readAll(result.outcome === 'completed' || result.outcome === 'canceled')) };
    }
    let invoke: () => ReturnType<typeof runDurable>;
    if (versions) {
      // As an executor invokes a run of a registered agent: on the version runVersion picks, with the recorded input.
      const recorded = await opened.journal.events(command.runId);
      const state = new RunState(recorded);
      const agent =
        recorded.length === 0
          ? versions.registry.getAgent(agentName(scenario.name))
          : (await runVersion({ registry: versions.registry, state, runId: command.runId })).agent;
      const prompt = typeof state.input?.prompt === 'string' ? state.input.prompt : `explore ${scenario.name}`;
      const agentOptions = { agent, runId: command.runId, input: { prompt }, journal };
      invoke = () => (command.stream ? streamAgent(agentOptions).durable : runAgent(agentOptions));
    } else {
      const options = scenarioOptions(scenario, {
        invocation: command.invocation,
        policy: (toolCallId, decision) => write({ kind: 'policy', toolCallId, decision }),
      });
      const runOptions = {
        runId: command.runId,
        journal,
        model,
        tools,
        stopWhen: stepCountIs(10),
        prompt: `explore ${scenario.name}`,
        ...options,
      } as Parameters<typeof runDurable>[0];
      invoke = () => (command.stream ? streamDurable(runOptions).durable : runDurable(runOptions));
    }
    const result = await outcomeOf(invoke);
    const stopped = result.outcome === 'failed' && result.name === 'SideEffectElsewhereError';
    return { result, boundaries, openMs, ...(await readAll(result.outcome === 'completed' || result.outcome === 'canceled' || stopped)) };
  } finally {
    logOpen = false;
    closeSync(log);
    // A journal not given back in time (a PGlite folder still held) makes this child unfit for another command.
    const closed = await Promise.race([opened.close().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref())]);
    if (!closed) reusable = false;
  }
}

/** Errors after which the run is failed and resumable: a tool threw, the provider failed past its retries, the hold was lost, an answer could not be journaled. */
const RESUMABLE = new Set(['ToolCallFailedError', 'HoldLostError', 'JournalDataError', 'RunEventLimitError', 'AI_RetryError', 'AI_APICallError']);

const CONNECTION_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNRESET', 'EPIPE', '57P01', '57P05']);

async function outcomeOf(invoke: () => ReturnType<typeof runDurable>): Promise<RunOutcome> {
  try {
    const result = (await invoke()) as { status: string; text?: string; pending?: { toolCallId: string; toolName: string }[] };
    if (result.status === 'completed') return { outcome: 'completed', text: result.text ?? '' };
    if (result.status === 'canceled') return { outcome: 'canceled' };
    const pending = (result.pending ?? []).map(({ toolCallId, toolName }) => ({ toolCallId, toolName }));
    if (result.status === 'waiting-tool-result') return { outcome: 'waiting-tool-result', pending };
    return { outcome: 'waiting-approval', pending };
  } catch (error) {
    return errorOutcome(error);
  }
}

/** How a run's invocation ended when it threw: blocked, busy, failed and resumable; anything else is thrown on. */
function errorOutcome(error: unknown): RunOutcome {
  if (SideEffectRetryBlockedError.isInstance(error)) {
    const { toolCallId, toolName, idempotencyKey } = error;
    return { outcome: 'blocked', toolCallId, toolName, idempotencyKey };
  }
  if (RunBusyError.isInstance(error)) return { outcome: 'busy', message: error.message };
  if (RunDivergedError.isInstance(error)) throw error;
  // A repeat of the job's work whose outcome is unknown in another run (related-effects.ts): failed, resumable once decided there.
  const elsewhere = SideEffectElsewhereError.isInstance(error)
    ? error
    : SideEffectElsewhereError.isInstance((error as { cause?: unknown })?.cause)
      ? (error as { cause: SideEffectElsewhereError }).cause
      : undefined;
  if (elsewhere) return { outcome: 'failed', name: elsewhere.name, message: elsewhere.message.slice(0, 500) };
  const name = error instanceof Error ? error.name : '';
  if (RESUMABLE.has(name)) return { outcome: 'failed', name, message: (error as Error).message.slice(0, 500) };
  // A connection the server ended (idle_session_timeout, a restart) surfacing as a driver error: the run is resumable, the explorer says what it was.
  const code = String((error as { code?: unknown }).code ?? '');
  if (CONNECTION_CODES.has(code)) {
    // Where it failed: postgres.js appends the caller's stack and names the statement.
    const where = `${String((error as { query?: string }).query ?? '').slice(0, 100)} ${String((error as Error).stack)
      .split('\n')
      .slice(1, 12)
      .join(' | ')}`;
    return { outcome: 'failed', name: 'ConnectionError', message: `${code}: ${(error as Error).message} (${where})`.slice(0, 2000) };
  }
  throw error;
}

const RIVAL_TIMEOUT_MS = 30_000;

/** Says hold-terminated and waits for the explorer's `continue` (the rival resume is over). */
function rivalDone(): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reusable = false; // the rival may still be running
      resolve();
    }, RIVAL_TIMEOUT_MS);
    const onMessage = (message: ParentMessage) => {
      if (message.type !== 'continue') return;
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve();
    };
    process.on('message', onMessage);
    void send({ type: 'hold-terminated' });
  });
}

// The explorer is gone (stopped, or crashed) or let this child go (ChildPool): nothing to wait for.
process.once('disconnect', () => process.exit(0));
// One command at a time; after its outcome the child waits for the next (the pool gives it commands of other schedules only).
process.on('message', (command: ParentMessage) => {
  if (command.type !== 'run') return; // `continue` is rivalDone's
  run(command)
    .catch((error: unknown) => {
      reusable = false;
      return {
        result: {
          outcome: 'error' as const,
          name: error instanceof Error ? error.name : 'Error',
          message: error instanceof Error ? error.message : String(error),
          stack: error instanceof Error ? error.stack : undefined,
        },
        boundaries: 0,
        openMs: 0,
      };
    })
    .then((answer) => send({ type: 'outcome', ...answer, reusable }))
    .catch(() => process.exit(1));
});
await send({ type: 'ready', loadMs: Date.now() - loadStarted });
