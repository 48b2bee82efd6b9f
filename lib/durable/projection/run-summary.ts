/**
 * The run summary that listings read, and how each append changes it. Pure: the storage adapters call
 * `summaryChange` and write the result in the same statement as the events, so the summary never
 * disagrees with the journal it summarises.
 */
import type { RunErasure } from '../sealing/run-keys';
import type { JournalEvent, PendingItem, RunInput } from '../journal/events';
import type { RunStatus } from '../journal/run-status';
import { changesStatus, statusAfter } from './run-state';

export interface RunSummary {
  runId: string;
  status: RunStatus;
  input: RunInput;
  /** Model steps recorded. */
  stepCount: number;
  /** Highest sequence number in the journal. */
  lastSeq: number;
  /** Approvals and side effects of unknown outcome this run waits for (empty while it moves). */
  pending: PendingItem[];
  createdAt: Date;
  updatedAt: Date;
  /** Set once the run was erased (run-keys.ts): its user data reads as ERASED_TEXT; who erased it, when and why stay. */
  erased?: RunErasure;
}

export interface SummaryChange {
  /** New status, when the events change it. */
  status?: RunStatus;
  stepDelta: number;
  /** New pending list, when the events change it. */
  pending?: PendingItem[];
  /**
   * The batch leaves the run waiting for people or failed (ANNOUNCED_STATUSES): which event of the batch
   * (0-based) set that status. The append statement writes the notification outbox row for it
   * (docs/notifications.md) in the same statement, unless the stored run is canceled.
   */
  announce?: { status: RunStatus; index: number };
}

/** The statuses a person should hear of: a run that waits for people, and a run that failed. */
export const ANNOUNCED_STATUSES: ReadonlySet<RunStatus> = new Set(['waiting-approval', 'waiting-tool-result', 'blocked', 'failed']);

/**
 * What a batch of events changes in the summary, by the projection's rules (run-state.ts: statusAfter,
 * pendingAfter) folded from no prior state. The append statement combines it with the stored row: a
 * stored 'canceled' is kept and empties the pending list (the projection's cancel rule, which the
 * batch cannot see), otherwise the batch's status and pending list win when it has them. A decision
 * (which marks a pending item) writes the list it planned from the stored one instead (decisions.ts).
 * summary-sql.test.ts checks the stored row against the projection on random logs, both journals.
 */
export function summaryChange(events: readonly JournalEvent[]): SummaryChange {
  const change: SummaryChange = { stepDelta: 0 };
  let status: RunStatus | undefined;
  let statusIndex = 0;
  for (const [index, event] of events.entries()) {
    if (event.type === 'model-step') change.stepDelta += 1;
    if (!changesStatus(event)) continue;
    status = statusAfter(status, event);
    statusIndex = index;
    // A status event replaces the list (a suspend with its items, the rest with none).
    change.pending = event.type === 'run-suspend' && status !== 'canceled' ? event.pending : [];
  }
  if (status) change.status = status;
  if (status && ANNOUNCED_STATUSES.has(status)) change.announce = { status, index: statusIndex };
  return change;
}
