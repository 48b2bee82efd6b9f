/**
 * startRun: records a run in the journal, exactly as runAgent would start it (its `run-start` carries
 * the agent's name and version and the input), and enqueues it for an executor. Nothing executes here.
 *
 * Idempotent by runId: the same runId with the same input returns the existing run; with a different
 * input (or agent) it is refused with RunDivergedError naming each field, and nothing is written.
 */
import { randomUUID } from 'node:crypto';
import { type Agent, type AgentInput, AgentInputError, agentInputSchema, agentRunMemory } from '@/lib/agents';
import { DEFAULT_KEY_SCHEME, type Journal, RunBusyError, RunDivergedError, type RunInput, type RunSummary, readRunMemory } from '@/lib/durable';
import { type ExecutorContext, resolveContext } from './context';
import { startInputDifferences, startInputOf } from './start-input';

export interface StartRunOptions extends ExecutorContext {
  /** The agent, or the name it is registered under. */
  agent: string | Agent;
  /** Names the job (1 to 512 printable characters, taken in NFC; invisible characters refused: docs/limits.md). Default `<agent>:<uuid>`. */
  runId?: string;
  input: AgentInput;
  /** Who starts it (an operator's login, `token:<name>`): recorded in its run-start; a four-eyes approval rule keeps them from approving its calls. */
  by?: string;
}

export interface StartedRun {
  runId: string;
  agent: string;
  /** False when the run already existed with this input. */
  created: boolean;
  /** True when this call leased the new run to the executor that asked (Executor.start). */
  leased: boolean;
  run: RunSummary;
}

export function startRun(options: StartRunOptions): Promise<StartedRun> {
  return startAndEnqueue(options);
}

/**
 * startRun, optionally leasing the new run to an executor at once (so that no other claims it first),
 * or recording which run it restarts.
 */
export async function startAndEnqueue(
  options: StartRunOptions,
  extra: { leaseTo?: { owner: string; leaseMs: number }; restartOf?: NonNullable<RunInput['restartOf']>; parent?: NonNullable<RunInput['parent']> } = {},
): Promise<StartedRun> {
  const { leaseTo } = extra;
  const restartOf = extra.restartOf?.runId;
  const { journal, registry, queue, storage } = resolveContext(options);
  const input = parseInput(options);
  const agent = typeof options.agent === 'string' ? registry.getAgent(options.agent) : options.agent;
  // One spelling per job (docs/limits.md, "runIds"): the NFC form, or the id of a run recorded before the rule.
  const runId = await journal.runIdOf(options.runId ?? `${agent.name}:${randomUUID()}`);
  // An agent with memory (docs/memory.md): a new run's start records what it is given (the thread's last
  // messages and what recall finds) as runAgent's would, so its first invocation, on any executor, is
  // given that record; an existing run is compared by resource and thread only (its record is its own).
  const memory = agentRunMemory(agent, input, storage.memory);
  // Read first only when memory needs to know (a new run reads the store); else the create says whether it exists.
  let existing = memory ? await journal.getRun(runId) : undefined;
  const recordedMemory = memory
    ? existing
      ? { resource: memory.resource, thread: memory.thread, messages: [] }
      : await readRunMemory(memory, input, runId)
    : undefined;
  // A restart's run-start names the run it restarts: its side effects answer from that run's record (the door's related-effects).
  // Keyed by the scheme runDurable starts a run with (a recorded run keeps its own: startInputDifferences ignores it).
  const startInput: RunInput = {
    ...(await startInputOf(agent, input)),
    ...(recordedMemory ? { memory: recordedMemory } : {}),
    ...(extra.restartOf ? { restartOf: extra.restartOf } : {}),
    // A child run of a workflow names its parent and the wait it answers (lib/executor/workflows.ts).
    ...(extra.parent ? { parent: extra.parent } : {}),
    ...(DEFAULT_KEY_SCHEME !== 1 ? { keyScheme: DEFAULT_KEY_SCHEME } : {}),
  };

  const created = existing ? false : await create(journal, runId, startInput, options.by);
  // Not created: the run exists (its record read once to compare, if not above).
  if (!created) {
    existing ??= await journal.getRun(runId);
    const differences = existing ? startInputDifferences(existing.input, startInput) : [];
    if (differences.length > 0) throw new RunDivergedError({ runId, differences });
  }
  // A run created by an earlier call that died before enqueueing it is enqueued now.
  const enqueue = created || existing?.status === 'running';
  const leased = enqueue && (await queue.enqueue({ runId, agent: agent.name, restartOf, leaseTo: created ? leaseTo : undefined }));
  const run = await journal.getRun(runId);
  if (!run) throw new Error(`Run "${runId}" was created but cannot be read back.`);
  return { runId, agent: agent.name, created, leased: leased && created && leaseTo !== undefined, run };
}

function parseInput(options: StartRunOptions): AgentInput {
  const problems: string[] = [];
  const input = agentInputSchema.safeParse(options.input);
  if (!input.success) problems.push(...input.error.issues.map((i) => `input${i.path.length ? `.${i.path.join('.')}` : ''}: ${i.message}`));
  if (typeof options.agent !== 'string' && (typeof options.agent !== 'object' || options.agent === null)) problems.push('agent: an agent or its name');
  if (problems.length > 0) throw new AgentInputError({ what: 'startRun refused the request', problems });
  return input.data as AgentInput;
}

/** Writes the run's `run-start` (in one statement, or under the run's hold). False if another caller created it first. */
export async function create(journal: Journal, runId: string, input: RunInput, by?: string): Promise<boolean> {
  if (journal.createRun) return (await journal.createRun(runId, input, by !== undefined ? { by } : {})) !== undefined;
  const hold = await holdSoon(journal, runId);
  try {
    if ((await hold.load()).length > 0) return false;
    await hold.create(input, by !== undefined ? { by } : {});
    return true;
  } finally {
    await hold.release();
  }
}

/** Two starts of one new runId at once: the second waits for the first's hold (a moment) instead of failing. */
async function holdSoon(journal: Journal, runId: string): Promise<Awaited<ReturnType<Journal['hold']>>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await journal.hold(runId);
    } catch (error) {
      if (!RunBusyError.isInstance(error) || attempt >= 40) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
