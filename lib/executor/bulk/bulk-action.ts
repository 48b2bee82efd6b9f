/**
 * What a bulk action is: a name, which runs qualify (a pure verdict on the run as its summary and queue
 * row show it now), and how one run is changed (through the per-run operations every operator path
 * uses: cancelRun, resumeRun, journal.approve, migrateRun). The bulk runner (bulk-operation.ts) knows
 * nothing else about an action. A verdict may ask the journal (migrate's asks previewMigration) and so
 * may be async; it still writes nothing.
 */
import type { AgentRegistry } from '@/lib/agents';
import type { RunSummary } from '@/lib/durable';
import type { Storage } from '@/lib/durable/storage';
import type { QueueEntry } from '../run-queue';
import type { BulkFilter } from './bulk-filter';

/** The run as the action sees it: its summary (the projection's status and pending items) and its executor bookkeeping. */
export interface BulkTarget {
  run: RunSummary;
  queue: QueueEntry | undefined;
}

/** Why a run is left alone: a short code to count by, and a sentence for people. */
export interface Skip {
  reason: string;
  message: string;
}

export type Verdict = { qualifies: true } | ({ qualifies: false } & Skip);

/** What a verdict may read besides the run: the storage, and the deployment's agents (migrate needs their versions). */
export interface VerdictContext {
  storage: Storage;
  registry: AgentRegistry | undefined;
}

export interface ApplyContext extends VerdictContext {
  /** Who acts (recorded in each run's journal). */
  by: string;
  /** Why (recorded in each run's journal). */
  reason: string;
  filter: BulkFilter;
  /** Makes a run runnable again, journaling who and why: resumeRun by default; the Studio passes its in-process executor's. */
  resume(runId: string, request: { by: string; reason: string }): Promise<unknown>;
}

/** What happened to one run that qualified when it was applied: changed (and how), or left alone after all. */
export type Applied = { outcome: 'changed'; detail: string } | ({ outcome: 'skipped' } & Skip);

export interface BulkAction {
  name: string;
  /** What it does to a run, in a few words ("cancel", "approve waiting calls of the tool"). */
  summary: string;
  /** A filter this action cannot work without, as a sentence; undefined when the filter will do. */
  needs?(filter: BulkFilter, context: VerdictContext): string | undefined;
  verdict(target: BulkTarget, filter: BulkFilter, context: VerdictContext): Verdict | Promise<Verdict>;
  /** Called only for a run whose verdict qualifies at the time of the call. Throws on failure (reported per run). */
  apply(target: BulkTarget, context: ApplyContext): Promise<Applied>;
}

export const qualifies: Verdict = { qualifies: true };
/** A skip, usable both as a verdict and as what an apply reports. */
export const skip = (reason: string, message: string): { qualifies: false; outcome: 'skipped' } & Skip => ({
  qualifies: false,
  outcome: 'skipped',
  reason,
  message,
});
