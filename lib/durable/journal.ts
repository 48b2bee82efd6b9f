/**
 * The Journal port: everything the runtime core needs from storage, and the operator API.
 * Adapters (lib/durable/storage) implement it over one SQL implementation; journal-contract.test.ts
 * proves them equal. The core never sees a driver.
 */
import type { ApprovalDecisionRequest, SideEffectResolutionRequest } from './decisions';
import type { Decision, JournalEvent, RecordedEvent, RunInput } from './events';
import type { RunStatus } from './run-status';
import type { RunSummary } from './run-summary';

export interface ListRunsOptions {
  /** Only runs in this status. Default: all. */
  status?: RunStatus;
  /** Page size, 1..500. Default 50. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

export interface RunPage {
  /** Newest first. */
  runs: RunSummary[];
  /** Present when there may be more runs. */
  nextCursor?: string;
}

export interface Journal {
  /**
   * Takes the run for this process until `release()`. Rejects with RunBusyError at once when it is held
   * elsewhere. The hold dies with the process that took it (no lease to wait out after a crash).
   */
  hold(runId: string): Promise<RunHold>;
  /** Approves a call waiting for approval; the next resume executes it before any new model call. */
  approve(request: ApprovalDecisionRequest): Promise<Decision>;
  /** Rejects a call waiting for approval; the model sees the refusal (and the reason) as the tool's result. */
  reject(request: ApprovalDecisionRequest): Promise<Decision>;
  /** Settles a side effect of unknown outcome: 'done' records `output` as its result, 'not-done' lets the next resume run it again under the same key. */
  resolveSideEffect(request: SideEffectResolutionRequest): Promise<Decision>;
  getRun(runId: string): Promise<RunSummary | undefined>;
  listRuns(options?: ListRunsOptions): Promise<RunPage>;
  /** The run's events in order, after `afterSeq` (default 0), at most `limit` (default: all). */
  events(runId: string, options?: { afterSeq?: number; limit?: number }): Promise<RecordedEvent[]>;
}

/** A run held by this process: the only way to append to it. */
export interface RunHold {
  readonly runId: string;
  /** Every event of the run, in order (empty for a new run). */
  load(): Promise<RecordedEvent[]>;
  /** Creates the run with its `run-start` event. */
  create(input: RunInput): Promise<RecordedEvent>;
  /** Appends events after the last one, atomically with the run summary; durable when it resolves. */
  append(events: readonly JournalEvent[]): Promise<RecordedEvent[]>;
  release(): Promise<void>;
}
