/**
 * The executor layer: runs started by agent name, executed in the background by the Studio's server
 * (in-process) or by a pool of workers sharing one Postgres. The CLI and the Studio's server actions
 * call these.
 */
export { startRun, type StartRunOptions, type StartedRun } from './start-run';
export {
  resumeRun,
  scheduleResume,
  cancelRun,
  abandonRun,
  restartRun,
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
export { listSchedules, type ListSchedulesOptions, type ScheduleView } from './schedule-list';
export type { ScheduleEvent, TickReport } from './schedule-ticker';
// Bulk actions on runs (cancel, resume, retry, approve by filter), in two steps: a preview, then an apply limited to it.
export { previewBulk, applyBulk, bulkPreviewRecord, PREVIEW_TTL_MS } from './bulk-operation';
export type { BulkPreview, BulkPreviewRequest, BulkApplyRequest, BulkApplied, BulkRunResult, BulkRunRef } from './bulk-operation';
export { BULK_ACTIONS, BULK_ACTION_NAMES, type BulkActionName } from './bulk-actions';
export type { BulkAction, BulkTarget, Verdict, Applied, ApplyContext, Skip } from './bulk-action';
export { bulkFilterSchema, parseAge, describeFilter, type BulkFilter, type BulkFilterInput } from './bulk-filter';
export type { PreviewCounts, ApplyCounts } from './bulk-store';
export { BulkActionError, type BulkActionErrorReason } from './errors';
