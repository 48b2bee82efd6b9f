/**
 * The SDK's step and finish callbacks fire for replayed steps too (the loop really runs, answered from
 * the journal). GNL adds `replayed` to their events: a step is replayed when its model call was read
 * back from the journal; a finish is replayed when every step was. A call on a run that is completed
 * already calls them as well, every step and the finish `replayed: true`: from its record when it
 * answers from it (`announceAnswer`, the loop not run), through the loop when it replays; so a caller
 * that builds something from its callbacks gets the same steps whether a run was completed or one step
 * short of it. The SDK's other lifecycle callbacks (onStart, onStepStart, onToolExecutionStart, …) are
 * not called on a completed run (`withoutCallbacks`): they announce work starting, and none starts.
 * A callback with a side effect checks `replayed` (or the side effect goes in a tool).
 */
import type { GenerateTextResult, ToolSet } from 'ai';
import type { RunSession } from './run-session';

type Callback = ((event: any) => unknown) | undefined;

export interface ReplayCallbacks {
  onStepFinish?: Callback;
  onStepEnd?: Callback;
  onFinish?: Callback;
  onEnd?: Callback;
}

export function withReplayedFlag(callbacks: ReplayCallbacks, session: RunSession): ReplayCallbacks {
  const step = (callback: Callback): Callback =>
    callback && ((event: { stepNumber: number }) => callback(Object.assign(event, { replayed: session.replayedSteps.has(event.stepNumber) })));
  const finish = (callback: Callback): Callback =>
    callback &&
    ((event: { steps: { stepNumber: number }[] }) =>
      callback(Object.assign(event, { replayed: event.steps.every((s) => session.replayedSteps.has(s.stepNumber)) })));
  const wrapped: ReplayCallbacks = {};
  if (callbacks.onStepFinish) wrapped.onStepFinish = step(callbacks.onStepFinish);
  if (callbacks.onStepEnd) wrapped.onStepEnd = step(callbacks.onStepEnd);
  if (callbacks.onFinish) wrapped.onFinish = finish(callbacks.onFinish);
  if (callbacks.onEnd) wrapped.onEnd = finish(callbacks.onEnd);
  return wrapped;
}

/** The SDK's lifecycle callbacks (`onStart`, `experimental_onToolCallStart`, …): what a callback's name looks like. */
export function isCallbackName(name: string): boolean {
  return /^(experimental_)?on[A-Z]/.test(name);
}

/** The settings without the caller's callbacks: a completed run's replay reports nothing (nothing runs again). */
export function withoutCallbacks(settings: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(settings).filter(([name]) => !isCallbackName(name)));
}

/**
 * A completed run answered from its record (completed-result.ts): its steps and its finish reported to the
 * caller's callbacks as the SDK's loop reports them, each `replayed: true`, from the rebuilt result (no
 * read, no model call). As the SDK: onStepEnd over onStepFinish and onEnd over onFinish, each awaited in
 * turn, and a callback that throws does not fail the call (generateText's `notify` ignores it too).
 */
export async function announceAnswer(result: GenerateTextResult<ToolSet, any, any>, callbacks: ReplayCallbacks): Promise<void> {
  const onStep = callbacks.onStepEnd ?? callbacks.onStepFinish;
  const onEnd = callbacks.onEnd ?? callbacks.onFinish;
  if (!onStep && !onEnd) return;
  const steps = result.steps;
  if (onStep) for (const step of steps) await quietly(onStep, Object.assign(step, { replayed: true }));
  const last = steps.at(-1);
  if (onEnd && last) await quietly(onEnd, { ...finishEvent(result, last), replayed: true });
}

/** The event generateText gives onEnd at the end of its loop, field for field. */
function finishEvent(result: GenerateTextResult<ToolSet, any, any>, last: GenerateTextResult<ToolSet, any, any>['steps'][number]) {
  return {
    callId: last.callId,
    stepNumber: last.stepNumber,
    model: last.model,
    runtimeContext: last.runtimeContext,
    finishReason: last.finishReason,
    rawFinishReason: last.rawFinishReason,
    usage: result.totalUsage,
    totalUsage: result.totalUsage,
    content: result.content,
    text: last.text,
    reasoning: last.reasoning,
    reasoningText: last.reasoningText,
    files: result.files,
    sources: result.sources,
    toolCalls: result.toolCalls,
    staticToolCalls: result.staticToolCalls,
    dynamicToolCalls: result.dynamicToolCalls,
    toolResults: result.toolResults,
    staticToolResults: result.staticToolResults,
    dynamicToolResults: result.dynamicToolResults,
    responseMessages: result.responseMessages,
    warnings: result.warnings,
    request: last.request,
    response: last.response,
    providerMetadata: last.providerMetadata,
    steps: result.steps,
    finalStep: last,
    toolsContext: last.toolsContext,
  };
}

async function quietly(callback: NonNullable<Callback>, event: unknown): Promise<void> {
  try {
    await callback(event);
  } catch {
    // As generateText: a callback's failure is the callback's, the answer stands.
  }
}
