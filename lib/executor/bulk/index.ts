/**
 * Bulk actions on runs (cancel, resume, retry, approve by filter), in two steps: previewBulk takes a dry
 * run's snapshot of the matching runs (bulk-store.ts: paged selection, gnl.bulk_previews), applyBulk acts
 * on that snapshot only, run by run (bulk-operation.ts). bulk-filter.ts is the filter and its zod schema,
 * bulk-action.ts what an action is, bulk-actions.ts the four actions. docs/bulk-actions.md.
 * Re-exported by lib/executor/index.ts, the layer's public surface; files of the layer import each other directly.
 */
export {
  previewBulk,
  applyBulk,
  bulkPreviewRecord,
  PREVIEW_TTL_MS,
  type BulkPreview,
  type BulkPreviewRequest,
  type BulkApplyRequest,
  type BulkApplied,
  type BulkRunResult,
  type BulkRunRef,
} from './bulk-operation';
export { BULK_ACTIONS, BULK_ACTION_NAMES, type BulkActionName } from './bulk-actions';
export type { BulkAction, BulkTarget, Verdict, Applied, ApplyContext, Skip } from './bulk-action';
export { bulkFilterSchema, parseAge, describeFilter, type BulkFilter, type BulkFilterInput } from './bulk-filter';
export type { PreviewCounts, ApplyCounts } from './bulk-store';
