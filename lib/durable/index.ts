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
} from './run-durable';
export { tokenBudgetIs, type TokenBudget } from './stop-conditions';
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
} from './model-usage';
export { gnlTool, toolDeclaration, toolLookup, type GnlToolOptions, type CheckContext, type CheckResult, type LookupResult } from './gnl-tool';
export { askPerson } from './ask-person';
export { fromLastModelStep, planResume, type PlannedAction, type PlannedCall, type ToolDeclaration } from './run-plan';
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
export { checkOutputSchema, type OutputCheck } from './output-check';
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
} from './fork-plan';
export { forkEditSchema, type JournalForkRequest } from './fork-request';
export { RUN_STATUSES, isRunStatus, type RunStatus } from './run-status';
export { DurableAgent, type DurableAgentCall, type DurableAgentSettings } from './durable-agent';
export { streamDurable, type StreamDurableOptions, type StreamDurableResult, type ResumableOptions } from './stream-durable';
export { answerMessageId, followRunStream, StreamSupersededError, type FollowRunStreamOptions } from './stream-log';
export { RunState, statusAfter, type ToolOperation, type ApprovalState, type RunMigration } from './run-state';
export { runTimers, type RunTimer } from './run-timers';
export type { RetryRecord, ScheduledResume } from './run-state';
export { addToTotals, EMPTY_TOTALS, type RunTotals, stepModelTokens } from './run-totals';
export { addModelStep, isMetered, type ModelTokens } from './model-tokens';
export { buildCallHistory, type CallHistory, type CallRecord } from './call-history';
export { journaledFailureOf, type JournaledFailure } from './journaled-failure';
export { MAX_CONVERSATION_ID_LENGTH, MAX_RUN_ID_LENGTH, assertValidConversationId, assertValidRunId, assertValidSubject } from './run-id';
export { DEFAULT_KEY_SCHEME, idempotencyKey, KEY_SCHEMES, type IdempotencyScope, type KeyScheme } from './idempotency-key';
export { canonicalJson } from './canonical-json';
export { buildRunInput, runInputDifferences, type RunInputSource } from './run-input';
export { resolveModel } from './resolve-model';
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
} from './journal';
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
} from './run-export';
export { MAX_EVENT_BYTES, MAX_EVENTS_PER_RUN, MAX_JSON_DEPTH } from './event-limit';
export { ERASED_TEXT, RunErasedError, type RunErasure } from './run-keys';
export { REDACTED, redactSecrets, redactingReplacer, looksLikeApiKey, SecretFields, secretFieldsFromEnv, DEFAULT_SECRET_FIELDS } from './secret-fields';
export type { JournalEvent, JournalEventType, RecordedEvent, PendingItem, Decision, RunInput, ErrorInfo, TraceContext } from './events';
export { errorInfo } from './events';
export type { RunSummary } from './run-summary';
export type { ApprovalDecisionRequest, ApproveRequest, SideEffectResolutionRequest, ToolResultRequest } from './decisions';
