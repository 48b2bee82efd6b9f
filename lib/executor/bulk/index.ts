/** Bulk actions on runs (cancel, resume, retry, approve by filter), in two steps: a preview, then an apply limited to it. */
export { previewBulk, applyBulk, bulkPreviewRecord, PREVIEW_TTL_MS } from './bulk-operation';
export type { BulkPreview, BulkPreviewRequest, BulkApplyRequest, BulkApplied, BulkRunResult, BulkRunRef } from './bulk-operation';
export { BULK_ACTIONS, BULK_ACTION_NAMES, type BulkActionName } from './bulk-actions';
export type { BulkAction, BulkTarget, Verdict, Applied, ApplyContext, Skip } from './bulk-action';
export { bulkFilterSchema, parseAge, describeFilter, type BulkFilter, type BulkFilterInput } from './bulk-filter';
export type { PreviewCounts, ApplyCounts } from './bulk-store';
