/**
 * Which key scheme a run's idempotency keys are made by (idempotency-key.ts builds the keys). Apart
 * from the hashing so that the projection (run-state.ts), which reads a run's recorded scheme, stays
 * free of node:crypto and runs in the browser too.
 */
import { JournalDataError } from '../errors';

export const KEY_SCHEMES = [1, 2, 3] as const;
export type KeyScheme = (typeof KEY_SCHEMES)[number];
/** The scheme new runs are started with unless runDurable's `keyScheme` says otherwise (3: 'args' keys hash text in NFC). */
export const DEFAULT_KEY_SCHEME: KeyScheme = 3;

/** A run's key scheme as its start input records it (none recorded: 1), refusing one this code does not know. */
export function keySchemeOf(recorded: unknown, runId: string): KeyScheme {
  if (recorded === undefined) return 1;
  if (KEY_SCHEMES.includes(recorded as KeyScheme)) return recorded as KeyScheme;
  throw new JournalDataError(
    `Run "${runId}" records key scheme ${JSON.stringify(recorded)}, which this version of GNL does not know (it knows ${KEY_SCHEMES.join(', ')}): run it with the version that started it.`,
  );
}
