/**
 * Records and replays model steps. A model middleware: a step already in the journal is returned
 * from it (the model is not called), a new step is journaled before anything acts on it: it rides with
 * the next append (RunSession.defer), so a step and its first call's start are one statement. Streamed steps
 * (streamDurable) likewise: replayed as a stream of the recorded answer, or journaled when their
 * finish arrives, before their tool calls reach the loop (stream-step.ts).
 *
 * A step is a logical model call, not an attempt: the SDK retries a failed call (a 429, a 5xx) by
 * calling this middleware again for the same step, so the step number is the loop's own (set by
 * runDurable's prepareStep before each step, `session.stepNumber`), never a count of calls here.
 * Every invocation replays from the first step, so step n of an invocation is step n of the run.
 *
 * Tool call ids name work (keys, approvals, decisions), so they must be unique in a run. Providers
 * do not promise that: some number calls per response (`call_0` in every answer), some repeat an id
 * in one answer. A new step's colliding ids are renamed before it is recorded (tool-call-ids.ts); the
 * recorded step is what every replay returns, so the new names are as stable as the old ones.
 */
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import { sameOrRecorded } from '../identity/call-identity';
import { JournalDataError } from '../errors';
import { refusalOf, refusedStepError, refusedStepResult } from './refused-step';
import type { RunSession } from '../run/run-session';
import { CallIdRenamer, recordingStepStream, streamOfRecordedStep } from '../stream/stream-step';
import { uniqueToolCallIds } from './tool-call-ids';
import type { ChildSpan } from '../telemetry/tracing';

export function recordingModel(model: LanguageModelV4, session: RunSession): LanguageModelV4 {
  return wrapLanguageModel({ model, middleware: recordingMiddleware(session) });
}

function recordingMiddleware(session: RunSession): LanguageModelV4Middleware {
  // Every step's prompt repeats every earlier call: each call's arguments are compared once, not once per step.
  const decided: Decided = new WeakMap();
  return {
    specificationVersion: 'v4',
    // The SDK re-parses replayed calls and sends those arguments back in the prompt; a computed default or
    // a transform can make them differ from what ran. The prompt carries the recorded arguments instead,
    // so the model sees what really ran, and the request hash compares like with like (request-hash.ts).
    transformParams: async ({ params }) => withRecordedArguments(params, session.state.inputOfCall, decided),
    wrapGenerate: async ({ doGenerate, model, params }) => {
      const step = await stepOf(session, params);
      const span = stepSpan(session, step, model);
      if (step.recorded) return step.recorded;
      try {
        const startedAt = performance.now();
        const result = uniqueToolCallIds(await (span ? span.within(doGenerate) : doGenerate()), step.number, session.state.toolCallIdsOfSteps());
        // A fork's calls take their keys by their place among its steps' calls (fork-keys.ts): its steps are journaled at once.
        await record(session, { step, model, startedAt, result, defer: session.state.input?.forkOf === undefined });
        span?.end({ status: 'recorded' });
        return result;
      } catch (error) {
        span?.end({ error });
        throw error;
      }
    },
    // streamDurable: deltas pass through, tool calls are held until the step is journaled (stream-step.ts).
    wrapStream: async ({ doStream, model, params }) => {
      const step = await stepOf(session, params);
      const span = stepSpan(session, step, model);
      if (step.recorded) return { stream: streamOfRecordedStep(step.recorded) };
      const startedAt = performance.now();
      let rest: Omit<Awaited<ReturnType<typeof doStream>>, 'stream'>;
      let stream: Awaited<ReturnType<typeof doStream>>['stream'];
      try {
        ({ stream, ...rest } = await (span ? span.within(doStream) : doStream()));
      } catch (error) {
        span?.end({ error });
        throw error;
      }
      const renamer = new CallIdRenamer(step.number, session.state.toolCallIdsOfSteps());
      const recordStep = async (result: LanguageModelV4GenerateResult) => {
        try {
          await record(session, { step, model, startedAt, result });
          span?.end({ status: 'recorded' });
        } catch (error) {
          span?.end({ error });
          throw error;
        }
      };
      return { ...rest, stream: recordingStepStream({ stream, renamer, record: recordStep }) };
    },
  };
}

type Step = { number: number; requestHash: string; recorded?: LanguageModelV4GenerateResult };

/** The step's span (tracing.ts): a replayed step's ends at once (nothing was asked); a new one's when it is journaled. */
function stepSpan(session: RunSession, step: Step, model: LanguageModelV4): ChildSpan | undefined {
  const span = session.trace?.modelStep({ step: step.number, replayed: step.recorded !== undefined, provider: model.provider, modelId: model.modelId });
  if (span && step.recorded) {
    span.end({ status: 'replayed' });
    return undefined;
  }
  return span;
}

/** The step the loop is on, and its recorded answer when the journal has one (checked against this call's input). */
async function stepOf(session: RunSession, params: LanguageModelV4CallOptions): Promise<Step> {
  session.throwIfFatal();
  // The step before, if nothing it led to was journaled (its calls invalid, say): durable before the next.
  await session.flush();
  const step = session.stepNumber;
  const recorded = session.state.modelSteps[step];
  if (recorded !== undefined) {
    session.replayedSteps.add(step);
    const recordedHash = session.state.modelRequestHashes[step];
    // Hashed as the step was (request-hash.ts), so runs recorded with an earlier version compare like with like.
    // A step given the tail of its prompt (prompt-tail.ts) hashes as its whole prompt would.
    const hasher = session.requestHasher;
    const requestHash =
      session.promptTail?.tailStep === step
        ? hasher.hashTail(params, recordedHash)
        : recordedHash === undefined
          ? hasher.hash(params)
          : hasher.hashLike(recordedHash, params);
    // A step recorded before the run migrated was asked by the earlier version: it differs by design.
    if (recordedHash !== undefined && recordedHash !== requestHash && step >= session.state.stepsBeforeMigration) {
      await session.replayMismatch(
        { type: 'replay-mismatch', kind: 'model-call', step, recorded: recordedHash, given: requestHash },
        `model call ${step} input`,
      );
    }
    // An answer refused for its size was paid for once: replaying it fails again, never asks again (refused-step.ts).
    const refused = refusalOf(recorded);
    if (refused) throw refusedStepError({ runId: session.runId, step, ...refused });
    return { number: step, requestHash, recorded: recorded as LanguageModelV4GenerateResult };
  }
  if (session.state.status === 'completed') {
    throw new JournalDataError(
      `Run "${session.runId}" is completed with ${session.state.modelSteps.length} model steps; this call asks for step ${step + 1}. Start a new run instead.`,
    );
  }
  return { number: step, requestHash: session.requestHasher.hash(params) };
}

/** Journals a new step's answer (deferred: with the next append) before anything acts on it; one too large is recorded as refused and fails the step. */
async function record(
  session: RunSession,
  args: { step: Step; model: LanguageModelV4; startedAt: number; result: LanguageModelV4GenerateResult; defer?: boolean },
): Promise<void> {
  const { step, model, startedAt, result } = args;
  const latencyMs = Math.round((performance.now() - startedAt) * 10) / 10;
  const event = { type: 'model-step' as const, step: step.number, provider: model.provider, modelId: model.modelId, latencyMs, requestHash: step.requestHash };
  try {
    // generateText's steps ride with the next append (RunSession.defer: the step and its first call's
    // start in one statement); a streamed step is journaled at once, before its tool calls leave the stream.
    if (args.defer) session.defer({ ...event, result: journaledResult(result) });
    else await session.append({ ...event, result: journaledResult(result) });
  } catch (error) {
    if (!JournalDataError.isInstance(error) || !error.tooLarge) throw error;
    await session.append({ ...event, result: refusedStepResult(error.tooLarge) });
    throw refusedStepError({ runId: session.runId, step: step.number, ...error.tooLarge, cause: error });
  }
}

/** What the loop needs back on replay; request and response bodies stay out of the journal. */
function journaledResult(result: LanguageModelV4GenerateResult): LanguageModelV4GenerateResult {
  const { request: _request, response, ...rest } = result;
  if (!response) return rest;
  const { body: _body, headers: _headers, ...responseMeta } = response as typeof response & { body?: unknown; headers?: unknown };
  return { ...rest, response: responseMeta };
}

/** The arguments a prompt's call carries, by the SDK's argument object (the same object from step to step). */
type Decided = WeakMap<object, { toolCallId: string; input: unknown }>;

function withRecordedArguments(params: LanguageModelV4CallOptions, recorded: ReadonlyMap<string, unknown>, decided: Decided): LanguageModelV4CallOptions {
  if (recorded.size === 0) return params;
  const argumentsOf = (toolCallId: string, given: unknown): unknown => {
    const known = given !== null && typeof given === 'object' ? decided.get(given) : undefined;
    if (known?.toolCallId === toolCallId) return known.input;
    const input = sameOrRecorded(recorded.get(toolCallId), given);
    if (given !== null && typeof given === 'object') decided.set(given, { toolCallId, input });
    return input;
  };
  // Copied only where an argument differs: a resume of N steps walks N prompts of up to N messages, and
  // copying each one every step made the replay's garbage grow with the square of the history.
  let prompt: LanguageModelV4CallOptions['prompt'] | undefined;
  params.prompt.forEach((message, m) => {
    if (message.role !== 'assistant') return;
    let content: typeof message.content | undefined;
    message.content.forEach((part, p) => {
      if (part.type !== 'tool-call' || !recorded.has(part.toolCallId)) return;
      const input = argumentsOf(part.toolCallId, part.input);
      if (input === part.input) return;
      content ??= [...message.content];
      content[p] = { ...part, input };
    });
    if (!content) return;
    prompt ??= [...params.prompt];
    prompt[m] = { ...message, content };
  });
  return prompt ? { ...params, prompt } : params;
}
