/**
 * Names of work in the outside world. idempotencyKey (idempotency-key.ts) is the one place keys are
 * built, by the scheme the run recorded (key-scheme.ts); operation-key.ts picks a tool call's key from
 * its options; call-identity.ts decides which recorded arguments and key a replayed call uses (a fork's:
 * ../fork/fork-keys.ts). run-id.ts: the rules for run, conversation and subject ids (normalizeRunId: one spelling per job). canonical-json.ts:
 * the one JSON spelling every hash and key is taken over.
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export {
  MAX_CONVERSATION_ID_LENGTH,
  MAX_RUN_ID_LENGTH,
  assertValidConversationId,
  assertValidRunId,
  assertValidSubject,
  normalizeRunId,
  resolveRunId,
} from './run-id';
export { DEFAULT_KEY_SCHEME, idempotencyKey, KEY_SCHEMES, type IdempotencyScope, type KeyScheme } from './idempotency-key';
export { canonicalJson } from './canonical-json';
export { operationKey } from './operation-key';
