/**
 * The executor layer: runs started by agent name, executed in the background by the Studio's server
 * (in-process) or by a pool of workers sharing one Postgres. The CLI and the Studio's server actions
 * call these.
 */
export { startRun, type StartRunOptions, type StartedRun } from './start-run';
// One decision on one call, for the Studio's actions and the HTTP API alike: checked against the tool's schemas, then journaled.
export {
  assertApproverRole,
  type DeciderRole,
  recordDecision,
  resumeAfterDecision,
  resumeReason,
  type DecisionRequest,
  type RecordedDecision,
} from './record-decision';
// Workflows run by executors (docs/workflows.md): start one, send it an event; their children are started here too.
export { startWorkflow, sendEvent, openChildrenOf, type StartWorkflowOptions, type StartedWorkflow, type SendEventOptions } from './workflows';
export { runTree, type RunTreeNode } from './run-tree';
export {
  resumeRun,
  scheduleResume,
  cancelRun,
  abandonRun,
  restartRun,
  previewRestart,
  type RestartPreview,
  type RestartEffect,
  type ControlledRun,
  type OperatorRequest,
  type ResumeRunRequest,
  type ScheduleResumeRequest,
  type RestartRequest,
} from './run-control';
export { previewMigration, migrateRun, type MigrationRequest, type MigrateRunRequest, type MigrationPreview, type MigratedRun } from './migrate-run';
export { runVersion, type RunVersion } from './run-version';
export {
  forkRun,
  previewFork,
  type ForkRunRequest,
  type PreviewForkRequest,
  type ForkedRun,
  type ForkPreview,
  type ForkKeyScope,
} from './fork-run';
export { Executor, type ExecutorOptions, type ExecutorEvent } from './executor';
export { getExecutor, stopExecutor } from './in-process';
export { queueEntry } from './queue-entry';
export type { QueueEntry } from './run-queue';
export type { ExecutorContext, StorageContext } from './context';
export type { AroundInvocation, InvokedRun } from './around-invocation';
export {
  RunNotResumableError,
  WorkersNeedPostgresError,
  InvocationStoppedError,
  MigrationRefusedError,
  type NotResumableReason,
  type MigrationRefusedReason,
} from './errors';
export { listSchedules, type ListSchedulesOptions, type ScheduleView } from './schedules';
export type { ScheduleEvent, TickReport } from './schedules';
export {
  pauseSchedule,
  unpauseSchedule,
  runScheduleNow,
  type ScheduleActionRequest,
  type RunScheduleNowRequest,
  type PausedState,
  type RanScheduleNow,
} from './schedules';
// Bulk actions on runs (cancel, resume, retry, approve by filter), in two steps: a preview, then an apply limited to it.
export { previewBulk, applyBulk, bulkPreviewRecord, PREVIEW_TTL_MS } from './bulk';
export type { BulkPreview, BulkPreviewRequest, BulkApplyRequest, BulkApplied, BulkRunResult, BulkRunRef } from './bulk';
export { BULK_ACTIONS, BULK_ACTION_NAMES, type BulkActionName } from './bulk';
export type { BulkAction, BulkTarget, Verdict, Applied, ApplyContext, Skip } from './bulk';
export { bulkFilterSchema, parseAge, describeFilter, type BulkFilter, type BulkFilterInput } from './bulk';
export type { PreviewCounts, ApplyCounts } from './bulk';
export { BulkActionError, type BulkActionErrorReason, ScheduleActionError, type ScheduleActionErrorReason } from './errors';
// Webhook notifications of runs that wait for people or failed (docs/notifications.md).
export {
  notifySettingsFromEnv,
  notifySettingsForDirectory,
  NotifySettingsError,
  type NotifySettings,
  type NotifyTarget,
  type NotifyFormat,
  WebhookStore,
  WebhookInputError,
  webhookId,
  type WebhookRecord,
  type WebhookAuditEntry,
  postWebhook,
  EVENT_ID_HEADER,
} from './notifications';
export { runNotifications } from './notifications';
export type { OutboxRow as RunNotification, Delivery, TargetResult } from './notifications';
export { notificationEventId, type NotificationBody } from './notifications';
export type { NotifierEvent } from './notifications';
export { checkHealth, healthStatusCode, serveHealth, type Health, HEALTH_TIMEOUT_MS } from './observability';
export { GnlMetrics } from './observability';
// Retention: ended runs dropped after their agent's retention, a batch at a time, each drop logged (docs/operations.md#retention).
export { dropExpiredRuns, findExpiredRuns, ENDED_STATUSES, type ExpiredRun, type DroppedRun, type RetentionBatch, type RetentionCursor } from './retention';
export type { RetentionSkipReason, DropExpiredRequest, FindExpiredRequest } from './retention';
export { retentionPolicy, retentionSettingsFromEnv, RetentionSettingsError, type RetentionPolicy, type RetentionSettings } from './retention';
export { retentionLog, type RetentionLogEntry, type RetentionLogRequest } from './retention';
export type { RetentionEvent, RetentionPassReport } from './retention';
export { dropExpiredMemory, dropExpiredMemoryBatches, findExpiredMemory, memoryRetentionLog, type DroppedMemory, type MemoryRetentionBatch } from './retention';
export { startTraceExport, type TraceExport } from './observability';
