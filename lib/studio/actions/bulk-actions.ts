/**
 * Bulk actions from the Studio: a preview (the dry run) and its apply, each one call into the executor
 * layer's bulk functions (lib/executor bulk-operation.ts), in the signed-in operator's name, with this
 * deployment's registry (migrate moves runs between its versions). Runs a bulk resume, retry or approve makes runnable are resumed by this server's executor (getExecutor().resumeRun), as a
 * single resume from the Studio is. Refusals (bad filter, a preview applied already, expired) are
 * results, never thrown; an unexpected failure is logged here and said plainly.
 */
import 'server-only';
import { registry } from '@/agents';
import {
  applyBulk,
  BulkActionError,
  type BulkActionName,
  type BulkApplied,
  type BulkFilterInput,
  type BulkPreview,
  describeFilter,
  getExecutor,
  previewBulk,
} from '@/lib/executor';

export type BulkRefusal = { ok: false; kind: 'unauthenticated' | 'forbidden' | 'invalid' | 'refused' | 'error'; message: string };
export type BulkResult<T extends object> = ({ ok: true } & T) | BulkRefusal;

/** What the page shows of a preview: the preview, and its filter in words. */
export type StudioPreview = BulkPreview & { filterText: string };

export async function previewBulkChange(request: {
  action: BulkActionName;
  filter: BulkFilterInput;
  by: string;
}): Promise<BulkResult<{ preview: StudioPreview }>> {
  try {
    const preview = await previewBulk({ ...request, registry, listLimit: 200 });
    return { ok: true, preview: { ...preview, filterText: describeFilter(preview.filter) } };
  } catch (error) {
    return refusal(error);
  }
}

export async function applyBulkChange(request: {
  previewId: string;
  action: BulkActionName;
  by: string;
  reason: string;
}): Promise<BulkResult<{ applied: BulkApplied }>> {
  try {
    const executor = getExecutor();
    const applied = await applyBulk({ ...request, registry, resume: (runId, r) => executor.resumeRun(runId, r) });
    return { ok: true, applied };
  } catch (error) {
    return refusal(error);
  }
}

function refusal(error: unknown): BulkRefusal {
  if (BulkActionError.isInstance(error)) return { ok: false, kind: error.reason === 'invalid' ? 'invalid' : 'refused', message: error.message };
  console.error('studio: bulk action failed:', error);
  return { ok: false, kind: 'error', message: 'The bulk action could not be completed; the Studio’s server log says why.' };
}
