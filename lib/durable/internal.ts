/**
 * What the storage adapters need from the core beyond the public surface. Not for applications:
 * import '@/lib/durable' instead.
 */
export * from './index';
export { isWholeRun, runStartedAt, summaryChange, type SummaryChange } from './projection';
export {
  planDecision,
  planCancel,
  planResumeRequest,
  planRestartLink,
  restartLinkRequestSchema,
  approvalDecisionSchema,
  approveRequestSchema,
  sideEffectResolutionSchema,
  toolResultSchema,
  cancelRequestSchema,
  resumeRequestSchema,
  type DecisionRequest,
  type PriorDecision,
} from './decisions';
export { encodeJson, decodeJson, decodeOwnedJson } from './journal';
export { encodeEvent, encodeEventParts } from './journal';
export { assertValidEvent } from './journal';
export { forkRequestSchema } from './fork';
export { planSendEvent, sendEventRequestSchema } from './workflow';
export { assertOutputMatchesSchema } from './tools';
export { approvedInputHash, assertInputMatchesSchema } from './decisions';
export { JournalSecrets, type JournalSecretsOptions } from './sealing';
export { journalKeyFrom, type JournalKey } from './sealing';
export { ENVELOPE_KEY } from './secrets';
export { RunKeyRing, type RunKeyState } from './sealing';
