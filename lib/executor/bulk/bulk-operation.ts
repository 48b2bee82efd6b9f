/**
 * A bulk action in two steps. `previewBulk` (the dry run) reads the runs matching the filter a page at
 * a time (keyset on run_id), judges each with the action's verdict, counts what would change and what
 * would be skipped and why, and records the ids that would change as a preview (gnl.bulk_preview_runs).
 * `applyBulk` is limited to that snapshot: it claims the preview once, then reads it a page at a time
 * and, per run, judges it again on its state now (the filter and the verdict) and applies the action
 * through the per-run operation (bounded concurrency, no transaction spanning runs). Each run is
 * reported: changed, skipped with the reason (it changed since the preview), or failed with the error;
 * one failure never stops the others. It also counts the runs that match now but were not in the preview
 * (left alone: a new dry run includes them).
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { AgentRegistry } from '@/lib/agents';
import { DecisionConflictError, type RunStatus } from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';
import { resolveStorage, type StorageContext } from '../context';
import { BulkActionError, RunNotResumableError } from '../errors';
import { resumeRun } from '../run-control';
import type { ApplyContext, BulkAction, BulkTarget, Skip, VerdictContext } from './bulk-action';
import { BULK_ACTION_NAMES, BULK_ACTIONS, type BulkActionName } from './bulk-actions';
import { type BulkFilter, type BulkFilterInput, bulkFilterSchema, resolveFilter } from './bulk-filter';
import { type ApplyCounts, BulkStore, type PreviewCounts } from './bulk-store';

/** A preview older than this is refused by apply: what it showed is too old to act on. */
export const PREVIEW_TTL_MS = 24 * 3_600_000;
/** Previews (their snapshots) are dropped a week after they were made. */
const PREVIEW_KEEP_MS = 7 * 24 * 3_600_000;

const printable = (value: string) => !/[\p{Cc}\p{Cs}]/u.test(value);
const by = z.string().trim().min(1, 'by: say who acts').max(200).refine(printable, 'by must contain only printable characters');
const tuning = {
  /** Runs read per page. Default 200. */
  pageSize: z.number().int().min(1).max(1000).default(200),
  /** Runs judged or changed at once. Default 8. */
  concurrency: z.number().int().min(1).max(64).default(8),
};
const previewSchema = z.object({
  action: z.enum(BULK_ACTION_NAMES),
  filter: bulkFilterSchema,
  by,
  listLimit: z.number().int().min(0).max(1000).default(50),
  ...tuning,
});
const applySchema = z.object({
  previewId: z.uuid('previewId: the id a dry run gave'),
  action: z.enum(BULK_ACTION_NAMES),
  by,
  reason: z.string().trim().min(1, 'reason: say why (recorded in every run changed)').max(4000),
  ...tuning,
});

export interface BulkPreviewRequest extends StorageContext {
  action: BulkActionName;
  /** The deployment's agents: migrate judges and moves runs between their versions (required for migrate). */
  registry?: AgentRegistry;
  filter: BulkFilterInput;
  /** Who asks for the preview (recorded with it). */
  by: string;
  /** How many runs of each list the answer names (the counts are always whole). Default 50. */
  listLimit?: number;
  pageSize?: number;
  concurrency?: number;
}

export interface BulkRunRef {
  runId: string;
  status: RunStatus;
  agent: string | undefined;
  createdAt: Date;
}

export interface BulkPreview {
  /** Give it to applyBulk: the apply is limited to the runs this preview said would change. */
  previewId: string;
  action: BulkActionName;
  /** As resolved: ages turned into instants by the database's clock. */
  filter: BulkFilter;
  asOf: Date;
  /** After this instant the preview is refused (PREVIEW_TTL_MS). */
  expiresAt: Date;
  counts: PreviewCounts;
  /** The first `listLimit` runs that would change, in run id order. */
  wouldChange: BulkRunRef[];
  /** The first `listLimit` runs that match the filter but would be skipped, each with why. */
  skipped: (BulkRunRef & Skip)[];
}

export interface BulkApplyRequest extends StorageContext {
  previewId: string;
  /** The deployment's agents (required for migrate). */
  registry?: AgentRegistry;
  /** The preview's action, said again: an apply never does what was not previewed. */
  action: BulkActionName;
  /** Who acts (recorded in every run changed). */
  by: string;
  /** Why (recorded in every run changed). Required. */
  reason: string;
  pageSize?: number;
  concurrency?: number;
  /** Makes a run runnable again. Default resumeRun; the Studio passes its in-process executor's resumeRun. */
  resume?: ApplyContext['resume'];
  /** Each run's result as it is known (progress). */
  onResult?(result: BulkRunResult): void;
}

export type BulkRunResult =
  | { runId: string; outcome: 'changed'; detail: string }
  | ({ runId: string; outcome: 'skipped' } & Skip)
  | { runId: string; outcome: 'failed'; error: { name: string; message: string } };

export interface BulkApplied {
  previewId: string;
  action: BulkActionName;
  filter: BulkFilter;
  by: string;
  reason: string;
  appliedAt: Date;
  counts: ApplyCounts;
  /** What the dry run counted. */
  preview: PreviewCounts;
  /** How the runs differ from the dry run: preview runs that no longer qualified (skipped), runs that qualify now but were not previewed (left alone). */
  sincePreview: { noLongerQualified: number; newlyMatching: number };
  /** Every run of the preview, in run id order. */
  results: BulkRunResult[];
}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new BulkActionError({ reason: 'invalid', message: `${what}: ${z.prettifyError(result.error)}`, cause: result.error });
  return result.data;
}

const stores = new WeakMap<Storage, BulkStore>();
function storeFor(storage: Storage): BulkStore {
  let store = stores.get(storage);
  if (!store) {
    store = new BulkStore(() => storage.database());
    stores.set(storage, store);
  }
  return store;
}

/** Runs `work` over `items`, at most `limit` at once, results in the items' order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** The filter, judged on the run as it is now (the statement's match may be a moment old). */
function stillMatches({ run }: BulkTarget, filter: BulkFilter): Skip | undefined {
  if (filter.status && run.status !== filter.status) return { reason: 'no-longer-matches', message: `it is ${run.status} now, not ${filter.status}` };
  if (filter.tool && !run.pending.some((p) => p.toolName === filter.tool))
    return { reason: 'no-longer-matches', message: `it no longer waits on ${filter.tool}` };
  return undefined;
}

async function judge(action: BulkAction, target: BulkTarget, filter: BulkFilter, context: VerdictContext): Promise<Skip | undefined> {
  const verdict = await action.verdict(target, filter, context);
  if (!verdict.qualifies) return { reason: verdict.reason, message: verdict.message };
  return stillMatches(target, filter);
}

const ref = ({ run }: BulkTarget): BulkRunRef => ({ runId: run.runId, status: run.status, agent: run.input.agent, createdAt: run.createdAt });

async function targetOf(storage: Storage, runId: string): Promise<BulkTarget | undefined> {
  const { journal, queue } = resolveStorage({ storage });
  const run = await journal.getRun(runId);
  return run ? { run, queue: await queue.entry(run.runId) } : undefined;
}

/** The dry run: counts and lists what the action would change and skip, and records the snapshot an apply is limited to. */
export async function previewBulk(request: BulkPreviewRequest): Promise<BulkPreview> {
  const { action: name, filter: filterInput, by: who, listLimit, pageSize, concurrency } = parse(previewSchema, request, 'bulk preview');
  const { storage } = resolveStorage(request);
  const action: BulkAction = BULK_ACTIONS[name];
  const store = storeFor(storage);
  const asOf = await store.now();
  const filter = resolveFilter(filterInput, asOf);
  const verdictContext: VerdictContext = { storage, registry: request.registry };
  const missing = action.needs?.(filter, verdictContext);
  if (missing) throw new BulkActionError({ reason: 'invalid', message: missing });
  await store.dropPreviewsBefore(new Date(asOf.getTime() - PREVIEW_KEEP_MS));
  const previewId = randomUUID();
  await store.createPreview({ id: previewId, action: name, filter, by: who });
  const counts: PreviewCounts = { matched: 0, wouldChange: 0, skipped: {} };
  const wouldChange: BulkRunRef[] = [];
  const skipped: (BulkRunRef & Skip)[] = [];
  for (let after: string | undefined; ; ) {
    const ids = await store.matchingPage(filter, { ...(after ? { after } : {}), limit: pageSize });
    if (ids.length === 0) break;
    after = ids[ids.length - 1];
    const judged = await mapLimit(ids, concurrency, async (runId) => {
      const target = await targetOf(storage, runId);
      return target && { target, skip: await judge(action, target, filter, verdictContext) };
    });
    const changing: string[] = [];
    for (const item of judged) {
      if (!item) continue;
      counts.matched++;
      if (item.skip) {
        counts.skipped[item.skip.reason] = (counts.skipped[item.skip.reason] ?? 0) + 1;
        if (skipped.length < listLimit) skipped.push({ ...ref(item.target), ...item.skip });
      } else {
        counts.wouldChange++;
        changing.push(item.target.run.runId);
        if (wouldChange.length < listLimit) wouldChange.push(ref(item.target));
      }
    }
    await store.addPreviewRuns(previewId, changing);
  }
  await store.finishPreview(previewId, counts);
  return { previewId, action: name, filter, asOf, expiresAt: new Date(asOf.getTime() + PREVIEW_TTL_MS), counts, wouldChange, skipped };
}

/** The action, on the preview's runs as they are now: per-run results, a failure never stopping the others. */
export async function applyBulk(request: BulkApplyRequest): Promise<BulkApplied> {
  const parsed = parse(applySchema, request, 'bulk apply');
  const { previewId, by: who, reason, pageSize, concurrency } = parsed;
  const { storage } = resolveStorage(request);
  const store = storeFor(storage);
  const action: BulkAction = BULK_ACTIONS[parsed.action];
  // What the action cannot work without (migrate: the registry) is refused before the preview is claimed, so it stays usable.
  const recorded = await store.preview(previewId);
  const missing = recorded && action.needs?.(recorded.filter, { storage, registry: request.registry });
  if (missing) throw new BulkActionError({ reason: 'invalid', previewId, message: missing });
  const claimed = await claim(store, parsed);
  const filter = claimed.filter;
  const resume = request.resume ?? ((runId: string, r: { by: string; reason: string }) => resumeRun(runId, { ...r, storage }));
  const context: ApplyContext = { storage, registry: request.registry, by: who, reason, filter, resume };
  const results: BulkRunResult[] = [];
  for (let after: string | undefined; ; ) {
    const ids = await store.previewPage(previewId, { ...(after ? { after } : {}), limit: pageSize });
    if (ids.length === 0) break;
    after = ids[ids.length - 1];
    const page = await mapLimit(ids, concurrency, async (runId) => {
      const result = await applyOne(storage, action, context, runId);
      request.onResult?.(result);
      return result;
    });
    results.push(...page);
  }
  const counts: ApplyCounts = { changed: 0, skipped: 0, failed: 0 };
  for (const result of results) counts[result.outcome]++;
  await store.finishApply(previewId, counts);
  const newlyMatching = await countNewlyMatching(context, store, action, filter, { previewId, pageSize, concurrency });
  return {
    previewId,
    action: parsed.action,
    filter,
    by: who,
    reason,
    appliedAt: claimed.appliedAt as Date,
    counts,
    preview: claimed.counts,
    sincePreview: { noLongerQualified: counts.skipped, newlyMatching },
    results,
  };
}

/** The preview, claimed for this apply; refused when it is unknown, another action's, expired or applied already. */
async function claim(store: BulkStore, request: { previewId: string; action: BulkActionName; by: string; reason: string }) {
  const { previewId } = request;
  const row = await store.preview(previewId);
  if (!row) throw new BulkActionError({ reason: 'unknown-preview', previewId, message: `No bulk preview ${previewId}: run the dry run first.` });
  // A dry run that failed halfway recorded only part of its snapshot: never acted on.
  if (!('matched' in row.counts)) {
    throw new BulkActionError({ reason: 'incomplete', previewId, message: `Preview ${previewId} did not finish: run the dry run again.` });
  }
  if (row.action !== request.action) {
    throw new BulkActionError({ reason: 'other-action', previewId, message: `Preview ${previewId} is of ${row.action}, not ${request.action}.` });
  }
  if ((await store.now()).getTime() - row.createdAt.getTime() > PREVIEW_TTL_MS) {
    throw new BulkActionError({
      reason: 'expired',
      previewId,
      message: `Preview ${previewId} was made at ${row.createdAt.toISOString()}, over 24 hours ago: run the dry run again.`,
    });
  }
  const claimed = await store.claimPreview(previewId, request.by, request.reason);
  if (claimed) return claimed;
  const applied = await store.preview(previewId);
  throw new BulkActionError({
    reason: 'applied-already',
    previewId,
    message: `Preview ${previewId} was applied already, by ${applied?.appliedBy} at ${applied?.appliedAt?.toISOString()}: run the dry run again.`,
  });
}

async function applyOne(storage: Storage, action: BulkAction, context: ApplyContext, runId: string): Promise<BulkRunResult> {
  try {
    const target = await targetOf(storage, runId);
    if (!target) return { runId, outcome: 'skipped', reason: 'unknown-run', message: 'it no longer exists' };
    const skip = await judge(action, target, context.filter, context);
    if (skip) return { runId, outcome: 'skipped', ...skip };
    const applied = await action.apply(target, context);
    return applied.outcome === 'changed'
      ? { runId, outcome: 'changed', detail: applied.detail }
      : { runId, outcome: 'skipped', reason: applied.reason, message: applied.message };
  } catch (error) {
    // Refused by the journal or the executor layer because the run moved on meanwhile (decided first, finished): a skip with their words.
    if (DecisionConflictError.isInstance(error) || RunNotResumableError.isInstance(error)) {
      return { runId, outcome: 'skipped', reason: error.reason, message: error.message };
    }
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    return { runId, outcome: 'failed', error: { name, message } };
  }
}

/** Runs matching the filter that qualify now and were not in the preview. */
async function countNewlyMatching(
  context: VerdictContext,
  store: BulkStore,
  action: BulkAction,
  filter: BulkFilter,
  args: { previewId: string; pageSize: number; concurrency: number },
): Promise<number> {
  let count = 0;
  for (let after: string | undefined; ; ) {
    const ids = await store.matchingPage(filter, { ...(after ? { after } : {}), limit: args.pageSize, notIn: args.previewId });
    if (ids.length === 0) return count;
    after = ids[ids.length - 1];
    const judged = await mapLimit(ids, args.concurrency, async (runId) => {
      const target = await targetOf(context.storage, runId);
      return target !== undefined && (await judge(action, target, filter, context)) === undefined;
    });
    count += judged.filter(Boolean).length;
  }
}

/** A preview as recorded: its action, filter, counts, and who applied it when (undefined for an unknown id). */
export async function bulkPreviewRecord(previewId: string, context: StorageContext = {}) {
  return storeFor(resolveStorage(context).storage).preview(parse(z.uuid(), previewId, 'previewId'));
}
