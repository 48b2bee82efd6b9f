/**
 * A model answer too big for the journal (over MAX_EVENT_BYTES) is paid for and cannot be kept. If
 * nothing were recorded, every resume would call the model again, pay again and be refused again.
 * So the step is recorded with a stand-in result naming the size, and the run fails: a replay of that
 * step throws the same refusal without calling the model. Going on takes an operator's say: restart
 * the run (with a smaller maxOutputTokens, say); the recorded step is never asked again.
 *
 * The stand-in sits in the model-step's `result` (unknown to the vocabulary), so no new event type is
 * needed and older readers see a model step with no content. docs/large-payloads.md.
 */
import { JournalDataError } from '../errors';

const KEY = 'gnlRefused';

export interface RefusedStep {
  [KEY]: { bytes: number; limit: number };
}

/** The stand-in recorded in place of an answer the journal refused for its size. */
export function refusedStepResult(tooLarge: { bytes: number; limit: number }): RefusedStep {
  return { [KEY]: { bytes: tooLarge.bytes, limit: tooLarge.limit } };
}

/** The refusal a recorded result stands for, or undefined for a real answer (which never has this key). */
export function refusalOf(result: unknown): RefusedStep[typeof KEY] | undefined {
  if (result === null || typeof result !== 'object' || !Object.hasOwn(result, KEY)) return undefined;
  return (result as RefusedStep)[KEY];
}

/** The error a run fails with, when the step is answered and each time it is replayed. */
export function refusedStepError(args: { runId: string; step: number; bytes: number; limit: number; cause?: unknown }): JournalDataError {
  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  return new JournalDataError(
    `Run "${args.runId}": the model's answer to step ${args.step} was ${mib(args.bytes)}, over the journal's limit of ${mib(args.limit)} per event ` +
      '(MAX_EVENT_BYTES). It was recorded as refused and is not asked again: restart the run (with a smaller maxOutputTokens, say) to go on.',
    { cause: args.cause, tooLarge: { eventType: 'model-step', bytes: args.bytes, limit: args.limit } },
  );
}
