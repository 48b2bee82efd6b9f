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
} from './run';
export { tokenBudgetIs, type TokenBudget } from './usage';
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
} from './usage';
export { gnlTool, toolDeclaration, toolLookup, type GnlToolOptions, type CheckContext, type CheckResult, type LookupResult } from './tools';
export { askPerson } from './tools';
// An MCP server's tools under the same door (docs/tool-semantics.md#mcp-tools): each declared, none guessed.
export { durableMcpTools, type DurableMcpToolsOptions, type McpCallResult, type McpClientLike, type McpToolDeclaration } from './mcp';
// Memory across runs (docs/memory.md): the port, recall/remember and working memory tools, runDurable's memory option.
export {
  type MemoryItem,
  type MemoryResource,
  type MemoryStore,
  type MemoryThread,
  memoryTools,
  type MemoryToolsOptions,
  type RecalledItem,
  runMemoryView,
  type RunMemoryView,
  type RecalledView,
  type RunMemory,
  exportMemory,
  memoryExportText,
  type MemoryExportLine,
  APPEND_TURN_TOOL,
  readRunMemory,
  unitVector,
  type WorkingMemory,
  type WorkingWrite,
} from './memory';
export { type SubAgentOutput, subAgentOf, subAgentOutput, subAgentRunId, subAgentTool } from './tools';
export { type JobRun, jobEffects, jobNeighbours, jobRuns, relatedEffects, type RelatedEffect } from './tools';
export { fromLastModelStep, planResume, type PlannedAction, type PlannedCall, type ToolDeclaration } from './projection';
export {
  GnlError,
  SideEffectRetryBlockedError,
  SideEffectElsewhereError,
  JobBusyError,
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
  ApprovalRuleError,
  type ApprovalRuleRefusal,
  JournalDataError,
  RunEventLimitError,
  HoldSessionError,
  type HoldSessionProblem,
  ForkRefusedError,
  RunTransferError,
  RunRetiredError,
  type RunTransferRefusal,
  type ForkRefusal,
  type DecisionConflictReason,
  type OutputIssue,
  WorkflowInputError,
  MemoryInputError,
  StepRejectedError,
  ChildRunFailedError,
  EventRefusedError,
  McpDeclarationError,
  McpToolError,
} from './errors';
export {
  defineWorkflow,
  isWorkflow,
  parseEventPayload,
  parseWorkflowInput,
  readChild,
  runWorkflow,
  waitingFor,
  workflowRunInput,
  WorkflowContext,
  WORKFLOW_NAME,
  type ChildOutcome,
  type ChildRef,
  type ChildSpec,
  type ChildStarter,
  type EventResult,
  type FanOutOptions,
  type RunWorkflowOptions,
  type SendEventRequest,
  type StepContext,
  type StepOptions,
  type WaitForEventOptions,
  type WaitingFor,
  type Workflow,
  type WorkflowDefinition,
  type WorkflowResult,
  WorkflowMemory,
  type WorkflowMemoryDeclaration,
  type WorkflowMemoryOptions,
} from './workflow';
export { checkOutputSchema, type OutputCheck } from './tools';
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
} from './fork';
export { forkEditSchema, type JournalForkRequest } from './fork';
export { RUN_STATUSES, isRunStatus, type RunStatus } from './journal';
export { DurableAgent, type DurableAgentCall, type DurableAgentSettings } from './run';
export { streamDurable, type StreamDurableOptions, type StreamDurableResult, type ResumableOptions } from './stream';
export { answerMessageId, followRunStream, StreamSupersededError, type FollowRunStreamOptions } from './stream';
export { RunState, statusAfter, type ToolOperation, type ApprovalState, type RunMigration } from './projection';
export { runTimers, type RunTimer } from './projection';
export type { RetryRecord, ScheduledResume } from './projection';
export { addToTotals, EMPTY_TOTALS, type RunTotals, stepModelTokens } from './projection';
export { addModelStep, isMetered, type ModelTokens } from './usage';
export { buildCallHistory, type CallHistory, type CallRecord } from './projection';
export { journaledFailureOf, type JournaledFailure } from './run';
export {
  MAX_CONVERSATION_ID_LENGTH,
  MAX_RUN_ID_LENGTH,
  assertValidConversationId,
  assertValidRunId,
  assertValidSubject,
  normalizeRunId,
  resolveRunId,
} from './identity';
export { DEFAULT_KEY_SCHEME, idempotencyKey, KEY_SCHEMES, type IdempotencyScope, type KeyScheme } from './identity';
export { canonicalJson } from './identity';
export { buildRunInput, runInputDifferences, type RunInputSource } from './run';
export { resolveModel } from './model';
export type {
  Journal,
  LiveJournal,
  RunHold,
  HoldOptions,
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
} from './export';
export { MAX_EVENT_BYTES, MAX_EVENTS_PER_RUN, MAX_JSON_DEPTH } from './journal';
export { ERASED_TEXT, RunErasedError, type RunErasure } from './sealing';
export { REDACTED, redactSecrets, redactingReplacer, looksLikeApiKey, SecretFields, secretFieldsFromEnv, DEFAULT_SECRET_FIELDS } from './secrets';
export type {
  JournalEvent,
  JournalEventType,
  RecordedEvent,
  PendingItem,
  Decision,
  ApprovalRule,
  ApprovalVote,
  ApprovalProposal,
  RunInput,
  ErrorInfo,
  TraceContext,
} from './journal';
export { errorInfo } from './journal';
export type { RunSummary } from './projection';
export type { ApprovalDecisionRequest, ApproveRequest, RestartLinkRequest, SideEffectResolutionRequest, ToolResultRequest } from './decisions';
// The HTTP API's client (docs/api.md): its wire as zod schemas, and a typed client over fetch.
export { createGnlClient, GnlApiError, type GnlClient, type GnlClientOptions, type FollowOptions } from './client';
