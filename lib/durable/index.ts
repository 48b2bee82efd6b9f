/**
 * The public surface of GNL's runtime core. Keep it minimal: add nothing here unless callers need it.
 * This folder imports only ai, @ai-sdk/provider, zod and node built-ins (tests/import-arrows.test.ts).
 */
export {
  runDurable,
  DEFAULT_MAX_STEPS,
  type RunDurableOptions,
  type DurableResult,
  type PendingApproval,
  type PendingToolResult,
  type Replayed,
} from './run/run-durable';
export { tokenBudgetIs, type TokenBudget } from './usage/stop-conditions';
export {
  readTokenUsage,
  stepTokenUsage,
  tokenTotal,
  addTokenUsage,
  billedTokens,
  NO_TOKENS,
  type TokenUsage,
  type TokenCounts,
  type BilledTokens,
} from './usage/model-usage';
export { gnlTool, toolDeclaration, toolLookup, type GnlToolOptions, type CheckContext, type CheckResult, type LookupResult } from './tools/gnl-tool';
export { askPerson } from './tools/ask-person';
export { fromLastModelStep, planResume, type PlannedAction, type PlannedCall, type ToolDeclaration } from './projection/run-plan';
export {
  GnlError,
  SideEffectRetryBlockedError,
  RunBusyError,
  HoldLostError,
  RunMovedError,
  RunDivergedError,
  RunCanceledError,
  ToolCallFailedError,
  ToolNotPerformedError,
  type Divergence,
  InvalidRunIdError,
  DecisionConflictError,
  JournalDataError,
  RunEventLimitError,
  HoldSessionError,
  type HoldSessionProblem,
  ForkRefusedError,
  RunTransferError,
  type RunTransferRefusal,
  type ForkRefusal,
  type DecisionConflictReason,
  type OutputIssue,
} from './errors';
export { checkOutputSchema, type OutputCheck } from './tools/output-check';
export {
  editableResults,
  type EditableResult,
  planFork,
  type ForkEdit,
  type ForkOrigin,
  type ForkPlan,
  type ForkRequest,
  type InheritedKey,
  type RepeatableSideEffect,
} from './fork/fork-plan';
export { forkEditSchema, type JournalForkRequest } from './fork/fork-request';
export { RUN_STATUSES, isRunStatus, type RunStatus } from './journal/run-status';
export { DurableAgent, type DurableAgentCall, type DurableAgentSettings } from './run/durable-agent';
export { streamDurable, type StreamDurableOptions, type StreamDurableResult, type ResumableOptions } from './stream/stream-durable';
export { answerMessageId, followRunStream, StreamSupersededError, type FollowRunStreamOptions } from './stream/stream-log';
export { RunState, statusAfter, type ToolOperation, type ApprovalState, type RunMigration } from './projection/run-state';
export { runTimers, type RunTimer } from './projection/run-timers';
export type { RetryRecord, ScheduledResume } from './projection/run-state';
export { addToTotals, EMPTY_TOTALS, type RunTotals, stepModelTokens } from './projection/run-totals';
export { addModelStep, isMetered, type ModelTokens } from './usage/model-tokens';
export { buildCallHistory, type CallHistory, type CallRecord } from './projection/call-history';
export { journaledFailureOf, type JournaledFailure } from './run/journaled-failure';
export { MAX_CONVERSATION_ID_LENGTH, MAX_RUN_ID_LENGTH, assertValidConversationId, assertValidRunId, assertValidSubject } from './identity/run-id';
export { DEFAULT_KEY_SCHEME, idempotencyKey, KEY_SCHEMES, type IdempotencyScope, type KeyScheme } from './identity/idempotency-key';
export { canonicalJson } from './identity/canonical-json';
export { buildRunInput, runInputDifferences, type RunInputSource } from './run/run-input';
export { resolveModel } from './model/resolve-model';
export type {
  Journal,
  LiveJournal,
  RunHold,
  CancelRequest,
  ResumeRequest,
  ListRunsOptions,
  RunPage,
  SubscribeOptions,
  Subscription,
  WatchRunsOptions,
  RunChange,
  StreamBatch,
  StreamBatchInput,
  WatchStreamOptions,
  ImportRunRequest,
} from './journal/journal';
// A run's journal as JSON lines and back (gnl export / import, the Studio's Export).
export {
  exportRun,
  exportText,
  parseRunExport,
  planImport,
  RUN_EXPORT_FORMAT,
  RUN_EXPORT_VERSION,
  type RunExport,
  type RunExportHeader,
  type ExportRunOptions,
  type ParsedRunExport,
  type ImportPlan,
} from './export/run-export';
export { MAX_EVENT_BYTES, MAX_EVENTS_PER_RUN, MAX_JSON_DEPTH } from './journal/event-limit';
export { ERASED_TEXT, RunErasedError, type RunErasure } from './sealing/run-keys';
export { REDACTED, redactSecrets, redactingReplacer, looksLikeApiKey, SecretFields, secretFieldsFromEnv, DEFAULT_SECRET_FIELDS } from './secrets/secret-fields';
export type { JournalEvent, JournalEventType, RecordedEvent, PendingItem, Decision, RunInput, ErrorInfo, TraceContext } from './journal/events';
export { errorInfo } from './journal/events';
export type { RunSummary } from './projection/run-summary';
export type { ApprovalDecisionRequest, ApproveRequest, SideEffectResolutionRequest, ToolResultRequest } from './decisions/decisions';
