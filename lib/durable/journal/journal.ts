/**
 * The Journal port: everything the runtime core needs from storage, and the operator API.
 * Adapters (lib/durable/storage) share one implementation, PostgresJournal (on a Postgres server, and on
 * PGlite, the embedded Postgres); journal-contract.test.ts proves them equal. The core never sees a driver.
 */
import type { ApprovalDecisionRequest, ApproveRequest, RestartLinkRequest, SideEffectResolutionRequest, ToolResultRequest } from '../decisions/decisions';
import type { Decision, JournalEvent, RecordedEvent, RunInput, TraceContext } from './events';
import type { ForkPlan } from '../fork/fork-plan';
import type { JournalForkRequest } from '../fork/fork-request';
import type { RunStatus } from './run-status';
import type { RunSummary } from '../projection/run-summary';
import type { SendEventRequest } from '../workflow/send-event';

export interface ListRunsOptions {
  /** Only runs in this status. Default: all. */
  status?: RunStatus;
  /** Page size, 1..500. Default 50. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /**
   * Only runs of these agents or workflows (the start input's `agent`, else its `workflow.name`; both stay
   * clear when a run is sealed). How a reader limited to some agents pages through only theirs: filtering
   * a page after the read would miss theirs behind a full page of others. 1..100 names.
   */
  names?: readonly string[];
}

export interface RunPage {
  /** Newest first. */
  runs: RunSummary[];
  /** Present when there may be more runs. */
  nextCursor?: string;
}

export interface Journal {
  /**
   * The run a given runId addresses (identity/run-id.ts): the id as given when a run is recorded under it
   * exactly (one from before the rule), else its NFC spelling; an id the rule refuses is InvalidRunIdError.
   * Every method here that takes a runId resolves it so, and a run is created only under its NFC spelling.
   */
  runIdOf(runId: string): Promise<string>;
  /**
   * Takes the run for this process until `release()`. Rejects with RunBusyError at once when it is held
   * elsewhere. The hold dies with the process that took it (no lease to wait out after a crash).
   */
  hold(runId: string, options?: HoldOptions): Promise<RunHold>;
  /**
   * Approves a call waiting for approval; the next resume executes it before any new model call. With `input`
   * (edit, then approve) it executes with those arguments instead; given the tool's `inputSchema`, arguments
   * that do not match it are refused (JournalDataError naming the fields) and nothing is recorded.
   */
  approve(request: ApproveRequest): Promise<Decision>;
  /** Rejects a call waiting for approval; the model sees the refusal (and the reason) as the tool's result. */
  reject(request: ApprovalDecisionRequest): Promise<Decision>;
  /**
   * Settles a side effect of unknown outcome: 'done' records `output` as its result, 'not-done' lets the next resume run it again under the same key.
   * Given the tool's `outputSchema`, an output marked done that does not match it is refused (JournalDataError naming the fields) and nothing is recorded.
   */
  resolveSideEffect(request: SideEffectResolutionRequest): Promise<Decision>;
  /**
   * Gives the output of a call to a tool without `execute` that the run waits for (status
   * 'waiting-tool-result'); the next resume hands it to the model as the tool's result. Given the tool's
   * `outputSchema`, an output that does not match it is refused (JournalDataError naming the fields) and nothing is recorded.
   */
  provideToolResult(request: ToolResultRequest): Promise<Decision>;
  /**
   * Cancels a run: it stops at its next step boundary (a run executing elsewhere notices on its next
   * append) and never executes another tool. Terminal. A finished or already canceled run is a conflict.
   */
  cancel(request: CancelRequest): Promise<{ canceledAt: Date }>;
  /**
   * Records who asks for the run to continue, and why (`run-resume-request`, the audit of a resume). It
   * changes neither the run's status nor what it waits for: making it runnable is the executor's
   * (resumeRun), and runDurable replays past it. A completed or canceled run is a conflict.
   */
  requestResume(request: ResumeRequest): Promise<{ requestedAt: Date }>;
  /**
   * Forks a run (fork-plan.ts, docs/fork.md): in one transaction, creates `childRunId` with its run-start
   * (`input.forkOf`) and a copy of the parent's history up to the fork point, and appends `run-forked` to
   * the parent. The same request again (same child, parent and step) writes nothing: `created: false`.
   * Refusals are ForkRefusedError (nothing written); an invalid request is JournalDataError.
   */
  fork(request: JournalForkRequest): Promise<{ created: boolean; plan: ForkPlan }>;
  /**
   * Records on a run that an operator restarted it as `restartedAs` (`run-restarted`; restartRun appends it
   * once the new run exists), so that the job's other runs (the run's forks, its parent) find the restart:
   * the door's related-effects.ts walks it. Any run that exists, finished or not; an unknown run is
   * DecisionConflictError. The same link again writes nothing: `recorded: false`.
   */
  recordRestart(request: RestartLinkRequest): Promise<{ recorded: boolean }>;
  /**
   * Sends an event to a workflow run (`workflow-event`, workflow/send-event.ts), from anywhere, while it
   * runs too: the first wait for its name that matches takes it, once. The same `eventId` again writes
   * nothing (`recorded: false`). An unknown run, an agent's run or an ended one is EventRefusedError;
   * an invalid request is JournalDataError; either way nothing is written.
   */
  sendEvent(request: SendEventRequest): Promise<{ recorded: boolean; eventId: string }>;
  /**
   * Brings a run in from an export (run-export.ts): in one transaction, creates `runId` with the events as
   * they were recorded (their sequence numbers and times), then appends `then` (an evidence import's
   * run-cancel) at this journal's clock. Secrets are sealed with this journal's key. A run id that exists
   * is RunTransferError 'run-exists'; an event off its schema is JournalDataError; either way nothing is written.
   */
  importRun(request: ImportRunRequest): Promise<RecordedEvent[]>;
  getRun(runId: string): Promise<RunSummary | undefined>;
  listRuns(options?: ListRunsOptions): Promise<RunPage>;
  /** The run's events in order, after `afterSeq` (default 0), at most `limit` (default: all). */
  events(runId: string, options?: { afterSeq?: number; limit?: number }): Promise<RecordedEvent[]>;
  /**
   * In one read: of a completed run, only the events its answer needs (its run-start, run-migrate and
   * run-resume events, its last model-step and its run-complete); of any other run, all its events, as
   * `events`. runDurable reads it before the hold (completed-answer.ts). Optional: without it, `events`.
   */
  answerEvents?(runId: string): Promise<RecordedEvent[]>;
  /**
   * Creates the run with its `run-start` without holding it, in one statement: undefined when a run with
   * this id exists already (another caller created it; nothing is written). How startRun records a run for
   * an executor to invoke (issue 31: three statements fewer than a hold's create). A retired id is
   * RunRetiredError. Optional: without it, a hold's `create`.
   */
  createRun?(runId: string, input: RunInput, options?: { trace?: TraceContext; by?: string }): Promise<RecordedEvent | undefined>;
}

/**
 * A journal that can also be followed live (both storages' `runs`). Notifications only wake the
 * subscriber; the events themselves are read from the journal after the sequence number it has, so a
 * lost notification or a listener reconnect delays an event, never loses it.
 */
export interface LiveJournal extends Journal {
  /**
   * Follows one run live: `onEvents` receives every event after `afterSeq`, in order, each exactly once,
   * first what is already recorded, then each append as it commits. Resolves once listening.
   */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Hears every run's appends: `onChange({ runId, lastSeq })`, at least once per append (several appends
   * may arrive as one change). After a listener reconnect `onResync()` says changes may have been missed.
   */
  watchRuns(options: WatchRunsOptions): Promise<Subscription>;
  /**
   * What invocations of the run streamed (their UI message streams, in batches: stream-log.ts), after
   * batch `afterId` (default 0), in the order they were written. Not the record (the events are): a
   * cache a reconnecting client replays from, kept for the newest finished invocation of each run.
   */
  streamBatches(runId: string, options?: { afterId?: number; limit?: number }): Promise<StreamBatch[]>;
  /** Calls `onWake()` whenever a batch of the run's stream may have been written, and after a listener reconnect. Resolves once listening. */
  watchStream(options: WatchStreamOptions): Promise<Subscription>;
}

/** One batch of what an invocation streamed (stream-log.ts). */
export interface StreamBatch {
  /** Grows across the journal: the order batches were written in. */
  id: number;
  runId: string;
  /** The invocation that streamed it (a random id per invocation that held the run). */
  invocation: string;
  /** 0, 1, 2, … within the invocation. */
  batch: number;
  /** UI message stream chunks (the AI SDK's UIMessageChunk), secrets redacted. */
  chunks: unknown[];
  /** The invocation's stream ended with this batch. */
  done: boolean;
  at: Date;
}

export type StreamBatchInput = Pick<StreamBatch, 'invocation' | 'batch' | 'chunks' | 'done'>;

export interface WatchStreamOptions {
  runId: string;
  onWake(): void;
  onError?(error: unknown): void;
}

export interface SubscribeOptions {
  runId: string;
  /** The last sequence number the subscriber already has. Default 0: the whole run, then live. */
  afterSeq?: number;
  /** New events in order; the next batch waits until this returns (or its promise resolves). If it throws, the subscription closes and onError gets the error. */
  onEvents(events: RecordedEvent[]): void | Promise<void>;
  /** A failed read (retried after a pause, and on the next notification), a lost listener (reconnected), or a throwing onEvents (closed). Default: ignored. */
  onError?(error: unknown): void;
}

export interface RunChange {
  runId: string;
  /** The run's last sequence number when the notification was sent; later changes carry larger ones. */
  lastSeq: number;
}

export interface WatchRunsOptions {
  onChange(change: RunChange): void;
  /** The listener reconnected: changes in between may be lost, re-read what you show. */
  onResync?(): void;
  onError?(error: unknown): void;
}

export interface Subscription {
  /** Stops delivery: no onEvents call starts after this (one already running finishes; close may be called from inside it). */
  close(): Promise<void>;
}

export interface ImportRunRequest {
  runId: string;
  /** Sequence numbers 1..n, a run-start first: written as they are, with their times. */
  events: readonly RecordedEvent[];
  /** Appended after them, in the same transaction. Default: none. */
  then?: readonly JournalEvent[];
}

export interface CancelRequest {
  runId: string;
  /** Who cancels (an operator account, a service name). */
  by: string;
  reason?: string;
}

export interface ResumeRequest {
  runId: string;
  /** Who asks for the resume (an operator account, a service name). */
  by: string;
  reason?: string;
  /** A scheduled resume: not before this instant (a Date, or ISO 8601 with a zone), recorded with the request. Default: at once. */
  resumeAt?: Date | string;
}

/** A run held by this process: the only way to append to it. */
export interface HoldOptions {
  /**
   * Every event of the run as the caller read it just before (journal.answerEvents of a run that is not
   * completed, journal.events): when the run has not moved since (as many events, and its run-start at the
   * run's creation time: never another run's), the hold's first load returns these without reading again.
   * A journal that cannot tell reads anyway.
   */
  known?: RecordedEvent[];
}

export interface RunHold {
  readonly runId: string;
  /** Every event of the run, in order (empty for a new run). */
  load(): Promise<RecordedEvent[]>;
  /**
   * Creates the run with its `run-start` event (`trace`: the invocation span that starts it, tracing.ts;
   * `by`: who started it, when a person or a service started it by name: a four-eyes rule reads it).
   */
  create(input: RunInput, options?: { trace?: TraceContext; by?: string }): Promise<RecordedEvent>;
  /**
   * Appends events after the last one, atomically with the run summary; durable when it resolves.
   * An event whose encoded payload is over MAX_EVENT_BYTES is refused (JournalDataError) and nothing is written.
   */
  append(events: readonly JournalEvent[]): Promise<RecordedEvent[]>;
  /**
   * Appends like `append`, only if event `lastSeq` is still the run's last: nothing (a decision, a cancel,
   * a resume request, from anywhere) was recorded since the caller loaded it. Otherwise nothing is written
   * and it rejects with RunMovedError; the caller loads again. How an invocation begins (begin-invocation.ts).
   */
  appendAfter(lastSeq: number, events: readonly JournalEvent[]): Promise<RecordedEvent[]>;
  /**
   * Writes one batch of this invocation's stream (stream-log.ts), only while this hold is still the
   * run's (a writer whose run was taken over writes nothing: HoldLostError). Not an event: the stream
   * is a cache beside the journal.
   */
  appendStream(batch: StreamBatchInput): Promise<void>;
  /** True once an append saw that the run was canceled meanwhile (by journal.cancel, from anywhere). */
  readonly canceled: boolean;
  /**
   * The hold is a database session's lock, which the database can take away (a Postgres restart, a
   * terminated session): an invocation that knows a tool's outcome may take the run's hold again to record
   * it (run-session.ts). Absent or false: the hold lasts as long as the process (the embedded journal).
   */
  readonly losable?: boolean;
  /**
   * Takes the job's lock across processes (a job: the runs a fork or a restart relates, named by its
   * first run): a side effect of the job decides its key and journals its start under it, so two runs of
   * one job never both decide the same work is new (the door's job-lock.ts). Resolves with its release.
   * Absent where one process owns the journal (the embedded one): the in-process lock is the whole lock.
   */
  lockJob?(job: string): Promise<() => Promise<void>>;
  release(): Promise<void>;
}
