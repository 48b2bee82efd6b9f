/**
 * What the explorer (parent) and its child processes (child.ts) agree on: the command a warm child
 * waits for on its IPC channel, the outcome it sends back when it is not killed, and the lines of the
 * schedule log every child appends to synchronously (boundaries passed, real model calls).
 */

import type { OperatorAction } from './faults';
import type { VersionName } from './versions';

export type JournalKind = 'pglite' | 'postgres';

export type JournalLocation = { kind: 'pglite'; dataDir: string } | { kind: 'postgres'; databaseUrl: string };

/** An operator decision the next child applies through the journal's operator API before it resumes the run. */
export type OperatorDecision =
  | { kind: 'approve'; toolCallId: string }
  | { kind: 'resolve'; toolCallId: string; outcome: 'done'; output: unknown }
  | { kind: 'resolve'; toolCallId: string; outcome: 'not-done' }
  | { kind: 'provide'; toolCallId: string; output: unknown }
  /** A workflow scenario's event, sent with journal.sendEvent (the same eventId again records nothing). */
  | { kind: 'event'; name: string; eventId: string; payload: unknown };

export interface RunCommand {
  type: 'run';
  scenario: string;
  runId: string;
  journal: JournalLocation;
  serviceUrl: string;
  /** The model server's baseURL (model-server.ts), for the real OpenAI provider. */
  modelUrl: string;
  /** This process's place in the schedule (0: the first): a policy may answer differently per process. */
  invocation: number;
  /** Stream the run (streamDurable over the provider's server-sent events) instead of generating it. */
  stream?: boolean;
  /** Operator requests to send at this process's boundaries (0-based), through the operator API. */
  races: { boundary: number; action: OperatorAction }[];
  /** Postgres: terminate the hold's session (application_name gnl-holds) at the first in-execute boundary, then wait for a rival resume. */
  terminateHold: boolean;
  /** The schedule log (appended with writeSync: nothing is lost to the SIGKILL). */
  logFile: string;
  /** Die (SIGKILL, by its own hand) at this boundary of this process (0-based); null: run to the end. */
  killAt: number | null;
  decisions: OperatorDecision[];
  /** A workflow scenario's event, sent through the operator API at these boundaries of this process (0-based): racing the run's wait. */
  eventSends?: { boundary: number }[];
  /**
   * The agent scenarios (versions.ts): the run is its agent's, started on v1 by runAgent and resumed on
   * the version runVersion picks; the operator migrates and forks it (`versionOps`).
   */
  agent?: boolean;
  /** Migrations and forks this process makes: before it runs (`before`), or at its boundary n. */
  versionOps?: CommandVersionOp[];
  /** Run `runId` only if it exists once the decisions and `before` operations are made (a fork the operator may have been refused): else `absent`. */
  mustExist?: boolean;
  /**
   * PGlite: once the run settles, read its rows with SQL from the journal's tables before closing the
   * folder and send them back (opening the folder again in the explorer would cost a second PGlite start).
   */
  readJournal: boolean;
  /** With readJournal: also read these runs' rows (a fork's parent, which the fork appended run-forked to). */
  alsoRead?: string[];
}

/** A VersionOp as one process makes it: a fork names its parent and the id it gives the fork. */
export type CommandVersionOp =
  | { kind: 'migrate'; to: VersionName; force: boolean; boundary: number | 'before' }
  | { kind: 'fork'; parent: string; childRunId: string; fraction: number; instruction?: string; boundary: number | 'before' }
  /** restartRun of `parent` as the new run `childRunId`. */
  | { kind: 'restart'; parent: string; childRunId: string; boundary: number | 'before' };

/** A run's rows as SQL reads them from gnl.runs and gnl.run_events. */
export interface JournalRead {
  run: { status: string; lastSeq: number } | undefined;
  events: { seq: number; type: string; payload: Record<string, unknown> }[];
}

export const EVENTS_SQL = 'select seq, type, payload from gnl.run_events where run_id = $1 order by seq';
export const RUN_SQL = 'select status, last_seq from gnl.runs where run_id = $1';

/** `continue`: the rival resume the explorer ran while this child waited is over (see `hold-terminated`). */
export type ParentMessage = RunCommand | { type: 'continue' };

export type RunOutcome =
  | { outcome: 'completed'; text: string }
  | { outcome: 'waiting-approval'; pending: { toolCallId: string; toolName: string }[] }
  | { outcome: 'waiting-tool-result'; pending: { toolCallId: string; toolName: string }[] }
  | { outcome: 'blocked'; toolCallId: string; toolName: string; idempotencyKey: string }
  /** The run failed and may be resumed: a tool threw, the provider failed after its retries, the hold was lost, an answer could not be journaled. */
  | { outcome: 'failed'; name: string; message: string }
  | { outcome: 'canceled' }
  /** A workflow run waits for an event (its times, children and sleeps the child waited through itself). */
  | { outcome: 'waiting'; waitingFor: { kind: string; name: string; event?: string }[] }
  /** A workflow run that waits for what it already has (an event sent before the invocation, children settled): a violation. */
  | { outcome: 'stuck'; detail: string }
  | { outcome: 'busy'; message: string }
  /** `mustExist` and there is no such run. */
  | { outcome: 'absent' }
  | { outcome: 'error'; name: string; message: string; stack?: string };

export type ChildMessage =
  /** Modules loaded (and, for a warm Postgres child, the pool connected): ready for a command. */
  | { type: 'ready'; loadMs: number }
  /** `openMs`: from the command's arrival to the journal open and the decisions applied. */
  | {
      type: 'outcome';
      result: RunOutcome;
      boundaries: number;
      openMs: number;
      journal?: JournalRead;
      others?: Record<string, JournalRead>;
      /** The child gave every journal back and may take another command (ChildPool). */
      reusable?: boolean;
    }
  /**
   * The child terminated its own hold session inside a side effect and waits, its execute unfinished,
   * for `continue`: meanwhile the explorer resumes the run in another process (the lock is free now),
   * as a worker would after an idle_session_timeout or a failover.
   */
  | { type: 'hold-terminated' };

/**
 * A schedule log line. Boundaries are where the child may die: `before:<what>` right before an append
 * begins, `after:<what>` right after it committed, `in-execute:<tool>` inside a side effect's execute
 * right after the outside service answered. `<what>` names the events of the append (a model step with
 * the tools it asks for, a tool event with its tool), so equal labels are one boundary class.
 */
export type LogEntry =
  /** `childRun`: a boundary of a workflow's child run (labelled `child/…`), that run's id. */
  | { kind: 'boundary'; label: string; recordedSteps?: number[]; childRun?: string }
  /** A real HTTP request to the model server, for the step its conversation is at (retries included). */
  | { kind: 'model'; step: number; system?: string }
  | { kind: 'start' }
  /** A toolApproval policy's answer, as the child's policy gave it. */
  | { kind: 'policy'; toolCallId: string; decision: 'approved' | 'denied' }
  /**
   * An operator request sent through the journal's operator API (a race at a boundary, or the explorer's
   * own decisions before a resume): accepted, refused (the API said why), or nothing to act on.
   */
  | {
      kind: 'operator';
      action: OperatorAction | 'provide' | 'event';
      toolCallId?: string;
      /** An event's id, and whether the journal recorded it (false: that id was recorded already). */
      eventId?: string;
      recorded?: boolean;
      outcome?: string;
      result: 'accepted' | 'refused' | 'skipped';
      detail?: string;
      race: boolean;
    }
  | { kind: 'terminated'; sessions: number }
  /** A migration, fork or restart (versions.ts) and how it was answered; `race`: made at a boundary of a live process. */
  | {
      kind: 'version';
      op: 'migrate' | 'fork' | 'restart';
      result: 'accepted' | 'refused' | 'skipped';
      detail?: string;
      race: boolean;
      reason: string;
      /** migrate: the version's name and hash, forced or not. */
      to?: VersionName;
      version?: string;
      force?: boolean;
      /** fork: the parent, the fork's id, its step (1-based), its instruction; restart: the old run and the new one. */
      parent?: string;
      childRunId?: string;
      atStep?: number;
      instruction?: string;
    }
  /** A side effect's request to the outside service is about to leave (the work begins). */
  | { kind: 'perform'; toolName: string };
/** `run`: the runId of the process's command (a schedule with forks drives several runs). */
export type LogLine = LogEntry & { pid: number; run?: string };
