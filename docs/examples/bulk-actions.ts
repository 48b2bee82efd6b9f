/**
 * The bulk actions guide's code (docs/bulk-actions.md): a dry run, then the action limited to it. The
 * guide's code block is the #region of this file (docs/examples/code-blocks.test.ts); type-checked with
 * the rest, never run (it would cancel runs). lib/executor/bulk/bulk.test.ts runs the same calls.
 */
// #region bulk-actions
import { applyBulk, previewBulk } from '@/lib/executor';

// 1. The dry run: changes nothing, counts and lists, records a preview.
const preview = await previewBulk({
  action: 'cancel', // or 'resume', 'retry', 'approve' (approve needs filter.tool)
  filter: { status: 'waiting-approval', agent: 'support', olderThan: '2h' }, // also version, tool, newerThan
  by: 'ops@example.com',
});
console.log(preview.counts); // { matched: 2000, wouldChange: 1990, skipped: { completed: 10 } }

// 2. The action: only the preview's runs, each judged again now and changed through cancelRun.
const applied = await applyBulk({
  previewId: preview.previewId,
  action: 'cancel',
  by: 'ops@example.com',
  reason: 'duplicate import',
});
console.log(applied.counts, applied.sincePreview); // { changed, skipped, failed } { noLongerQualified, newlyMatching }
for (const result of applied.results) if (result.outcome !== 'changed') console.log(result); // skipped: reason; failed: error
// #endregion
