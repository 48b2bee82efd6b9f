/**
 * What the storage adapters need from the core beyond the public surface. Not for applications:
 * import '@/lib/durable' instead.
 */
export * from './index';
export { summaryChange, type SummaryChange } from './run-summary';
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
} from './decisions';
export { encodeJson, decodeJson } from './json-codec';
export { encodeEvent, encodeEventParts } from './event-limit';
export { assertValidEvent } from './event-schemas';
export { forkRequestSchema } from './fork-request';
export { assertOutputMatchesSchema } from './output-check';
export { approvedInputHash, assertInputMatchesSchema } from './approved-input';
export { JournalSecrets, type JournalSecretsOptions } from './secret-journal';
export { journalKeyFrom, type JournalKey } from './secret-box';
export { ENVELOPE_KEY } from './secret-fields';
export { RunKeyRing, type RunKeyState } from './run-keys';
