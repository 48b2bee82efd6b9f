/**
 * Retention: ended runs dropped after their agent's retention. retention-policy.ts (days per agent,
 * GNL_RETENTION_DAYS), retention.ts (dropExpiredRuns: a batch, each run in its own transaction, logged:
 * the journal's one DELETE door), retention-ticker.ts (one pass per interval across executors),
 * retention-log.ts (what was dropped), memory-retention.ts (memory older than GNL_MEMORY_RETENTION_DAYS, logged).
 * docs/operations.md#retention.
 * Re-exported by lib/executor/index.ts, the layer's public surface; files of the layer import each other directly.
 */
export {
  dropExpiredRuns,
  findExpiredRuns,
  ENDED_STATUSES,
  type ExpiredRun,
  type DroppedRun,
  type RetentionBatch,
  type RetentionCursor,
  type RetentionSkipReason,
  type DropExpiredRequest,
  type FindExpiredRequest,
} from './retention';
export { retentionPolicy, retentionSettingsFromEnv, RetentionSettingsError, type RetentionPolicy, type RetentionSettings } from './retention-policy';
export { retentionLog, type RetentionLogEntry, type RetentionLogRequest } from './retention-log';
export type { RetentionEvent, RetentionPassReport } from './retention-ticker';
export {
  dropExpiredMemory,
  dropExpiredMemoryBatches,
  findExpiredMemory,
  memoryRetentionLog,
  type DroppedMemory,
  type MemoryRetentionBatch,
  type MemoryRetentionRequest,
} from './memory-retention';
