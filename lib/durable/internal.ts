/**
 * What the storage adapters need from the core beyond the public surface. Not for applications:
 * import '@/lib/durable' instead.
 */
export * from './index';
export { summaryChange, type SummaryChange } from './projection/run-summary';
export {
  planDecision,
  planCancel,
  planResumeRequest,
  approvalDecisionSchema,
  approveRequestSchema,
  sideEffectResolutionSchema,
  toolResultSchema,
  cancelRequestSchema,
  resumeRequestSchema,
  type DecisionRequest,
  type PriorDecision,
} from './decisions/decisions';
export { encodeJson, decodeJson } from './journal/json-codec';
export { encodeEvent, encodeEventParts } from './journal/event-limit';
export { assertValidEvent } from './journal/event-schemas';
export { forkRequestSchema } from './fork/fork-request';
export { assertOutputMatchesSchema } from './tools/output-check';
export { approvedInputHash, assertInputMatchesSchema } from './decisions/approved-input';
export { JournalSecrets, type JournalSecretsOptions } from './sealing/secret-journal';
export { journalKeyFrom, type JournalKey } from './sealing/secret-box';
export { ENVELOPE_KEY } from './secrets/secret-fields';
export { RunKeyRing, type RunKeyState } from './sealing/run-keys';
