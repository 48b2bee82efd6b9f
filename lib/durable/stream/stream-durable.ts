/**
 * streamDurable: streamText with a journal. Takes what streamText takes plus runId and journal (and
 * runDurable's options); returns streamText's own result (textStream, fullStream,
 * toUIMessageStreamResponse(), text, steps, …) plus `durable`, which settles as runDurable does:
 * completed, waiting-approval, waiting-tool-result, canceled; SideEffectRetryBlockedError,
 * RunBusyError, the run's failure. Calling it again with the same runId replays what is recorded (the
 * replayed steps come out of the stream at once, the model is not called for them) and streams on from
 * the first unrecorded step.
 *
 * streamText starts synchronously and the journal answers asynchronously, so the loop is given stand-ins
 * that wait for the run to be opened (openRun, as runDurable does) and then act through the same
 * recording model, journaled tools, tool gate and stop conditions as runDurable. A run with nothing to
 * do (canceled, still waiting) streams one empty step and stops; `durable` says why. A streamed step's
 * tool calls reach the loop only once the step is journaled (stream-step.ts), so a side effect never
 * starts before the call that asked for it is durable.
 *
 * The run goes on when nobody reads the stream (a browser that left): `durable` consumes it. Do not pass
 * a request's abort signal unless leaving should stop the run (it then fails, resumably). An abort ends
 * the stream at once but not a tool that executes: `durable` waits for it, its outcome is journaled, and
 * only then is the failure journaled and the run let go (ToolExecutions).
 */
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4StreamResult } from '@ai-sdk/provider';
import { randomUUID } from 'node:crypto';
import { type LanguageModel, type StopCondition, streamText, type ToolSet, type UIMessageChunk } from 'ai';
import { answerMessageId, writeStreamLog } from './stream-log';
import { normalizeRunId } from '../identity/run-id';
import { resolveModel } from '../model/resolve-model';
import { isCallbackName } from '../run/replay-callbacks';
import { type DurableResult, type OpenedRun, openRun, type RunDurableOptions, settle } from '../run/run-durable';

type StreamTextOptions<TOOLS extends ToolSet> = Parameters<typeof streamText<TOOLS>>[0];
type StreamTextResultOf<TOOLS extends ToolSet> = ReturnType<typeof streamText<TOOLS>>;

export type StreamDurableOptions<TOOLS extends ToolSet> = RunDurableOptions<TOOLS> &
  Partial<Pick<StreamTextOptions<TOOLS>, 'onChunk' | 'onError' | 'onAbort' | 'experimental_transform'>> & {
    /**
     * Write this invocation's UI message stream to the run's stream log (stream-log.ts), so that a client
     * that reconnects replays it with followRunStream (useChat's `resume`). Its answer's message id is
     * answerMessageId(runId) in every invocation. Default off.
     */
    resumable?: boolean | ResumableOptions;
  };

export interface ResumableOptions {
  /** Longest a chunk waits to be written, in ms (default 40). */
  flushMs?: number;
  /** The text a reader sees for an error in the stream (default: the SDK's, which hides the message). */
  errorText?: (error: unknown) => string;
  /** The stream log could not be written (the run goes on; a reconnecting client sees the stream up to there). Default: a console warning. */
  onLogError?: (error: unknown) => void;
}

export type StreamDurableResult<TOOLS extends ToolSet> = StreamTextResultOf<TOOLS> & {
  /** How the invocation ended, exactly as runDurable's promise would have: resolves once the stream is done and journaled. */
  durable: Promise<DurableResult<TOOLS>>;
};

export function streamDurable<TOOLS extends ToolSet>(options: StreamDurableOptions<TOOLS>): StreamDurableResult<TOOLS> {
  const { onError, onChunk, onAbort, experimental_transform, resumable, ...runOptions } = options;
  // A completed run replays here: the stream a caller reads is the loop's (docs/runtime.md).
  const opening = openRun(runOptions as RunDurableOptions<TOOLS>, { fromRecord: false, completedCallbacks: false });
  // Known once opened: the callbacks read it without waiting.
  let opened: OpenedRun<TOOLS> | undefined;
  let streamError: unknown;
  const noteError = (error: unknown) => {
    streamError ??= error;
  };
  const ready = opening.then((run) => {
    opened = run;
    return run;
  });
  ready.catch(() => undefined); // observed by `durable`; a stand-in that awaits it sees the rejection too

  const baseModel = resolveModel(options.model as LanguageModel);
  const loopOf = async () => {
    const run = await ready;
    return run.kind === 'execute' ? run.loop : undefined;
  };
  const executions = new ToolExecutions();
  const result = streamText({
    ...quietOnCompleted(stripRunOptions(runOptions), ready),
    model: standInModel(baseModel, loopOf),
    tools: standInTools(options.tools ?? ({} as TOOLS), loopOf, executions),
    toolApproval: async (args: unknown) => {
      const loop = await loopOf();
      return loop ? (loop.toolApproval as (a: unknown) => unknown)(args) : { type: 'user-approval' };
    },
    // The run's stop conditions (the caller's, else the default step limit, and the session's) are the opened loop's.
    stopWhen: [
      async (...args: unknown[]) => {
        if (opened?.kind !== 'execute') return true;
        // A stop condition may answer through a promise: each is awaited, in order.
        for (const stop of opened.loop.stopWhen as StopCondition<TOOLS>[]) if (await stop(...(args as [never]))) return true;
        return false;
      },
    ],
    prepareStep: async (...args: unknown[]) => {
      const loop = await loopOf();
      return loop ? (loop.prepareStep as (...a: unknown[]) => unknown)(...args) : undefined;
    },
    ...callbackStandIns(options, () => (opened?.kind === 'execute' ? opened.loop : undefined)),
    ...(options.repairToolCall || (options as { experimental_repairToolCall?: unknown }).experimental_repairToolCall
      ? {
          repairToolCall: async (args: unknown) => {
            const loop = await loopOf();
            return loop ? (loop.repairToolCall as (a: unknown) => unknown)(args) : null;
          },
        }
      : {}),
    onError: (event: { error: unknown }) => {
      streamError ??= event.error;
      return onError?.(event as never);
    },
    ...(onChunk ? { onChunk } : {}),
    ...(onAbort ? { onAbort } : {}),
    ...(experimental_transform ? { experimental_transform } : {}),
  } as unknown as StreamTextOptions<TOOLS>);

  const logging = startStreamLog(result, ready, messageRunId(options.runId), resumable as boolean | ResumableOptions | undefined);
  const durable = (async (): Promise<DurableResult<TOOLS>> => {
    let run: OpenedRun<TOOLS>;
    try {
      run = await ready;
    } catch (error) {
      await result.consumeStream({ onError: () => undefined }); // the opening's error, said by `durable`
      throw error;
    }
    if (run.kind === 'answer') {
      await result.consumeStream({ onError: noteError });
      if (streamError !== undefined) throw streamError; // the empty step itself failed: said, not dropped
      return run.result;
    }
    try {
      await result.consumeStream({ onError: noteError });
      // An abort ends the stream at once, while a tool the loop started may still run: its outcome is
      // recorded when its execute returns, with the run still held, and only then does the run settle.
      await executions.close();
      // The log's done batch is written before the run leaves 'running': a reader that finds the run
      // running and its newest stream done knows another invocation is on its way (followRunStream 'next').
      await logging;
      if (streamError !== undefined || run.session.fatal !== undefined) return await settle(run.session, { error: run.session.fatal ?? streamError });
      let awaited: Awaited<ReturnType<typeof awaitedResult<TOOLS>>>;
      try {
        awaited = await awaitedResult(result);
      } catch (error) {
        // The loop ended without a result (aborted: the signal's reason): journaled as runDurable's failure is.
        return await settle(run.session, { error });
      }
      return await settle(run.session, { result: awaited as never });
    } finally {
      // The hold the invocation ended with: a retaken one replaced the first (released already).
      await run.session.hold.release();
    }
  })();
  durable.catch(() => undefined); // the caller may only read the stream; the rejection stays on `durable`
  return Object.assign(result, { durable });
}

/**
 * The stream log's writer, started once the run is opened with its hold (an invocation refused with
 * RunBusyError writes nothing: the run's stream is the other invocation's). Resolves when its done batch
 * is written; undefined when nothing is logged.
 */
function startStreamLog<TOOLS extends ToolSet>(
  result: StreamTextResultOf<TOOLS>,
  ready: Promise<OpenedRun<TOOLS>>,
  runId: string,
  resumable: boolean | ResumableOptions | undefined,
): Promise<void> | undefined {
  if (!resumable) return undefined;
  const settings: ResumableOptions = resumable === true ? {} : resumable;
  const stream = result.toUIMessageStream({
    generateMessageId: () => answerMessageId(runId),
    ...(settings.errorText ? { onError: settings.errorText } : {}),
  }) as ReadableStream<UIMessageChunk>;
  const onError = settings.onLogError ?? ((error: unknown) => console.warn(`[gnl] ${(error as Error).message}`));
  return ready.then(
    (run) =>
      run.kind === 'execute'
        ? writeStreamLog({
            // Through the hold the session has now: one taken again to record a tool's outcome replaces the first.
            hold: { runId: run.session.runId, appendStream: (batch) => run.session.hold.appendStream(batch) },
            stream,
            invocation: randomUUID(),
            ...(settings.flushMs !== undefined ? { flushMs: settings.flushMs } : {}),
            onError,
          })
        : stream.cancel(),
    () => stream.cancel(),
  );
}

/**
 * The runId the answer's message id is made from: its NFC spelling (the run's, as openRun resolves it;
 * a refused id is refused there). Known before the run is opened, when the stream may already start.
 */
function messageRunId(runId: string): string {
  try {
    return normalizeRunId(runId);
  } catch {
    return runId; // the opening refuses it, with its InvalidRunIdError
  }
}

/** The loop's settings the caller gave that are runDurable's own, not streamText's. */
function stripRunOptions(options: Record<string, unknown>): Record<string, unknown> {
  const {
    runId: _runId,
    journal: _journal,
    strictReplay: _strict,
    agent: _agent,
    agentVersion: _version,
    conversationId: _conversation,
    maxEventsPerRun: _max,
    recordOutcomeWithinMs: _within,
    toolRetry: _retry,
    keyScheme: _scheme,
    acceptChange: _accept,
    model: _model,
    tools: _tools,
    toolApproval: _approval,
    stopWhen: _stop,
    prepareStep: _prepare,
    repairToolCall: _repair,
    experimental_repairToolCall: _repair2,
    onStepFinish: _a,
    onStepEnd: _b,
    onFinish: _c,
    onEnd: _d,
    ...rest
  } = options;
  return rest;
}

/**
 * The SDK's lifecycle callbacks the caller gave (onStart, onToolExecutionStart, …), called once the run is
 * opened unless it is a completed run replayed (OpenedRun.quiet): nothing runs again, so nothing is reported.
 */
function quietOnCompleted(settings: Record<string, unknown>, ready: Promise<OpenedRun<any>>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([name, value]) => {
      if (!isCallbackName(name) || typeof value !== 'function') return [name, value];
      const callback = async (...args: unknown[]) => {
        const run = await ready.catch(() => undefined);
        if (run?.kind === 'execute' && run.quiet) return undefined;
        return value(...args);
      };
      return [name, callback];
    }),
  );
}

/** A model that waits for the run to be opened, then streams through the recording model (or one empty step). */
function standInModel(base: LanguageModelV4, loopOf: () => Promise<Record<string, unknown> | undefined>): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: base.provider,
    modelId: base.modelId,
    supportedUrls: base.supportedUrls,
    doGenerate: async () => {
      throw new TypeError('streamDurable streams: its model is called through doStream only.');
    },
    doStream: async (params: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> => {
      const loop = await loopOf();
      if (!loop) return { stream: emptyStep() };
      return (loop.model as LanguageModelV4).doStream(params);
    },
  };
}

/** The run has nothing to do now (canceled, still waiting): one empty step, and the stop condition ends the loop. */
function emptyStep(): LanguageModelV4StreamResult['stream'] {
  return new ReadableStream({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: [] });
      controller.enqueue({
        type: 'finish',
        finishReason: { unified: 'other', raw: 'gnl: nothing to do' },
        usage: { inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 0, text: 0, reasoning: 0 } },
      });
      controller.close();
    },
  });
}

/**
 * Each tool as the loop sees it: execute waits for the run and runs the journaled tool, which every tool
 * has (a tool without execute too: the journaled tool replays the result provided for it, and the gate
 * keeps it from running before one is); approval is the gate's.
 */
function standInTools<TOOLS extends ToolSet>(tools: TOOLS, loopOf: () => Promise<Record<string, unknown> | undefined>, executions: ToolExecutions): TOOLS {
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => {
      const { needsApproval: _own, execute: _execute, ...rest } = tool as typeof tool & { needsApproval?: unknown };
      return [
        name,
        {
          ...rest,
          execute: (input: unknown, callOptions: unknown) =>
            executions.track(name, async () => {
              const loop = await loopOf();
              const journaled = (loop?.tools as ToolSet | undefined)?.[name];
              if (!journaled?.execute) throw new TypeError(`streamDurable: tool ${name} was called in a run with nothing to do.`);
              executions.assertOpen(name);
              return journaled.execute(input as never, callOptions as never);
            }),
        },
      ];
    }),
  ) as TOOLS;
}

/**
 * The tool executions the loop started, each through the journaled tool. streamText lets go of a running
 * execute when its signal aborts (the stream ends, the execute goes on), so `durable` waits for every one
 * (close) before it settles and releases the run: an outcome is recorded while the run is still held,
 * never dropped. Once closed, nothing more starts.
 */
class ToolExecutions {
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  track(name: string, work: () => Promise<unknown>): Promise<unknown> {
    this.assertOpen(name);
    const execution = work();
    this.running.add(execution);
    const done = () => void this.running.delete(execution);
    execution.then(done, done);
    return execution;
  }

  assertOpen(name: string): void {
    if (this.closed) throw new TypeError(`streamDurable: tool ${name} was called after its invocation's stream ended; it did not run.`);
  }

  /** Resolves when every execution started has settled (its outcome journaled, or its error thrown). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}

/**
 * The step and finish callbacks, with `replayed`, once the run is open (runDurable's, from its loop settings).
 * Only those the caller gave: the SDK takes onStepEnd over onStepFinish and onEnd over onFinish, so a stand-in
 * for one not given would hide the other.
 */
function callbackStandIns(given: object, loop: () => Record<string, unknown> | undefined): Record<string, (event: unknown) => unknown> {
  const names = (['onStepFinish', 'onStepEnd', 'onFinish', 'onEnd'] as const).filter((name) => (given as Record<string, unknown>)[name] !== undefined);
  return Object.fromEntries(
    names.map((name) => [
      name,
      (event: unknown) => {
        const callback = loop()?.[name] as ((e: unknown) => unknown) | undefined;
        return callback?.(event);
      },
    ]),
  );
}

/** What settle reads from a finished loop, awaited from the stream's result. */
async function awaitedResult<TOOLS extends ToolSet>(result: StreamTextResultOf<TOOLS>) {
  const [text, finishReason, steps, content, toolCalls, toolResults, usage, totalUsage, response, responseMessages] = await Promise.all([
    result.text,
    result.finishReason,
    result.steps,
    result.content,
    result.toolCalls,
    result.toolResults,
    result.usage,
    result.totalUsage,
    result.response,
    result.responseMessages,
  ]);
  const output = await Promise.resolve(result.output).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const awaited = { text, finishReason, steps, content, toolCalls, toolResults, usage, totalUsage, response, responseMessages, stream: result };
  return Object.defineProperty(awaited, 'output', {
    enumerable: true,
    get: () => {
      if ('error' in output) throw output.error;
      return output.value;
    },
  });
}
