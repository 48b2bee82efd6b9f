/**
 * `--wait`: stay until the run settles (waits for people, is blocked, completes, fails, is canceled,
 * or is found diverged), printing its events as they are recorded.
 *
 * Who executes it depends on the journal. On Postgres, executors elsewhere do (`npm run worker`, the
 * Studio's server); this process only follows the journal and the run queue, and says so if nobody
 * claims the run for a while. On the embedded journal no other process can open the data folder while
 * this one holds it, so this process is the executor: it runs the executor layer's Executor (sole on
 * the folder) until the run settles. That executor also takes up any other run left runnable in the
 * folder (by a Studio that stopped); when this run settles those are stopped at their next step
 * boundary and given back, and the Studio continues them when it next starts.
 */
import { CrashPointStore } from '@/lib/demo';
import { type ExecutorEvent, Executor, type QueueEntry, queueEntry } from '@/lib/executor';
import { RunState, type RunSummary, waitingFor } from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';
import { clean } from './format';
import { EXIT, CliError } from './failures';
import type { CliSession } from './session';
import { TimelineWriter } from './timeline';

const POLL_MS = 100;
const NOBODY_CLAIMS_AFTER_MS = 5_000;

export interface WaitOptions {
  runId: string;
  /** Print events after this sequence number (the events already shown or known). */
  afterSeq: number;
  /** Give up after this long (the run goes on); default: no limit. */
  timeoutMs?: number;
  /** Print events as they come (human output). */
  follow: boolean;
}

export interface Settled {
  run: RunSummary;
  queue: QueueEntry | undefined;
  /** Who executed it here (embedded journal), if this process did. */
  executedHere: boolean;
}

/**
 * Nobody executes it and nothing will until something happens: a person decides, or, for a workflow
 * run waiting (status waiting), its sleep ends or an event comes. A workflow waiting for its children is
 * not settled while they run (here, on the embedded journal) and will wake it; it is once every open
 * child waits for a person (an approval, a tool result, a blocked side effect).
 */
function settled(entry: QueueEntry | undefined, state: RunState | undefined, childrenWaitForPeople: boolean): boolean {
  if (!entry) return true;
  if (entry.leaseOwner !== null) return false;
  if (state?.status === 'waiting') {
    if (waitingFor(state).some((wait) => wait.kind === 'children')) return childrenWaitForPeople;
    // Woken (an event came, a resume was asked) is not settled: only a wait with nothing due soon is.
    return !entry.runnable || (entry.notBefore !== null && entry.notBefore.getTime() > Date.now() + WOKEN_SOON_MS);
  }
  return !entry.runnable;
}

const FOR_PEOPLE = new Set(['waiting-approval', 'waiting-tool-result', 'blocked']);

/** At least one child of the run's children waits is open, and every open one waits for a person. */
async function childrenWaitForPeople(storage: Storage, state: RunState): Promise<boolean> {
  const open: string[] = [];
  for (const wait of waitingFor(state)) {
    if (wait.kind !== 'children') continue;
    for (const runId of wait.runIds) {
      const status = (await storage.runs.getRun(runId))?.status;
      if (status !== 'completed' && status !== 'failed' && status !== 'canceled') open.push(status ?? 'not started');
    }
  }
  return open.length > 0 && open.every((status) => FOR_PEOPLE.has(status));
}

/** A waiting run due within this long is followed rather than left (its timer is about to wake it). */
const WOKEN_SOON_MS = 2_000;

export async function waitUntilSettled(session: CliSession, options: WaitOptions): Promise<Settled> {
  const storage = session.storage();
  // Nobody else can open a single-process journal while this process holds it: it executes the run itself.
  const executor = storage.capabilities.multiProcess ? undefined : startLocalExecutor(session, storage);
  const stopOnSignal = () => {
    session.note(
      executor
        ? 'Interrupted: stopping the run at its next step boundary; it stays runnable (the Studio, or gnl resume --by <you> --wait, continues it)…'
        : 'Stopped following; the run goes on in its executor.',
    );
    void (executor?.stop() ?? Promise.resolve()).finally(() => session.exit(130));
  };
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const writer = new TimelineWriter(session.maxWidth);
  const started = Date.now();
  let afterSeq = options.afterSeq;
  let hinted = false;
  const printNew = async () => {
    const events = await storage.runs.events(options.runId, { afterSeq });
    for (const event of events) {
      if (options.follow) session.line(...writer.lines(event));
      afterSeq = event.seq;
    }
  };
  try {
    for (;;) {
      await printNew();
      const entry = await queueEntry(options.runId, { storage });
      const summary = await storage.runs.getRun(options.runId);
      const state = summary?.status === 'waiting' ? new RunState(await storage.runs.events(options.runId)) : undefined;
      if (settled(entry, state, state ? await childrenWaitForPeople(storage, state) : false)) {
        await printNew();
        const run = await storage.runs.getRun(options.runId);
        if (!run) throw new CliError(`Run "${options.runId}" disappeared from the journal while waiting.`, EXIT.unexpected);
        return { run, queue: entry, executedHere: executor !== undefined };
      }
      const waited = Date.now() - started;
      if (options.timeoutMs !== undefined && waited >= options.timeoutMs) {
        throw new CliError(
          `gave up waiting after ${Math.round(waited / 1000)} s; run "${options.runId}" goes on (${entry?.leaseOwner ? `executing on ${entry.leaseOwner}` : 'queued'}). Follow it with gnl show.`,
          EXIT.timeout,
        );
      }
      if (!executor && !hinted && waited > NOBODY_CLAIMS_AFTER_MS && entry && !entry.leaseOwner) {
        hinted = true;
        session.note(`Nobody has claimed run "${clean(options.runId)}" yet: is a worker (npm run worker) or the Studio running on this database?`);
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } finally {
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
    await executor?.stop();
  }
}

function startLocalExecutor(session: CliSession, storage: Storage): Executor {
  return new Executor({
    storage,
    registry: session.registry,
    // The crash point a run was started with (gnl start --crash-at) is armed here too.
    aroundInvocation: new CrashPointStore(storage).aroundInvocation,
    pollMs: POLL_MS,
    // A wait that ends on a suspension announces it to the webhooks set in the Studio too.
    webhookDirectory: true,
    onEvent: (event: ExecutorEvent) => {
      if (event.type === 'error') session.note(`executor: ${event.where}: ${event.error}`);
    },
  }).start();
}
