/**
 * Whether an invocation journaled the failure it throws: runDurable marks the error it recorded as the
 * run's `run-fail` (run id and seq) before throwing it, so a caller (the executor's invocation outcome)
 * tells "this invocation failed the run" from "the journal failed under it" by the error itself, not by
 * comparing its message with the journal's last event. The mark is a registered symbol, so it is seen
 * across bundles and duplicated installs. A thrown primitive or a frozen object cannot carry it: it reads
 * as not journaled, the conservative side (the executor gives the run back to be tried again).
 */
const MARK = Symbol.for('gnl.journaledFailure');

export interface JournaledFailure {
  runId: string;
  /** The seq of the run-fail that records it. */
  seq: number;
}

export function markJournaledFailure(error: unknown, failure: JournaledFailure): void {
  if ((typeof error !== 'object' && typeof error !== 'function') || error === null || !Object.isExtensible(error)) return;
  Object.defineProperty(error, MARK, { value: failure, enumerable: false, configurable: true });
}

/** The run-fail that records this error, when runDurable journaled it. */
export function journaledFailureOf(error: unknown): JournaledFailure | undefined {
  if ((typeof error !== 'object' && typeof error !== 'function') || error === null) return undefined;
  return (error as { [MARK]?: JournaledFailure })[MARK];
}
