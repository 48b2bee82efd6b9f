import { InvalidRunIdError } from '../errors';

/** Longest runId accepted, in characters (Unicode code points). Named in docs/limits.md. */
export const MAX_RUN_ID_LENGTH = 512;

// Control characters and lone surrogates cannot be shown, logged or put in a header safely.
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

/** Throws InvalidRunIdError unless runId is 1..MAX_RUN_ID_LENGTH printable characters. */
export function assertValidRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== 'string') throw new InvalidRunIdError(`runId must be a string, got ${typeof runId}.`);
  const length = [...runId].length;
  if (length === 0) throw new InvalidRunIdError('runId must not be empty.');
  if (length > MAX_RUN_ID_LENGTH) {
    throw new InvalidRunIdError(`runId is ${length} characters long; the limit is ${MAX_RUN_ID_LENGTH}.`);
  }
  if (UNPRINTABLE.test(runId)) throw new InvalidRunIdError('runId must contain only printable characters (no control characters).');
}

export const MAX_CONVERSATION_ID_LENGTH = 200;

/** A subject (who a run's data is about, for erasure) is optional; given, it is 1 to 200 printable characters. */
export function assertValidSubject(subject: unknown): asserts subject is string | undefined {
  assertOptionalShortId('subject', subject);
}

/** A conversation id is optional; given, it is 1 to 200 printable characters. InvalidRunIdError otherwise. */
export function assertValidConversationId(conversationId: unknown): asserts conversationId is string | undefined {
  assertOptionalShortId('conversationId', conversationId);
}

function assertOptionalShortId(name: string, value: unknown): asserts value is string | undefined {
  if (value === undefined) return;
  if (typeof value !== 'string') throw new InvalidRunIdError(`${name} must be a string, got ${typeof value}.`);
  const length = [...value].length;
  if (length === 0 || length > MAX_CONVERSATION_ID_LENGTH)
    throw new InvalidRunIdError(`${name} must be 1 to ${MAX_CONVERSATION_ID_LENGTH} characters (got ${length}).`);
  if (UNPRINTABLE.test(value)) throw new InvalidRunIdError(`${name} must contain only printable characters (no control characters).`);
}
