/**
 * The run summary that listings read, and how each append changes it. Pure: the storage adapters call
 * `summaryChange` and write the result in the same statement as the events, so the summary never
 * disagrees with the journal it summarises.
 */
import type { JournalEvent, PendingItem, RunInput } from './events';
import type { RunStatus } from './run-status';

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
}

export interface SummaryChange {
  /** New status, when the events change it. */
  status?: RunStatus;
  stepDelta: number;
  /** New pending list, when the events change it. */
  pending?: PendingItem[];
}

const STATUS_OF: Partial<Record<JournalEvent['type'], RunStatus>> = {
  'run-start': 'running',
  'run-resume': 'running',
  'run-complete': 'completed',
  'run-fail': 'failed',
  'run-cancel': 'canceled',
};

export function summaryChange(events: readonly JournalEvent[]): SummaryChange {
  const change: SummaryChange = { stepDelta: 0 };
  for (const event of events) {
    if (event.type === 'model-step') change.stepDelta += 1;
    if (event.type === 'run-suspend') {
      change.status = event.status;
      change.pending = event.pending;
      continue;
    }
    const status = STATUS_OF[event.type];
    if (status) {
      change.status = status;
      change.pending = [];
    }
  }
  return change;
}
