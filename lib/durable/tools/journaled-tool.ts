/**
 * Wraps a tool's execute so that every call is journaled and nothing recorded runs twice:
 * - a recorded result (or final error) is returned (or thrown) as recorded, and execute is not called;
 * - otherwise, for a side effect, `tool-call-start` is made durable BEFORE execute begins (so a crash
 *   at any later point leaves evidence that the work may have happened), then the output or error is
 *   recorded. A read-only call is safe to run again, so it records only its end (or error), carrying
 *   its input and start time: one append per read-only call.
 * What a throw means (docs/tool-semantics.md):
 * - a read-only tool is tried again with backoff (`maxRetries`, each attempt journaled); its last error
 *   is final and goes to the model as the tool's error, as generateText would send it;
 * - a side effect that throws ToolNotPerformedError did nothing: final error, the model sees it;
 * - any other throw from a side effect may have acted: the unknown-outcome rule decides (retried when
 *   retrySafe or when check says not done, settled when check says done, else blocked for a person).
 * A side effect that returned acted: an output the journal cannot hold or the model cannot read is
 * recorded as done with a marker in its place (unencodable-output.ts); a read-only one's is its final error.
 * An execute that returns an async iterable (a streaming tool's preliminary results) is iterated to its
 * end; its last value is the recorded output (preliminary values are not journaled).
 * Whether a call may run at all (approvals, unknown outcomes) was decided by the tool gate; arguments
 * and keys come from the recorded call when there is one (call-identity.ts).
 */
import type { Tool, ToolExecutionOptions } from 'ai';
import { callIdentity } from '../identity/call-identity';
import { JournalDataError, RunCanceledError, SideEffectElsewhereError, ToolCallFailedError, ToolNotPerformedError } from '../errors';
import { errorInfo } from '../journal/events';
import { type GnlToolOptions, gnlToolOptions } from './gnl-tool';
import { appendReadableEnd } from './model-json';
import type { RunSession } from '../run/run-session';
import type { ToolOperation } from '../projection/run-state';
import { settleUnknownOutcome } from './unknown-outcome';
import { appendPerformedEnd, markerAwareModelOutput } from './unencodable-output';
import { lockJob } from './job-lock';
import { matchRelated, notPerformedKeys, type RelatedEffect } from './related-effects';
import { ATTR } from '../telemetry/tracing';

type AnyTool = Tool<any, any>;

/** Default retries of a throwing tool within one invocation (the SDK's own default for model calls). */
export const DEFAULT_TOOL_MAX_RETRIES = 2;
/** Default first backoff before a retry; it doubles on each further retry. */
export const DEFAULT_TOOL_RETRY_DELAY_MS = 1000;

export interface ToolRetry {
  /** Retries after the first attempt, within one invocation. Default 2. */
  maxRetries?: number;
  /** Delay before the first retry, doubled for each next one. Default 1000 ms. */
  initialDelayMs?: number;
}

/** The call stops here because its key's outcome is unknown and a person must decide (not journaled). */
class CallBlockedSignal extends Error {
  override name = 'SideEffectRetryBlocked';
}

export function journaledTool(args: { session: RunSession; toolName: string; tool: AnyTool; retry?: ToolRetry }): AnyTool {
  const { session, toolName, tool } = args;
  const options = gnlToolOptions(tool);
  const retry = retryOf(options, args.retry);
  const { needsApproval: _ownApproval, ...rest } = tool as AnyTool & { needsApproval?: unknown };
  const execute = tool.execute?.bind(tool);

  return {
    ...rest,
    ...(tool.toModelOutput ? { toModelOutput: markerAwareModelOutput(tool.toModelOutput.bind(tool)) } : {}),
    execute: async (given: unknown, callOptions: ToolExecutionOptions<unknown>) => {
      session.throwIfFatal();
      const { toolCallId } = callOptions;
      const identity = callIdentity({ runId: session.runId, state: session.state, toolCallId, toolName, given, options });
      const { input } = identity;
      // Work another run of the same job did (a fork's parent, a restarted run) keeps its key (related-effects.ts),
      // chosen under the job's lock, which is let go once the call's start is durable (job-lock.ts).
      const job = options.sideEffect === true && !session.state.keyOfCall.has(toolCallId) ? await session.job?.() : undefined;
      const release = job === undefined ? async () => {} : await lockJob(job, session.hold);
      let related: RelatedEffect | undefined;
      let key = identity.key;
      try {
        if (job !== undefined) ({ related, key } = await jobKey({ session, toolCallId, toolName, given, input, options, fallback: identity.key }));
      } catch (error) {
        await release();
        throw error;
      }
      const span = session.trace?.toolCall({ toolName, toolCallId, idempotencyKey: key, sideEffect: options.sideEffect === true });
      const recordedBefore = session.state.operations.get(key)?.result !== undefined;
      // One execution per key at a time: a twin waits for the one running, then for any that started meanwhile.
      for (let running = session.inFlight.get(key); running; running = session.inFlight.get(key)) await running.catch(() => undefined);
      const run = async () => {
        let op = session.state.operations.get(key);
        // The key is this run's own work already: nothing of the job is left to decide.
        if (op) await release();
        if (op?.result) return replay({ session, op, toolCallId, toolName });
        if (related && !op) return answerFromRelated({ session, related, toolCallId, toolName, input });
        if (!execute) throw new JournalDataError(`Tool ${toolName} has no execute and no result was provided for call ${toolCallId}.`);
        if (session.canceled) throw new RunCanceledError({ runId: session.runId });
        if (op?.inFlight && op.sideEffect && op.attempts > (session.cleared.get(key) ?? 0)) {
          // A twin under the same key ran since the gate let this call through and left its outcome unknown.
          const verdict = await settleUnknownOutcome({ session, op, options, tool, toolCallId, toolName });
          op = session.state.operations.get(key) as ToolOperation;
          if (verdict === 'settled') return replay({ session, op, toolCallId, toolName });
          if (verdict === 'blocked') throw new CallBlockedSignal(`${toolName} ${toolCallId}: key ${key} has an unknown outcome`);
        }
        // Decided knowing of no other run of the job: a fork made of this run meanwhile (while its model
        // answered) is learned of when this start is written, and looked at then (checkJobAfterStart).
        const lateCheck = options.sideEffect === true && job === undefined && !op;
        return attempts({ session, toolName, tool, options, retry, execute, input, key, toolCallId, callOptions, afterStart: release, lateCheck });
      };
      // The tool's own spans nest under its call's.
      const work = span ? span.within(run) : run();
      session.inFlight.set(key, work);
      try {
        const output = await work;
        span?.set({ [ATTR.attempt]: session.state.operations.get(key)?.attempts ?? 0 });
        span?.end({ status: recordedBefore ? 'replayed' : 'executed' });
        return output;
      } catch (error) {
        span?.set({ [ATTR.attempt]: session.state.operations.get(key)?.attempts ?? 0 });
        if (error instanceof CallBlockedSignal) span?.end({ status: 'blocked' });
        else span?.end({ error });
        throw error;
      } finally {
        if (session.inFlight.get(key) === work) session.inFlight.delete(key);
        await release();
      }
    },
  } as AnyTool;
}

/**
 * One call through the door made outside the SDK's loop (a workflow's step): the same journaled execute an
 * agent's tool call gets, for the call `toolCallId` with `input`. The gate (tool-gate.ts) decides first
 * whether it may run, as for any call.
 */
export function callThroughDoor(args: {
  session: RunSession;
  toolName: string;
  tool: AnyTool;
  toolCallId: string;
  input: unknown;
  retry?: ToolRetry;
}): Promise<unknown> {
  const { session, toolName, tool, toolCallId, input, retry } = args;
  const journaled = journaledTool({ session, toolName, tool, ...(retry ? { retry } : {}) });
  const doorExecute = journaled.execute as (input: unknown, options: ToolExecutionOptions<unknown>) => Promise<unknown>;
  return doorExecute(input, { toolCallId, messages: [] } as never);
}

async function attempts(args: {
  session: RunSession;
  toolName: string;
  tool: AnyTool;
  options: GnlToolOptions;
  retry: Required<ToolRetry>;
  execute: NonNullable<AnyTool['execute']>;
  input: unknown;
  key: string;
  toolCallId: string;
  callOptions: ToolExecutionOptions<unknown>;
  /** Called once the first start is durable (the job's lock is let go then, before execute). */
  afterStart: () => Promise<void>;
  /** The key was chosen knowing of no other run of the job: look again once the first start is durable. */
  lateCheck: boolean;
}): Promise<unknown> {
  const { session, toolName, tool, options, retry, execute, input, key, toolCallId, callOptions, afterStart } = args;
  const sideEffect = options.sideEffect === true;
  for (let tries = 0; ; tries++) {
    const attempt = (session.state.operations.get(key)?.attempts ?? 0) + 1;
    if (sideEffect) await session.append({ type: 'tool-call-start', toolCallId, toolName, input, idempotencyKey: key, attempt, sideEffect });
    await afterStart();
    if (tries === 0 && args.lateCheck) await checkJobAfterStart({ session, toolCallId, toolName, input, key, attempt });
    // Canceled while this call was being recorded (the append that carried its start said so): its start
    // is journaled and its work is not done, so the journal says that too, rather than leave a start that
    // reads as an unknown outcome. Nothing else holds the run: it is known that execute never ran.
    if (sideEffect && session.canceled) {
      const canceled = new RunCanceledError({ runId: session.runId });
      await endNotExecuted(session, { toolCallId, toolName, key, attempt }, canceled);
      throw canceled;
    }
    const unstarted = sideEffect ? {} : { input, startedAt: new Date().toISOString() };
    const errorEvent = (error: unknown, durationMs: number, retryable: boolean) =>
      ({ type: 'tool-call-error', ...unstarted, toolCallId, toolName, idempotencyKey: key, attempt, error: errorInfo(error), durationMs, retryable }) as const;
    const startedAt = performance.now();
    const elapsed = () => Math.round((performance.now() - startedAt) * 10) / 10;
    let output: unknown;
    try {
      output = await callTool(execute, input, { ...callOptions, idempotencyKey: key });
    } catch (error) {
      session.throwIfFatal();
      const retriesLeft = tries < retry.maxRetries;
      if (!sideEffect || ToolNotPerformedError.isInstance(error)) {
        // Known not to have acted: tried again while retries are left, then final (the model sees it).
        const again = retriesLeft && !ToolNotPerformedError.isInstance(error);
        await session.append(errorEvent(error, elapsed(), again));
        if (!again) throw error;
        await backoff(retry, tries);
        continue;
      }
      // A side effect that threw may have acted: its outcome is unknown until the rule settles it.
      await session.append(errorEvent(error, elapsed(), true));
      const op = session.state.operations.get(key) as ToolOperation;
      const verdict = await settleUnknownOutcome({ session, op, options, tool, toolCallId, toolName });
      if (verdict === 'settled') return replay({ session, op: session.state.operations.get(key) as ToolOperation, toolCallId, toolName });
      if (verdict === 'blocked') throw new CallBlockedSignal(`${toolName} ${toolCallId} threw and its outcome is unknown`, { cause: error });
      if (!retriesLeft) {
        // Safe to run again but out of retries: the run fails (resumable); a resume tries again under the same key.
        session.failure ??= new ToolCallFailedError({ runId: session.runId, toolCallId, toolName, attempt, cause: error });
        throw error;
      }
      await backoff(retry, tries);
      continue;
    }
    return recordOutput({
      session,
      tool,
      sideEffect,
      output,
      end: { ...unstarted, toolCallId, toolName, idempotencyKey: key, attempt, durationMs: elapsed() },
      errorEvent,
    });
  }
}

async function recordOutput(args: {
  session: RunSession;
  tool: AnyTool;
  sideEffect: boolean;
  output: unknown;
  end: { toolCallId: string; toolName: string; idempotencyKey: string; attempt: number; durationMs: number; input?: unknown; startedAt?: string };
  errorEvent: (error: unknown, durationMs: number, retryable: boolean) => Parameters<RunSession['append']>[0];
}): Promise<unknown> {
  const { session, tool, sideEffect, output, end, errorEvent } = args;
  const event = { type: 'tool-call-end', ...end, output, source: 'executed' } as const;
  // It acted: recorded as done, with a marker when its output cannot be kept as it is; never as failed.
  if (sideEffect) return appendPerformedEnd({ session, tool, end: event });
  // A read-only output the model cannot read (a bigint) or the journal cannot hold (a cycle): the call's
  // final error, with the cause; the model sees it, as running it again is safe.
  const refused = await appendReadableEnd({ session, tool, end: event });
  if (!refused) return output;
  await session.append(errorEvent(refused, end.durationMs, false));
  throw refused;
}

/** Runs execute; an async iterable (a streaming tool) is drained and its last value is the output. */
async function callTool(execute: NonNullable<AnyTool['execute']>, input: unknown, options: ToolExecutionOptions<unknown>): Promise<unknown> {
  const result = (await execute(input, options)) as unknown;
  if (result === null || typeof result !== 'object' || !(Symbol.asyncIterator in result)) return result;
  let last: unknown;
  for await (const value of result as AsyncIterable<unknown>) last = value;
  return last;
}

function retryOf(options: GnlToolOptions, fallback: ToolRetry | undefined): Required<ToolRetry> {
  const maxRetries = options.maxRetries ?? fallback?.maxRetries ?? DEFAULT_TOOL_MAX_RETRIES;
  const initialDelayMs = options.retryDelayMs ?? fallback?.initialDelayMs ?? DEFAULT_TOOL_RETRY_DELAY_MS;
  return { maxRetries, initialDelayMs };
}

function backoff(retry: Required<ToolRetry>, tries: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, retry.initialDelayMs * 2 ** tries));
}

async function replay(args: { session: RunSession; op: ToolOperation; toolCallId: string; toolName: string }): Promise<unknown> {
  const { session, op, toolCallId, toolName } = args;
  const result = op.result as NonNullable<ToolOperation['result']>;
  if (!op.toolCallIds.has(toolCallId) && result.kind === 'output') {
    // A re-planned call with equal arguments ('args'): it gets the first call's result, and the journal says so.
    await session.append({
      type: 'tool-call-end',
      toolCallId,
      toolName,
      idempotencyKey: op.idempotencyKey,
      attempt: op.attempts,
      output: result.output,
      durationMs: 0,
      source: 'deduplicated',
    });
  }
  if (result.kind === 'error') throw Object.assign(new Error(result.error.message), { name: result.error.name });
  return result.output;
}

/**
 * The key of a side effect in a run of a job with other runs, read now (related-effects.ts): the key of
 * the job's work it repeats (`related`), else its own, made knowing which of the job's work was not
 * performed (a fork does not take such work's key: fork-keys.ts).
 */
async function jobKey(args: {
  session: RunSession;
  toolCallId: string;
  toolName: string;
  given: unknown;
  /** The call's arguments (callIdentity's). */
  input: unknown;
  options: GnlToolOptions;
  /** The key callIdentity made knowing nothing of the job. */
  fallback: string;
}): Promise<{ related: RelatedEffect | undefined; key: string }> {
  const { session, toolCallId, toolName, given, input, options, fallback } = args;
  if (!session.related) return { related: undefined, key: fallback };
  const effects = await session.related();
  const related = matchRelated(effects, { toolName, input }, (key) => session.state.operations.has(key));
  if (related) return { related, key: related.idempotencyKey };
  const notPerformed = notPerformedKeys(effects);
  const own =
    notPerformed.size === 0 ? fallback : callIdentity({ runId: session.runId, state: session.state, toolCallId, toolName, given, options, notPerformed }).key;
  return { related: undefined, key: own };
}

/**
 * A side effect whose key was chosen when the run knew of no other run of its job, and whose start's append
 * brought a fork or a restart of the run made meanwhile (RunSession applies the run-forked it skipped over):
 * a fork made while this run's model was answering may have decided the same work first, under its own key.
 * So, before execute, under the job's lock (which the other run holds while it decides and journals its
 * start), the job's record is read: when another run started the same work, this call executes nothing. Its
 * start ends in a final error (SideEffectElsewhereError: this key never acted, so nothing of the job reads it
 * as done or unknown) and the run stops, as a repeat of work of unknown outcome stops (answerFromRelated): a
 * person resumes it once that work is decided; the model is then told the call did not run here. When no
 * other run started it, this start is the job's record of it (the other run's look, under the lock, finds it).
 */
async function checkJobAfterStart(args: {
  session: RunSession;
  toolCallId: string;
  toolName: string;
  input: unknown;
  key: string;
  attempt: number;
}): Promise<void> {
  const { session, toolCallId, toolName, input, key, attempt } = args;
  const job = await session.job?.();
  if (job === undefined || !session.related) return;
  const release = await lockJob(job, session.hold);
  try {
    const effects = await session.related();
    const related = matchRelated(effects, { toolName, input }, (held) => session.state.operations.has(held));
    if (!related) return;
    const elsewhere = elsewhereError(session, related, toolCallId, toolName);
    await endNotExecuted(session, { toolCallId, toolName, key, attempt }, elsewhere);
    session.failure ??= elsewhere;
    throw elsewhere;
  } finally {
    await release();
  }
}

/**
 * The work is the job's already: a recorded outcome answers (journaled here, with the run it came from);
 * an unknown one stops this run until a person decides it where it was made. Nothing executes.
 */
async function answerFromRelated(args: {
  session: RunSession;
  related: RelatedEffect;
  toolCallId: string;
  toolName: string;
  input: unknown;
}): Promise<unknown> {
  const { session, related, toolCallId, toolName, input } = args;
  if (related.outcome.kind !== 'done') {
    const elsewhere = elsewhereError(session, related, toolCallId, toolName);
    // The run's failure is the stop itself, not a tool that threw: its run-fail names SideEffectElsewhereError.
    session.failure ??= elsewhere;
    throw elsewhere;
  }
  await session.append({
    type: 'tool-call-end',
    toolCallId,
    toolName,
    idempotencyKey: related.idempotencyKey,
    attempt: 1,
    input,
    startedAt: new Date().toISOString(),
    output: related.outcome.output,
    durationMs: 0,
    source: 'deduplicated',
    inheritedFrom: related.runId,
  });
  return related.outcome.output;
}

/** This call's work is the job's, started in another run: it stops here (SideEffectElsewhereError names that run and key). */
function elsewhereError(session: RunSession, related: RelatedEffect, toolCallId: string, toolName: string): SideEffectElsewhereError {
  return new SideEffectElsewhereError({ runId: session.runId, toolCallId, otherRunId: related.runId, toolName, idempotencyKey: related.idempotencyKey });
}

/**
 * A side effect whose start is journaled and whose execute never ran (the run was canceled as the start was
 * recorded; the job's other run started the same work): its final error says so, so nothing reads the start
 * as an unknown outcome.
 */
function endNotExecuted(session: RunSession, call: { toolCallId: string; toolName: string; key: string; attempt: number }, why: Error): Promise<unknown> {
  const { toolCallId, toolName, key, attempt } = call;
  return session.append({
    type: 'tool-call-error',
    toolCallId,
    toolName,
    idempotencyKey: key,
    attempt,
    error: errorInfo(why),
    durationMs: 0,
    retryable: false,
  });
}
