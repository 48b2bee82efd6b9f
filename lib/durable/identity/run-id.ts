import { InvalidRunIdError } from '../errors';

/**
 * The runId rule: one job, one spelling. A runId names a job in the outside world (idempotency keys are
 * made from it), so two ids a person cannot tell apart must not be two jobs:
 * - it is stored in Unicode NFC: "café" typed as e + U+0301 (NFD) is the run "café" (U+00E9);
 * - refused, naming the character as U+XXXX: control characters and lone surrogates; invisible format
 *   characters (Unicode Cf: zero-width U+200B-200D, U+2060, the BOM U+FEFF, bidi controls U+200E/F,
 *   U+061C, U+202A-202E, U+2066-2069, soft hyphen, tag characters); line and paragraph separators and
 *   every space but U+0020 (U+00A0, U+3000, …: they look like a space and are not one); a space at
 *   either end; an id of only spaces.
 * normalizeRunId applies it where an id enters; resolveRunId also finds a run recorded under another
 * spelling before the rule (exactly as given), so such a run is continued, never started again.
 */

/** Longest runId accepted, in characters (Unicode code points), counted after NFC. Named in docs/limits.md. */
export const MAX_RUN_ID_LENGTH = 512;

// Control characters and lone surrogates cannot be shown, logged or put in a header safely.
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;
// What the rule refuses inside an id (leading and trailing U+0020 are checked apart).
const REFUSED = /[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}]|(?![ ])\p{White_Space}/u;

/** The canonical spelling of a new or given runId (NFC), or InvalidRunIdError saying what the rule refuses. */
export function normalizeRunId(raw: unknown): string {
  if (typeof raw !== 'string') throw new InvalidRunIdError(`runId must be a string, got ${typeof raw}.`);
  const runId = wellFormed(raw) ? raw.normalize('NFC') : raw; // a lone surrogate is refused below, with its position
  const length = [...runId].length;
  if (length === 0) throw new InvalidRunIdError('runId must not be empty.');
  if (length > MAX_RUN_ID_LENGTH) throw new InvalidRunIdError(`runId is ${length} characters long; the limit is ${MAX_RUN_ID_LENGTH}.`);
  const refused = REFUSED.exec(runId);
  if (refused) {
    const at = [...runId.slice(0, refused.index)].length + 1;
    throw new InvalidRunIdError(`runId contains ${codePoint(refused[0])} (${kindOf(refused[0])}) at character ${at}: ${RULE}`);
  }
  if (runId.trim() === '') throw new InvalidRunIdError(`runId must not be only spaces: ${RULE}`);
  if (runId.startsWith(' ') || runId.endsWith(' ')) throw new InvalidRunIdError(`runId must not start or end with a space (U+0020): ${RULE}`);
  return runId;
}

const RULE = 'a runId is printable text without invisible characters (docs/limits.md, "runIds").';

/**
 * The runId a given id addresses: the id as given when a run is recorded under it exactly (a run
 * recorded before the rule, under a spelling the rule would change or refuse, is still found and
 * continued), else normalizeRunId(raw). `isRecorded` is asked only for an id the rule would change.
 */
export async function resolveRunId(raw: unknown, isRecorded: (runId: string) => Promise<boolean>): Promise<string> {
  let normalized: string | undefined;
  let refusal: unknown;
  try {
    normalized = normalizeRunId(raw);
  } catch (error) {
    refusal = error;
  }
  if (normalized !== undefined && normalized === raw) return normalized;
  if (isStorable(raw) && (await isRecorded(raw))) return raw;
  if (normalized === undefined) throw refusal;
  return normalized;
}

/** Throws InvalidRunIdError unless runId is 1..MAX_RUN_ID_LENGTH printable characters: an id the journal can hold and look up exactly. */
export function assertValidRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== 'string') throw new InvalidRunIdError(`runId must be a string, got ${typeof runId}.`);
  const length = [...runId].length;
  if (length === 0) throw new InvalidRunIdError('runId must not be empty.');
  if (length > MAX_RUN_ID_LENGTH) {
    throw new InvalidRunIdError(`runId is ${length} characters long; the limit is ${MAX_RUN_ID_LENGTH}.`);
  }
  if (UNPRINTABLE.test(runId)) throw new InvalidRunIdError('runId must contain only printable characters (no control characters).');
}

function isStorable(raw: unknown): raw is string {
  try {
    assertValidRunId(raw);
    return true;
  } catch {
    return false; // not an id anything can be recorded under: the rule's own refusal is the answer
  }
}

function wellFormed(value: string): boolean {
  return !/\p{Cs}/u.test(value);
}

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
}

function kindOf(char: string): string {
  if (/\p{Cc}/u.test(char)) return 'a control character';
  if (/\p{Cs}/u.test(char)) return 'a lone surrogate';
  if (/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u.test(char)) return 'a bidi control';
  if (/[\u200B-\u200D\u2060\uFEFF]/u.test(char)) return char === '\uFEFF' ? 'a zero-width no-break space (BOM)' : 'a zero-width character';
  if (/\p{Cf}/u.test(char)) return 'an invisible format character';
  return 'a space other than U+0020';
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
