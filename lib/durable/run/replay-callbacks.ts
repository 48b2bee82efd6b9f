/**
 * The SDK's step and finish callbacks fire for replayed steps too (the loop really runs, answered from
 * the journal). GNL adds `replayed` to their events: a step is replayed when its model call was read
 * back from the journal; a finish is replayed when every step was. A call on a run that is completed
 * already calls none (`withoutCallbacks` when it replays, and none when it answers from its record):
 * nothing runs again, and a callback that bills or notifies must not do it twice.
 */
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
