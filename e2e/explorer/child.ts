/**
 * The explorer's child process, precompiled by bundle.ts into one .mjs file. It loads every module
 * (and, with EXPLORER_DATABASE_URL, connects its Postgres pool) BEFORE it is given work, says `ready`
 * on its IPC channel and waits for one RunCommand: apply the operator's decisions through the journal's
 * operator API, run the scenario with runDurable on the real journal, and SIGKILL itself at boundary
 * `killAt` (a real kill: no finally, no flush, no release). Every boundary passed and every REAL model
 * call is appended to the schedule log with writeSync first, so the log survives the kill.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { stepCountIs } from 'ai';
import { type Journal, RunBusyError, runDurable, SideEffectRetryBlockedError, ToolCallFailedError } from '@/lib/durable';
import { PostgresStorage } from '@/lib/durable/storage/postgres-storage';
import { scriptedModel } from '@/tests/support/scripted-model';
import { boundaryJournal } from './boundary-journal';
import { type ChildMessage, EVENTS_SQL, type JournalRead, type LogEntry, RUN_SQL, type RunCommand, type RunOutcome } from './protocol';
import { scenarioNamed, scenarioTools, scriptStep } from './scenarios';

const loadStarted = Number(process.env.EXPLORER_SPAWNED_AT ?? Date.now());
const OPERATOR = 'explorer-operator';

function send(message: ChildMessage): Promise<void> {
  return new Promise((resolve, reject) => process.send?.(message, undefined, {}, (error) => (error ? reject(error) : resolve())));
}

/** A Postgres pool opened while waiting for work (the database is known at spawn time). */
const warmPostgres = process.env.EXPLORER_DATABASE_URL ? new PostgresStorage({ connectionString: process.env.EXPLORER_DATABASE_URL, max: 2 }) : undefined;
if (warmPostgres) await warmPostgres.database();

interface Opened {
  journal: Journal;
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
      query: async (sql, params) => (await pglite.query<Record<string, unknown>>(sql, params)).rows,
      close: () => storage.close(),
    };
  }
  // No close on Postgres: runDurable released the run's hold, and the exit closes the sockets.
  if (warmPostgres && command.journal.databaseUrl === process.env.EXPLORER_DATABASE_URL) return { journal: warmPostgres.runs, close: async () => {} };
  const storage = new PostgresStorage({ connectionString: command.journal.databaseUrl, max: 2 });
  await storage.database();
  return { journal: storage.runs, close: async () => {} };
}

async function applyDecisions(journal: Journal, command: RunCommand): Promise<void> {
  for (const decision of command.decisions) {
    const base = { runId: command.runId, toolCallId: decision.toolCallId, by: OPERATOR, reason: 'explorer: the operator looked at the outside service' };
    if (decision.kind === 'approve') await journal.approve(base);
    else if (decision.outcome === 'done') await journal.resolveSideEffect({ ...base, outcome: 'done', output: decision.output });
    else await journal.resolveSideEffect({ ...base, outcome: 'not-done' });
  }
}

type Answer = { result: RunOutcome; boundaries: number; openMs: number; journal?: JournalRead };

async function readJournal(opened: Opened, runId: string): Promise<JournalRead | undefined> {
  if (!opened.query) return undefined;
  const events = (await opened.query(EVENTS_SQL, [runId])) as JournalRead['events'];
  const run = (await opened.query(RUN_SQL, [runId]))[0] as { status: string; last_seq: number } | undefined;
  return { events, run: run && { status: run.status, lastSeq: run.last_seq } };
}

async function run(command: RunCommand): Promise<Answer> {
  const received = performance.now();
  const log = openSync(command.logFile, 'a');
  const write = (line: LogEntry) => writeSync(log, `${JSON.stringify({ pid: process.pid, ...line })}\n`);
  let boundaries = 0;
  const boundary = (label: string, recordedSteps?: number[]) => {
    write({ kind: 'boundary', label, ...(recordedSteps?.length ? { recordedSteps } : {}) });
    if (boundaries === command.killAt) process.kill(process.pid, 'SIGKILL');
    boundaries += 1;
  };
  write({ kind: 'start' });
  const scenario = scenarioNamed(command.scenario);
  const opened = await openJournal(command);
  try {
    await applyDecisions(opened.journal, command);
    const openMs = performance.now() - received;
    const journal = boundaryJournal(opened.journal, (label, events) =>
      boundary(label, label.startsWith('after:') ? events.flatMap((e) => (e.type === 'model-step' ? [e.step] : [])) : undefined),
    );
    const model = scriptedModel((step) => {
      write({ kind: 'model', step });
      return scriptStep(scenario, step);
    });
    const tools = scenarioTools(scenario, command.serviceUrl, (toolName) => boundary(`in-execute:${toolName}`));
    const result = await outcomeOf(() =>
      runDurable({ runId: command.runId, journal, model: model.model, tools, stopWhen: stepCountIs(10), prompt: `explore ${scenario.name}` }),
    );
    const settled = result.outcome === 'completed' || result.outcome === 'canceled';
    const read = command.readJournal && settled ? await readJournal(opened, command.runId) : undefined;
    return { result, boundaries, openMs, ...(read ? { journal: read } : {}) };
  } finally {
    closeSync(log);
    await Promise.race([opened.close(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }
}

async function outcomeOf(invoke: () => ReturnType<typeof runDurable>): Promise<RunOutcome> {
  try {
    const result = await invoke();
    if (result.status === 'completed') return { outcome: 'completed', text: result.text };
    if (result.status === 'canceled') return { outcome: 'canceled' };
    return { outcome: 'waiting-approval', pending: result.pending.map(({ toolCallId, toolName }) => ({ toolCallId, toolName })) };
  } catch (error) {
    if (SideEffectRetryBlockedError.isInstance(error)) {
      const { toolCallId, toolName, idempotencyKey } = error;
      return { outcome: 'blocked', toolCallId, toolName, idempotencyKey };
    }
    if (ToolCallFailedError.isInstance(error)) return { outcome: 'failed', message: error.message };
    if (RunBusyError.isInstance(error)) return { outcome: 'busy', message: error.message };
    throw error;
  }
}

// The explorer is gone (stopped, or crashed): a waiting child has nothing to wait for.
process.once('disconnect', () => process.exit(0));
process.once('message', (command: RunCommand) => {
  run(command)
    .catch((error: unknown) => ({
      result: {
        outcome: 'error' as const,
        name: error instanceof Error ? error.name : 'Error',
        message: error instanceof Error ? error.message : String(error),
        stack: error instanceof Error ? error.stack : undefined,
      },
      boundaries: 0,
      openMs: 0,
    }))
    .then((answer) => send({ type: 'outcome', ...answer }))
    .finally(() => process.exit(0));
});
await send({ type: 'ready', loadMs: Date.now() - loadStarted });
