/**
 * runDurable: generateText with a journal. Takes what generateText takes, plus runId and journal.
 * The whole agent loop is the AI SDK's own; GNL adds three things to it:
 *   recordingModel  — model steps are replayed from the journal or recorded as they happen;
 *   journaledTool   — tool calls are replayed or recorded, the start durable before execute;
 *   toolGate        — approvals and unknown side-effect outcomes decide what may run.
 * Calling again with the same runId replays what is recorded and continues at the first
 * unrecorded step; a completed run answers from its record (completed-answer.ts), the loop not run.
 * Nothing needed to continue is held in memory.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import {
  type GenerateTextResult,
  generateText,
  type LanguageModel,
  type ModelMessage,
  type OutputInterface as OutputSpec,
  type StopCondition,
  stepCountIs,
  type ToolSet,
} from 'ai';
import { JournalDataError, RunEventLimitError, SideEffectRetryBlockedError } from '../errors';
import { type AcceptChange, beginInvocation } from './begin-invocation';
import { eventLimitOption } from '../journal/event-limit';
import { withForkInstruction } from '../fork/fork-instruction';
import { errorInfo, type PendingItem, type RecordedEvent } from '../journal/events';
import { markJournaledFailure } from './journaled-failure';
import { answerFromRecord, completedDurableResult, recordCompletion } from './completed-answer';
import { isWholeRun, RunState } from '../projection/run-state';
import { InvocationTrace } from '../telemetry/tracing';
import { DEFAULT_KEY_SCHEME, KEY_SCHEMES, type KeyScheme } from '../identity/idempotency-key';
import type { Journal, RunHold } from '../journal/journal';
import { journaledTool, type ToolRetry } from '../tools/journaled-tool';
import { jobOf } from '../tools/job-lock';
import { hasRelatedRuns, relatedEffects } from '../tools/related-effects';
import { recordingModel } from '../model/recording-model';
import { PromptTail, promptTailAllowed, settledStep } from '../model/prompt-tail';
import type { ForkOrigin } from '../fork/fork-plan';
import { assertValidConversationId, assertValidSubject } from '../identity/run-id';
import { DEFAULT_RECORD_OUTCOME_WITHIN_MS, RunSession } from './run-session';
import { replayAwareTelemetry } from '../telemetry/replay-telemetry';
import { announceAnswer, type ReplayCallbacks, withoutCallbacks, withReplayedFlag } from './replay-callbacks';
import { resolveModel } from '../model/resolve-model';
import { buildRunInput, type RunInputSource } from './run-input';
import { toolGate } from '../tools/tool-gate';
import type { DurableResult, PendingApproval, PendingToolResult } from './durable-result';
import {
  APPEND_TURN_CALL,
  APPEND_TURN_TOOL,
  appendTurnTool,
  parseRunMemory,
  readRunMemory,
  type RunMemory,
  userTexts,
  withMemoryMessages,
} from '../memory/run-memory';
import { callThroughDoor } from '../tools/journaled-tool';

export type { DurableResult, PendingApproval, PendingToolResult } from './durable-result';

type GenerateTextOptions<TOOLS extends ToolSet> = Parameters<typeof generateText<TOOLS>>[0];

/** Default step limit when stopWhen is not given (generateText's own default is one step). */
export const DEFAULT_MAX_STEPS = 20;

type Callback<K extends keyof GenerateTextOptions<any>, TOOLS extends ToolSet> =
  NonNullable<GenerateTextOptions<TOOLS>[K]> extends (event: infer E) => infer R ? (event: Replayed<E>) => R : never;
type ReplayCallbackName = 'onStepFinish' | 'onStepEnd' | 'onFinish' | 'onEnd';
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type RunDurableOptions<TOOLS extends ToolSet> = DistributiveOmit<GenerateTextOptions<TOOLS>, ReplayCallbackName | 'output'> & {
  /** Structured output (`Output.object({ schema })`, …): on the completed result as `output`, parsed from the final step. */
  output?: OutputSpec<any, any, any>;
  /**
   * Called after each step, replayed ones included (`replayed: true` when the model's answer came from the journal),
   * on a run that is completed already too: each of its steps, `replayed: true`, from its record (replay-callbacks.ts).
   */
  onStepFinish?: Callback<'onStepFinish', TOOLS>;
  onStepEnd?: Callback<'onStepEnd', TOOLS>;
  /** Called when the loop ends; `replayed: true` when every step came from the journal (a completed run's later calls: always). */
  onFinish?: Callback<'onFinish', TOOLS>;
  onEnd?: Callback<'onEnd', TOOLS>;
  /**
   * Names the job, not the conversation: the first attempt and every retry pass the same runId. Taken in
   * Unicode NFC (the spelling journaled and keyed); control, bidi, zero-width and other invisible characters,
   * spaces at either end and an id of only spaces are refused with InvalidRunIdError (docs/limits.md).
   */
  runId: string;
  /** Where the run is recorded: `new PostgresStorage(…).runs`, `new PGliteStorage(…).runs` or `storageFromEnv().runs`. */
  journal: Journal;
  /**
   * A replayed model call whose input differs from the recorded one (a system prompt with today's date,
   * a prepareStep that is not deterministic) is journaled as `replay-mismatch` and replay goes on; with
   * strictReplay it is fatal: RunDivergedError. Default false. A replayed tool call whose arguments the
   * SDK derives differently (a computed default) is no divergence: the recorded arguments and key are the call's.
   */
  strictReplay?: boolean;
  /** The registered agent this run belongs to, recorded in its start input (set by the executor layer). */
  agent?: string;
  /** The agent's version fingerprint, recorded in the start input (informational). */
  agentVersion?: string;
  /**
   * The conversation this run is one turn of, recorded in its start input: a chat is many runs, one per
   * user turn (the runId still names the job), and the Studio shows them as one thread. 1 to 200 characters.
   */
  conversationId?: string;
  /**
   * Who the run's data is about (a customer id, 1 to 200 characters), recorded in its start input: with
   * run keys on, every run of a subject can be erased at once (docs/erasure.md).
   */
  subject?: string;
  /**
   * Most events the run may hold (default MAX_EVENTS_PER_RUN, 100 000). Past it the invocation stops with
   * RunEventLimitError and records the failure; resuming with a higher limit goes on.
   */
  maxEventsPerRun?: number;
  /**
   * How long, in ms, an invocation whose tool has finished keeps trying to record the outcome when the
   * journal's database is away or ended its session (a failover, a restart): it takes the run's hold again
   * and records the outcome once the database answers. Past it the run stops, and whoever runs it next
   * finds the call started without an end: its check, or a person, decides. Default 30 000; 0 to 3 600 000.
   * Set it above your database's failover time (docs/operations.md).
   */
  recordOutcomeWithinMs?: number;
  /**
   * How a throwing tool is retried within one invocation (each attempt journaled), unless its gnlTool
   * options say otherwise: `maxRetries` (default 2) and `initialDelayMs` (default 1000, doubled each time).
   */
  toolRetry?: ToolRetry;
  /**
   * The idempotency-key scheme of a run this call starts (default DEFAULT_KEY_SCHEME, 3). It is recorded
   * in the start input; a run that exists keeps the scheme it recorded, whatever this says.
   */
  keyScheme?: KeyScheme;
  /**
   * Asked when this call's start input differs from the recorded one (a changed agent): a migration
   * (`{ by, reason }`) is journaled as `run-migrate` with this call's input and the run goes on with it,
   * its recorded steps and results kept; undefined refuses as before (RunDivergedError). Default: refuse.
   * How an agent declaring `onChange: 'continue'` takes over open runs (lib/agents/version-change.ts).
   */
  acceptChange?: AcceptChange;
  /**
   * Memory across runs (docs/memory.md): the thread's last messages (and, with `recall`, the resource's
   * most similar items) are read when the run starts, recorded in its start input and given to the model
   * before the run's own messages; later invocations give the recorded ones. When the run completes, its
   * turn is appended to the thread through the door, once.
   */
  memory?: RunMemory;
  /**
   * Every event of this run as the caller has just read them (`journal.events(runId)`), for a caller that
   * read the run to decide how to invoke it (an executor): used instead of this call's own first read, and
   * as the hold's first load when nothing was appended since (HoldOptions.known; a run that moved is read
   * again). Not numbered from 1 with a run-start first: JournalDataError. Never another run's events.
   */
  knownEvents?: RecordedEvent[];
};

/** Step and finish events carry `replayed`: true when the model's answer came from the journal. */
export type Replayed<EVENT> = EVENT & { replayed: boolean };

export async function runDurable<TOOLS extends ToolSet>(options: RunDurableOptions<TOOLS>): Promise<DurableResult<TOOLS>> {
  return invoke(options, { fromRecord: true, completedCallbacks: false });
}

/**
 * runDurable that answers a completed run by replaying its whole loop through the recording model (every
 * callback called, `replayed: true`), as runDurable did before completed runs answered from their record.
 * The path a run without a recorded answer takes; kept callable to compare the two (completed-result.test.ts).
 */
export async function replayDurable<TOOLS extends ToolSet>(options: RunDurableOptions<TOOLS>): Promise<DurableResult<TOOLS>> {
  return invoke(options, { fromRecord: false, completedCallbacks: true });
}

async function invoke<TOOLS extends ToolSet>(options: RunDurableOptions<TOOLS>, how: OpenHow): Promise<DurableResult<TOOLS>> {
  const opened = await openRun(options, how);
  if (opened.kind === 'answer') return opened.result;
  const { session, loop } = opened;
  try {
    let result: GenerateTextResult<TOOLS, any, any>;
    try {
      result = await within(session, () => generateText(loop as unknown as GenerateTextOptions<TOOLS>));
    } catch (error) {
      return await settle(session, { error });
    }
    return await settle(session, { result });
  } finally {
    // The hold the invocation ended with: a retaken one replaced the first (released already).
    await session.hold.release();
  }
}

/** How a call on a run that is completed already is met (docs/runtime.md, "A completed run"). */
export interface OpenHow {
  /** Answer from its recorded answer (completed-result.ts), the loop not run; false (or no answer recorded): replay it. */
  fromRecord: boolean;
  /**
   * Whether its replay calls the SDK's lifecycle callbacks (onStart, onStepStart, onToolExecutionStart, …).
   * runDurable and streamDurable: no, nothing starts again; replayDurable: yes, as before. The step and
   * finish callbacks are called either way, `replayed: true`.
   */
  completedCallbacks: boolean;
}

/**
 * A run opened for one invocation: answered at once (nothing to do), or held, with the loop's settings.
 * `quiet`: a completed run replayed with the caller's lifecycle callbacks left out (OpenHow.completedCallbacks).
 */
export type OpenedRun<TOOLS extends ToolSet> =
  | { kind: 'answer'; result: DurableResult<TOOLS> }
  | {
      kind: 'execute';
      session: RunSession;
      hold: RunHold;
      loop: Record<string, unknown> & { model: LanguageModelV4; tools: TOOLS };
      quiet: boolean;
    };

/**
 * What runDurable and streamDurable share before the loop: the options checked, the start input built,
 * the run held and begun (beginInvocation), and the settings the SDK's loop runs with: the recording
 * model, the journaled tools, the tool gate, the stop conditions, the recording prepareStep and repair.
 * The caller releases the hold when the loop has settled (an answer holds nothing).
 */
export async function openRun<TOOLS extends ToolSet>(options: RunDurableOptions<TOOLS>, how: OpenHow): Promise<OpenedRun<TOOLS>> {
  const {
    runId: givenRunId,
    journal,
    model,
    tools = {} as TOOLS,
    stopWhen,
    toolApproval,
    prepareStep,
    strictReplay,
    agent: _agent,
    agentVersion: _agentVersion,
    conversationId,
    subject,
    maxEventsPerRun,
    recordOutcomeWithinMs,
    toolRetry,
    keyScheme,
    acceptChange,
    memory: givenMemory,
    knownEvents,
    onStepFinish,
    onStepEnd,
    onFinish,
    onEnd,
    ...given
  } = options as RunDurableOptions<TOOLS> & { prepareStep?: (...a: any[]) => any } & ReplayCallbacks;
  const startedAt = performance.timeOrigin + performance.now();
  // One spelling per job (run-id.ts): the NFC form, or the id as recorded by a run from before the rule.
  const runId = await journal.runIdOf(givenRunId);
  assertValidConversationId(conversationId);
  assertValidSubject(subject);
  assertToolRetry(toolRetry);
  const maxEvents = eventLimitOption(maxEventsPerRun);
  const retakeWithinMs = recordOutcomeWithinOption(recordOutcomeWithinMs);
  const baseModel = resolveModel(model as LanguageModel);
  const scheme = keySchemeOption(keyScheme);
  const built = await buildRunInput({
    source: options as unknown as RunInputSource,
    model: baseModel,
    defaultStepLimit: stopWhen === undefined ? DEFAULT_MAX_STEPS : undefined,
    // Scheme 1 is what a start input without one means: recorded only when it is another.
    ...(scheme !== 1 ? { keyScheme: scheme } : {}),
  });
  // With memory: what the run was given when it started (its record), else read now; the model gets it before the run's own messages.
  const memory = givenMemory === undefined ? undefined : parseRunMemory(givenMemory);
  const recordedMemory = memory ? await memoryOf(journal, runId, memory, options) : undefined;
  const input = recordedMemory ? { ...built, memory: recordedMemory } : built;
  // This invocation's span (tracing.ts), started once the run's record says which trace it continues.
  let invocation: InvocationTrace | undefined;
  const traceOf = (state: RunState | undefined, kind: string): InvocationTrace =>
    (invocation ??= InvocationTrace.start({ runId, agent: input.agent, recorded: state?.trace, startTime: startedAt, kind }));
  // A prepareStep may set each step's runtimeContext or toolsContext, which are not journaled: such a run replays.
  const answerable = how.fromRecord && prepareStep === undefined;
  const replayCallbacks = { onStepFinish, onStepEnd, onFinish, onEnd };
  if (knownEvents !== undefined) assertWholeRun(knownEvents, runId);
  let known: RecordedEvent[] | undefined = answerable ? undefined : knownEvents;
  if (answerable) {
    // A completed run is answered without its hold: nothing executes, and nothing but inert events follows
    // a run-complete (a cancel or a decision on it is refused). One read (of a completed run, only the
    // events its answer needs: journal.answerEvents); a run that is not completed goes on.
    const events = knownEvents ?? (await (journal.answerEvents ? journal.answerEvents(runId) : journal.events(runId)));
    const state = new RunState(events);
    const answer = await answerFromRecord<TOOLS>({ runId, state, input, context: options });
    if (answer) return answered(traceOf(state, 'answer'), answer, replayCallbacks);
    // Of a run that is not completed that read was every event: the hold's first load, if nothing moved since.
    if (state.status !== 'completed') known = events;
  }
  const hold = await journal.hold(runId, known ? { known } : {});
  try {
    const traceFor = (state: RunState) => traceOf(state, state.lastSeq === 0 ? 'start' : 'resume').recorded;
    const begun = await beginInvocation({ hold, input, maxEvents, acceptChange, traceFor });
    let answer: DurableResult<TOOLS> | undefined;
    if (begun.kind === 'canceled') answer = { status: 'canceled', runId, by: begun.by, ...(begun.reason ? { reason: begun.reason } : {}) };
    if (begun.kind === 'waiting-approval') answer = { status: 'waiting-approval', runId, pending: begun.pending.map(toPendingApproval) };
    if (begun.kind === 'waiting-tool-result') answer = { status: 'waiting-tool-result', runId, pending: begun.pending.map(toPendingToolResult) };
    // Completed since the read above (another invocation finished it meanwhile): answered the same way.
    if (begun.kind === 'execute' && answerable) answer = await answerFromRecord<TOOLS>({ runId, state: begun.state, input, context: options });
    if (answer || begun.kind !== 'execute') {
      await hold.release();
      return answered(traceOf(begun.state, 'answer'), answer as DurableResult<TOOLS>, replayCallbacks);
    }
    // The memory the model is given is the run's record once it has one: another process that started this
    // run first (its read was the one recorded) wins over this call's read. What recall found is a system
    // message before the thread's (the SDK's allowSystemInMessages permits it there).
    const memoryOfRun = recordedMemory ? (begun.state.input?.memory ?? recordedMemory) : undefined;
    const rest = memoryOfRun ? { ...withoutPrompt(given), messages: withMemoryMessages(memoryOfRun, options), allowSystemInMessages: true } : given;
    const session = new RunSession(runId, hold, begun.state, strictReplay === true, maxEvents);
    // A tool's outcome known here but not recorded (its hold or the database away a moment): the hold taken again (run-session.ts).
    session.retake = () => journal.hold(runId);
    session.retakeWithinMs = retakeWithinMs;
    session.trace = traceOf(begun.state, 'resume');
    if (memory) session.beforeCompletion = (result) => appendTurn(session, memory, userTexts(options), result.text);
    linkJob(session, journal);
    // A completed run replayed: its step and finish callbacks are called (replayed: true), the others not (replay-callbacks.ts).
    const quiet = begun.state.status === 'completed' && !how.completedCallbacks;
    const callbacks = withReplayedFlag(replayCallbacks, session);
    const settings = quiet ? withoutCallbacks(rest) : rest;
    const loop = loopSettings({ session, rest: { ...settings, ...callbacks }, baseModel, tools, stopWhen, toolApproval, prepareStep, toolRetry });
    return { kind: 'execute', session, hold, loop, quiet };
  } catch (error) {
    invocation?.end({ error });
    await hold.release();
    throw error;
  }
}

/**
 * A fork or a restart: its side effects consult the job's other runs as they are at each call (the door's
 * related-effects.ts), decided at each call: a fork made of this run while it executes counts too
 * (RunSession applies its run-forked). Every kind of run (an agent's, a workflow's) links its session so.
 */
export function linkJob(session: RunSession, journal: Journal): void {
  const { runId } = session;
  session.related = async () => (hasRelatedRuns(session.state) ? relatedEffects((id) => journal.events(id), { runId, state: session.state }) : []);
  let job: Promise<string> | undefined;
  session.job = async () => {
    if (!hasRelatedRuns(session.state)) return undefined;
    job ??= jobOf((id) => journal.events(id), { runId, state: session.state });
    return job;
  };
}

/**
 * An invocation answered without running the loop: its span ends with the answer's status. A completed
 * one is answered from its record: its steps and finish go to the step and finish callbacks, `replayed: true`.
 */
async function answered<TOOLS extends ToolSet>(trace: InvocationTrace, result: DurableResult<TOOLS>, callbacks: ReplayCallbacks): Promise<OpenedRun<TOOLS>> {
  trace.end({ status: result.status });
  if (result.status === 'completed') await announceAnswer(result.result as never, callbacks);
  return { kind: 'answer', result };
}

function loopSettings<TOOLS extends ToolSet>(args: {
  session: RunSession;
  rest: Record<string, unknown>;
  baseModel: LanguageModelV4;
  tools: TOOLS;
  stopWhen: unknown;
  toolApproval: unknown;
  prepareStep: ((...a: any[]) => any) | undefined;
  toolRetry: ToolRetry | undefined;
}): Record<string, unknown> & { model: LanguageModelV4; tools: TOOLS } {
  const { session, baseModel, tools, toolApproval, prepareStep } = args;
  const { repairToolCall, experimental_repairToolCall, ...rest } = args.rest as {
    repairToolCall?: ToolCallRepair;
    experimental_repairToolCall?: ToolCallRepair;
  };
  const repair = repairToolCall ?? experimental_repairToolCall;
  const userStops = (args.stopWhen === undefined ? [stepCountIs(DEFAULT_MAX_STEPS)] : [args.stopWhen].flat()) as StopCondition<TOOLS>[];
  const journaledTools = Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [name, journaledTool({ session, toolName: name, tool, retry: args.toolRetry })]),
  );
  // The SDK's telemetry integrations do not hear replayed steps and calls as if they ran again (replay-telemetry.ts).
  const { telemetry: given, experimental_telemetry: givenOld } = rest as { telemetry?: TelemetrySetting; experimental_telemetry?: TelemetrySetting };
  const telemetry = replayAwareTelemetry(given ?? givenOld, session);
  // Recorded steps replayed with the tail of their prompt, unless something the caller gave reads it (prompt-tail.ts).
  session.promptTail = promptTailAllowed(args.rest, tools, prepareStep) ? new PromptTail() : undefined;
  return {
    ...(rest as object),
    ...(telemetry !== undefined && telemetry !== (given ?? givenOld) ? { telemetry } : {}),
    ...(repair ? { repairToolCall: journaledRepair(repair, session) } : {}),
    model: recordingModel(baseModel, session),
    tools: journaledTools as TOOLS,
    toolApproval: toolGate({ session, tools, userToolApproval: toolApproval as never }),
    stopWhen: [...userStops, session.mustStop],
    prepareStep: recordingPrepareStep(prepareStep, session),
  };
}

/**
 * How an invocation ends once the SDK's loop has: canceled; failed (journaled, then thrown); or its
 * suspend or completion journaled (finish). `result`: what the loop returned (streamDurable passes the
 * awaited parts of its stream's result).
 */
export async function settle<TOOLS extends ToolSet>(
  session: RunSession,
  outcome: { error: unknown } | { result: GenerateTextResult<TOOLS, any, any> },
): Promise<DurableResult<TOOLS>> {
  try {
    const result = await settleRun(session, outcome);
    session.trace?.end({ status: result.status });
    return result;
  } catch (error) {
    session.trace?.end({ error });
    throw error;
  }
}

/** Runs the loop with the invocation's span active, so the SDK's and the provider's spans nest under it. */
export function within<T>(session: RunSession, work: () => T): T {
  return session.trace ? session.trace.within(work) : work();
}

async function settleRun<TOOLS extends ToolSet>(
  session: RunSession,
  outcome: { error: unknown } | { result: GenerateTextResult<TOOLS, any, any> },
): Promise<DurableResult<TOOLS>> {
  // A loop that ended while a tool still ran (an abort, a timeout): that call's outcome is journaled
  // first, with the run still held, so nothing that acted is left as a start without an end.
  await session.idle();
  if (session.canceled && session.fatal === undefined) return canceled(session);
  if ('error' in outcome) {
    await recordFailure(session, outcome.error);
    throw outcome.error;
  }
  const failure = session.fatal ?? session.failure;
  if (failure !== undefined) {
    await recordFailure(session, failure);
    throw failure;
  }
  return finish(session, outcome.result);
}

async function finish<TOOLS extends ToolSet>(session: RunSession, result: GenerateTextResult<TOOLS, any, any>): Promise<DurableResult<TOOLS>> {
  const { runId } = session;
  const pending: PendingItem[] = [...session.blocked, ...session.waiting, ...session.waitingResults];
  const firstBlocked = session.blocked[0];
  if (firstBlocked) {
    await session.append({ type: 'run-suspend', status: 'blocked', pending });
    throw new SideEffectRetryBlockedError({ runId, ...firstBlocked });
  }
  if (session.waiting.length > 0) {
    await session.append({ type: 'run-suspend', status: 'waiting-approval', pending });
    return { status: 'waiting-approval', runId, pending: session.waiting.map(toPendingApproval) };
  }
  if (session.waitingResults.length > 0) {
    await session.append({ type: 'run-suspend', status: 'waiting-tool-result', pending });
    return { status: 'waiting-tool-result', runId, pending: session.waitingResults.map(toPendingToolResult) };
  }
  // With the SDK's answer, for later calls to answer from (completed-result.ts).
  if (session.state.status !== 'completed') {
    await session.beforeCompletion?.({ text: result.text });
    if (session.failure !== undefined) throw session.failure;
    await recordCompletion(session, result);
  }
  return completedDurableResult(runId, result, session.replayedSteps.size);
}

/** The run's turn appended to its memory thread through the door (one call per run, its key the job's). */
async function appendTurn(session: RunSession, memory: RunMemory, asked: string[], answer: string): Promise<void> {
  const messages = [...asked.map((text) => ({ role: 'user' as const, text })), ...(answer.trim() ? [{ role: 'assistant' as const, text: answer }] : [])];
  if (messages.length === 0) return;
  await callThroughDoor({
    session,
    toolName: APPEND_TURN_TOOL,
    tool: appendTurnTool(memory, session.runId),
    toolCallId: APPEND_TURN_CALL,
    input: { messages },
  });
}

/**
 * What a run with memory is given: its record's for a run that exists (a resume never reads the store or
 * embeds again), read now for a new one. A run that exists with other memory (or none) gets this call's
 * resource and thread, which the start-input comparison then refuses (RunDivergedError).
 */
async function memoryOf(journal: Journal, runId: string, memory: RunMemory, own: { prompt?: unknown; messages?: unknown }) {
  const run = await journal.getRun(runId);
  if (!run) return readRunMemory(memory, own, runId);
  const recorded = run.input.memory;
  if (recorded && recorded.resource === memory.resource && recorded.thread === memory.thread) return recorded;
  return { resource: memory.resource, thread: memory.thread, messages: [] };
}

/** `knownEvents` as `journal.events` gives a run's: numbered 1, 2, 3… from its run-start (or none: a run not started). */
function assertWholeRun(events: unknown, runId: string): asserts events is RecordedEvent[] {
  if (!Array.isArray(events) || !isWholeRun(events))
    throw new JournalDataError(`knownEvents for run "${runId}" must be all of its events as journal.events returns them (numbered from 1, a run-start first).`);
}

function withoutPrompt(options: Record<string, unknown>): Record<string, unknown> {
  const { prompt: _prompt, messages: _messages, ...rest } = options;
  return rest;
}

/** Canceled while executing: the cancel is the journal's last word (no complete or fail after it). */
async function canceled<TOOLS extends ToolSet>(session: RunSession): Promise<DurableResult<TOOLS>> {
  const cancel = session.state.canceled ?? new RunState(await session.hold.load()).canceled;
  const { by, reason } = cancel ?? { by: 'unknown', reason: undefined };
  return { status: 'canceled', runId: session.runId, by, ...(reason ? { reason } : {}) };
}

/** A failed invocation is journaled (the run is resumable); if the journal itself failed, the original error wins. */
export async function recordFailure(session: RunSession, error: unknown): Promise<void> {
  if (RunEventLimitError.isInstance(session.fatal)) {
    // The run is at its limit: its failure is the one event recorded past it, so it does not look running.
    const [failed] = await session.hold.append([{ type: 'run-fail', error: errorInfo(session.fatal) }]);
    if (failed) markJournaledFailure(error, { runId: session.runId, seq: failed.seq });
    return;
  }
  if (session.fatal !== undefined) return; // the journal is what failed: nothing more can be recorded now
  try {
    const [failed] = await session.append({ type: 'run-fail', error: errorInfo(error) });
    if (failed) markJournaledFailure(error, { runId: session.runId, seq: failed.seq });
  } catch (journalError) {
    throw new AggregateError([error, journalError], `Run "${session.runId}" failed and the failure could not be journaled.`, { cause: error });
  }
}

type TelemetrySetting = Parameters<typeof replayAwareTelemetry>[0];

type ToolCallRepair = (options: { toolCall: { toolCallId: string } } & Record<string, unknown>) => unknown;

/**
 * The caller's repairToolCall, journaled: its answer for a call (step, call id) is recorded, and every
 * replay returns the recorded answer without calling it again (a repair is often a paid model call, and
 * a second one could repair differently).
 */
function journaledRepair(repair: ToolCallRepair, session: RunSession): ToolCallRepair {
  return async (options) => {
    const step = session.stepNumber;
    const { toolCallId } = options.toolCall;
    const id = `${step}:${toolCallId}`;
    if (session.state.repairs.has(id)) return session.state.repairs.get(id);
    const repaired = (await repair(options)) ?? null;
    await session.append({ type: 'tool-call-repair', step, toolCallId, repaired });
    return repaired;
  };
}

/**
 * Always installed: it tells the session which step the loop is on (the SDK's own count, so a retried
 * model call stays the same step), then runs the caller's prepareStep, whose model is recorded too.
 */
function recordingPrepareStep(prepareStep: ((...a: any[]) => any) | undefined, session: RunSession) {
  return async (options: { stepNumber: number; messages: ModelMessage[] }, ...a: any[]) => {
    session.stepNumber = options.stepNumber;
    const forkOf = session.state.input?.forkOf;
    if (session.promptTail) return tailOrWhole(session.promptTail, session, options, forkOf);
    const prepared = withForkInstruction(forkOf, options, prepareStep ? await prepareStep(options, ...a) : undefined);
    if (!prepared?.model) return prepared;
    return { ...prepared, model: recordingModel(resolveModel(prepared.model), session) };
  };
}

/** A step given the tail of its prompt when it and the next are recorded, else its whole history (prompt-tail.ts). */
function tailOrWhole(tail: PromptTail, session: RunSession, options: { stepNumber: number; messages: ModelMessage[] }, forkOf: ForkOrigin | undefined) {
  const { stepNumber } = options;
  const { modelSteps, modelRequestHashes } = session.state;
  const messages = tail.messagesFor({
    stepNumber,
    messages: options.messages,
    instruct: (whole) => withForkInstruction<{ messages?: unknown[] }>(forkOf, { stepNumber, messages: whole }, {}).messages as ModelMessage[] | undefined,
    tail:
      modelSteps[stepNumber + 1] !== undefined &&
      modelSteps[stepNumber] !== undefined &&
      settledStep(session.state, modelSteps[stepNumber]) &&
      session.requestHasher.takesTailFor(modelRequestHashes[stepNumber]),
  });
  return messages ? { messages } : undefined;
}

function toPendingApproval(item: Extract<PendingItem, { kind: 'approval' }>): PendingApproval {
  return {
    toolCallId: item.toolCallId,
    toolName: item.toolName,
    input: item.input,
    requestedAt: new Date(item.requestedAt),
    ...(item.expiresAt ? { expiresAt: new Date(item.expiresAt) } : {}),
  };
}

function toPendingToolResult(item: Extract<PendingItem, { kind: 'tool-result' }>): PendingToolResult {
  return { toolCallId: item.toolCallId, toolName: item.toolName, input: item.input, requestedAt: new Date(item.requestedAt) };
}

/** recordOutcomeWithinMs as given: a whole number of ms from 0 to an hour. */
function recordOutcomeWithinOption(value: unknown): number {
  if (value === undefined) return DEFAULT_RECORD_OUTCOME_WITHIN_MS;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 3_600_000) return value;
  throw new JournalDataError(`recordOutcomeWithinMs must be a whole number of ms from 0 to 3600000, got ${JSON.stringify(value)}.`);
}

function keySchemeOption(value: unknown): KeyScheme {
  if (value === undefined) return DEFAULT_KEY_SCHEME;
  if (KEY_SCHEMES.includes(value as KeyScheme)) return value as KeyScheme;
  throw new JournalDataError(`keyScheme must be one of ${KEY_SCHEMES.join(', ')}, got ${JSON.stringify(value)}.`);
}

/** As gnlTool checks a tool's own `maxRetries` and `retryDelayMs`: whole numbers >= 0 (Infinity would retry for ever, NaN never wait). */
function assertToolRetry(toolRetry: ToolRetry | undefined): void {
  if (toolRetry === undefined) return;
  if (typeof toolRetry !== 'object' || toolRetry === null)
    throw new TypeError(`runDurable: toolRetry must be { maxRetries?, initialDelayMs? }, got ${String(toolRetry)}.`);
  for (const name of ['maxRetries', 'initialDelayMs'] as const) {
    const value = toolRetry[name];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0))
      throw new TypeError(`runDurable: toolRetry.${name} must be a whole number >= 0, got ${String(value)}.`);
  }
}
