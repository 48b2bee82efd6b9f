/**
 * GNL's errors. Few, each carrying what the caller needs to act, `cause` always kept.
 * `isInstance` works across bundles and duplicated installs (a marker symbol, not `instanceof`),
 * and `name` equals the class name exactly so logs read right. Callers branch with `isInstance` and
 * the fields an error carries, never on its name or message text. Names are string literals, not
 * `new.target.name`: minifiers rename classes.
 */
const MARKER = Symbol.for('gnl.error');

export class GnlError extends Error {
  readonly [MARKER] = true;
  override name = 'GnlError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
  static isInstance(error: unknown): error is GnlError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

function hasName<T>(name: string) {
  return (error: unknown): error is T => GnlError.isInstance(error) && error.name === name;
}

/** A side effect started and has no recorded outcome: GNL cannot know whether it happened, so it does not guess. */
export class SideEffectRetryBlockedError extends GnlError {
  override name = 'SideEffectRetryBlockedError';
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly idempotencyKey: string;
  constructor(args: { runId: string; toolCallId: string; toolName: string; input: unknown; idempotencyKey: string; reason?: string }) {
    super(
      `Run "${args.runId}" is blocked: side effect ${args.toolName} (call ${args.toolCallId}, key ${args.idempotencyKey}) ` +
        `started and has no recorded outcome${args.reason ? ` (${args.reason})` : ''}. ` +
        'Resolve it with journal.resolveSideEffect({ outcome: "done" | "not-done" }), then resume.',
    );
    this.runId = args.runId;
    this.toolCallId = args.toolCallId;
    this.toolName = args.toolName;
    this.input = args.input;
    this.idempotencyKey = args.idempotencyKey;
  }
  static override isInstance = hasName<SideEffectRetryBlockedError>('SideEffectRetryBlockedError');
}

/**
 * A side effect this run would make is the same work (same tool, same arguments) as one another run of
 * the same job started (its fork parent, the run it restarts), and that run does not know whether it
 * acted. This run stops rather than guess: decide the effect in the other run, then resume this one.
 */
export class SideEffectElsewhereError extends GnlError {
  override name = 'SideEffectElsewhereError';
  readonly runId: string;
  /** This run's call that stopped. */
  readonly toolCallId: string;
  readonly otherRunId: string;
  readonly toolName: string;
  readonly idempotencyKey: string;
  constructor(args: { runId: string; toolCallId: string; otherRunId: string; toolName: string; idempotencyKey: string }) {
    super(
      `Run "${args.runId}" stops: its ${args.toolName} call ${args.toolCallId} repeats the side effect run "${args.otherRunId}" started under key ` +
        `${args.idempotencyKey}, whose outcome is unknown. Mark it done or not done in run "${args.otherRunId}", then resume this run.`,
    );
    this.runId = args.runId;
    this.toolCallId = args.toolCallId;
    this.otherRunId = args.otherRunId;
    this.toolName = args.toolName;
    this.idempotencyKey = args.idempotencyKey;
  }
  static override isInstance = hasName<SideEffectElsewhereError>('SideEffectElsewhereError');
}

/** Another process held the job's lock (job-lock.ts) for longer than a side effect's start takes: something hangs. */
export class JobBusyError extends GnlError {
  override name = 'JobBusyError';
  readonly job: string;
  constructor(args: { job: string; waitedMs: number }) {
    super(
      `The lock of job "${args.job}" (its runs' side effects choose their keys under it) was held by another process for ${args.waitedMs} ms; ` +
        'the call did not start. Resume the run when that process has gone on or stopped.',
    );
    this.job = args.job;
  }
  static override isInstance = hasName<JobBusyError>('JobBusyError');
}

/** The run is executing somewhere else right now. */
export class RunBusyError extends GnlError {
  override name = 'RunBusyError';
  readonly runId: string;
  /** The process that holds the run, when it is known to be one on this machine (a call in this process). */
  readonly holderPid?: number;
  constructor(args: { runId: string; holder?: string; holderPid?: number }) {
    super(`Run "${args.runId}" is executing elsewhere${args.holder ? ` (${args.holder})` : ''}; it cannot run in two places at once.`);
    this.runId = args.runId;
    if (args.holderPid !== undefined) this.holderPid = args.holderPid;
  }
  static override isInstance = hasName<RunBusyError>('RunBusyError');
}

/**
 * A conditional append (RunHold.appendAfter) found that the run moved: something was recorded after the
 * event the writer loaded (a decision, a cancel, a resume request, from anywhere). Nothing was appended;
 * the writer loads again and plans with what is now recorded.
 */
export class RunMovedError extends GnlError {
  override name = 'RunMovedError';
  readonly runId: string;
  /** The last sequence number the writer loaded. */
  readonly expectedLastSeq: number;
  /** The run's last sequence number when the append was refused. */
  readonly lastSeq: number;
  constructor(args: { runId: string; expectedLastSeq: number; lastSeq: number; cause?: unknown }) {
    super(
      `Run "${args.runId}" moved while this writer planned: it expected event #${args.expectedLastSeq} to be the last, the run is at #${args.lastSeq}. Nothing was appended.`,
      { cause: args.cause },
    );
    this.runId = args.runId;
    this.expectedLastSeq = args.expectedLastSeq;
    this.lastSeq = args.lastSeq;
  }
  static override isInstance = hasName<RunMovedError>('RunMovedError');
}

/** This writer no longer holds the run (its database session was lost): nothing was appended. */
export class HoldLostError extends GnlError {
  override name = 'HoldLostError';
  readonly runId: string;
  constructor(args: { runId: string }) {
    super(`Lost the hold on run "${args.runId}": nothing was appended. Another process may resume it; this one must stop.`);
    this.runId = args.runId;
  }
  static override isInstance = hasName<HoldLostError>('HoldLostError');
}

export interface Divergence {
  /** What differs: 'prompt', 'messages', 'system', 'modelId', 'provider', 'toolNames', 'tool schema: <name>', 'model call <n> input', 'arguments of <toolCallId>'. */
  field: string;
  recorded: unknown;
  given: unknown;
}

/** The runId exists with a different start input, or (with strictReplay) a replayed call differs from its record. */
export class RunDivergedError extends GnlError {
  override name = 'RunDivergedError';
  readonly runId: string;
  readonly differences: Divergence[];
  constructor(args: { runId: string; differences: Divergence[]; replay?: boolean; message?: string }) {
    const fields = args.differences.map((d) => d.field).join(', ');
    super(
      args.message ??
        (args.replay
          ? `Run "${args.runId}" diverged on replay (${fields}) and strictReplay is on.`
          : `Run "${args.runId}" exists with a different start input (${fields}). A runId names one job: use a new runId for new work.`),
    );
    this.runId = args.runId;
    this.differences = args.differences;
  }
  static override isInstance = hasName<RunDivergedError>('RunDivergedError');
}

/** A tool threw: the run is failed (resumable). On resume a read-only tool runs again; a side effect follows the unknown-outcome rule. */
export class ToolCallFailedError extends GnlError {
  override name = 'ToolCallFailedError';
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly attempt: number;
  constructor(args: { runId: string; toolCallId: string; toolName: string; attempt: number; cause: unknown }) {
    const reason = args.cause instanceof Error ? args.cause.message : String(args.cause);
    super(`Run "${args.runId}" failed: tool ${args.toolName} (call ${args.toolCallId}, attempt ${args.attempt}) threw: ${reason}`, { cause: args.cause });
    this.runId = args.runId;
    this.toolCallId = args.toolCallId;
    this.toolName = args.toolName;
    this.attempt = args.attempt;
  }
  static override isInstance = hasName<ToolCallFailedError>('ToolCallFailedError');
}

/** The run was canceled; it executes nothing more. */
export class RunCanceledError extends GnlError {
  override name = 'RunCanceledError';
  readonly runId: string;
  constructor(args: { runId: string }) {
    super(`Run "${args.runId}" was canceled; it executes no other tool.`);
    this.runId = args.runId;
  }
  static override isInstance = hasName<RunCanceledError>('RunCanceledError');
}

/** A runId that GNL cannot store safely. */
export class InvalidRunIdError extends GnlError {
  override name = 'InvalidRunIdError';
  static override isInstance = hasName<InvalidRunIdError>('InvalidRunIdError');
}

/**
 * Why a decision was refused. 'run-executing': the run is between its start or resume and its next
 * suspend, so it waits for nothing now; what it asks next is decided once it waits again.
 */
export type DecisionConflictReason = 'unknown-run' | 'unknown-call' | 'already-decided' | 'expired' | 'run-finished' | 'run-executing';

function conflictMessage(args: ConstructorParameters<typeof DecisionConflictError>[0]): string {
  const subject = args.toolCallId ? `call ${args.toolCallId} of run "${args.runId}"` : `run "${args.runId}"`;
  switch (args.reason) {
    case 'unknown-run':
      return `run "${args.runId}" does not exist`;
    case 'run-executing':
      return `run "${args.runId}" is running${args.executingSince ? ` (its invocation began ${args.executingSince.toISOString()})` : ''} and waits for no decision now (executing, or stopped mid-run until it is resumed); decide when it waits again`;
    case 'unknown-call':
      return `${subject} is not waiting for this decision${args.detail ? ` (${args.detail})` : ''}`;
    case 'expired':
      return `the approval question for ${subject} expired${args.detail ? ` at ${args.detail}` : ''}; the run treats it as rejected`;
    case 'run-finished':
      return `${subject} has finished (${args.detail ?? 'completed'})`;
    case 'already-decided':
      return `${subject} was already ${args.detail ?? 'decided'} by ${args.decidedBy ?? 'someone'}${args.decidedAt ? ` at ${args.decidedAt.toISOString()}` : ''}`;
  }
}

/** An operator decision that cannot be recorded: unknown run or call, or decided already (by whom, when). */
export class DecisionConflictError extends GnlError {
  override name = 'DecisionConflictError';
  readonly runId: string;
  readonly toolCallId: string;
  readonly reason: DecisionConflictReason;
  readonly decidedBy?: string;
  readonly decidedAt?: Date;
  /** reason 'run-executing': when the invocation now executing began (its run-start or run-resume). */
  readonly executingSince?: Date;
  constructor(args: {
    runId: string;
    toolCallId: string;
    reason: DecisionConflictReason;
    decidedBy?: string;
    decidedAt?: Date;
    executingSince?: Date;
    detail?: string;
  }) {
    super(`Decision refused: ${conflictMessage(args)}.`);
    this.runId = args.runId;
    this.toolCallId = args.toolCallId;
    this.reason = args.reason;
    this.decidedBy = args.decidedBy;
    this.decidedAt = args.decidedAt;
    this.executingSince = args.executingSince;
  }
  static override isInstance = hasName<DecisionConflictError>('DecisionConflictError');
}

/**
 * Why the call's approval rule (ApprovalRule, declared by its tool) refuses an approval: the decider's role
 * is below the rule's; four eyes (the decider started the run, or proposed the changed arguments); the same
 * person approving twice toward N; an approval of the arguments as asked after someone changed them.
 */
export type ApprovalRuleRefusal = 'role' | 'four-eyes' | 'approved-already' | 'arguments-changed';

/** An approval the call's rule refuses: nothing was recorded; `reason` says which part of the rule. */
export class ApprovalRuleError extends GnlError {
  override name = 'ApprovalRuleError';
  readonly runId: string;
  readonly toolCallId: string;
  readonly reason: ApprovalRuleRefusal;
  constructor(args: { runId: string; toolCallId: string; reason: ApprovalRuleRefusal; detail: string }) {
    super(`Approval refused by the rule of call ${args.toolCallId} of run "${args.runId}": ${args.detail}. Nothing was recorded.`);
    this.runId = args.runId;
    this.toolCallId = args.toolCallId;
    this.reason = args.reason;
  }
  static override isInstance = hasName<ApprovalRuleError>('ApprovalRuleError');
}

/** Something the journal holds, or is asked to hold, cannot be encoded or understood. */
export class JournalDataError extends GnlError {
  override name = 'JournalDataError';
  /** Set when an event was refused for its size (event-limit.ts): callers branch on it, never on the message. */
  readonly tooLarge?: { eventType: string; bytes: number; limit: number };
  /** Set when an operator's output did not match the tool's output schema (output-check.ts): the call and each field. */
  readonly outputMismatch?: { toolCallId: string; issues: OutputIssue[] };
  /** Set when an event did not match its type's schema (event-schemas.ts): the type and the fields at fault (zod issue paths). */
  readonly invalidEvent?: { eventType: string; fields: string[] };
  /** Set when an approver's changed arguments did not match the tool's input schema (approved-input.ts): the call and each field. */
  readonly inputMismatch?: { toolCallId: string; issues: OutputIssue[] };
  /** Set when an approved call's arguments do not hash to what its approval recorded (approved-input.ts): nothing was executed. */
  readonly approvedInputMismatch?: { toolCallId: string; recorded: string | undefined; computed: string };
  constructor(
    message: string,
    options?: {
      cause?: unknown;
      tooLarge?: { eventType: string; bytes: number; limit: number };
      outputMismatch?: { toolCallId: string; issues: OutputIssue[] };
      invalidEvent?: { eventType: string; fields: string[] };
      inputMismatch?: { toolCallId: string; issues: OutputIssue[] };
      approvedInputMismatch?: { toolCallId: string; recorded: string | undefined; computed: string };
    },
  ) {
    super(message, options);
    if (options?.inputMismatch) this.inputMismatch = options.inputMismatch;
    if (options?.approvedInputMismatch) this.approvedInputMismatch = options.approvedInputMismatch;
    if (options?.tooLarge) this.tooLarge = options.tooLarge;
    if (options?.outputMismatch) this.outputMismatch = options.outputMismatch;
    if (options?.invalidEvent) this.invalidEvent = options.invalidEvent;
  }
  static override isInstance = hasName<JournalDataError>('JournalDataError');
}

/** A field of an output that does not fit the tool's output schema: where (`refund.amount`; '' for the whole value) and why. */
export interface OutputIssue {
  path: string;
  message: string;
}

/** A run reached its events-per-run limit (MAX_EVENTS_PER_RUN or runDurable's maxEventsPerRun): nothing more was appended but its failure. */
export class RunEventLimitError extends GnlError {
  override name = 'RunEventLimitError';
  readonly runId: string;
  readonly limit: number;
  constructor(args: { runId: string; events: number; adding: number; reserved?: number; limit: number }) {
    const kept = args.reserved ? ` and keeping room for ${args.reserved === 1 ? "1 side effect's outcome" : `${args.reserved} side effects' outcomes`}` : '';
    super(
      `Run "${args.runId}" has ${args.events} events; appending ${args.adding} more${kept} would pass the limit of ${args.limit} events per run ` +
        '(maxEventsPerRun). Nothing was appended. Cancel it, or resume it with a higher maxEventsPerRun.',
    );
    this.runId = args.runId;
    this.limit = args.limit;
  }
  static override isInstance = hasName<RunEventLimitError>('RunEventLimitError');
}

/**
 * Thrown by a side-effecting tool to say it did nothing (its input failed validation, the service
 * refused the request): the outcome is known, so it is not an unknown outcome. The call's error is
 * recorded as final and the model sees it as the tool's error, as generateText would show it.
 */
export class ToolNotPerformedError extends GnlError {
  override name = 'ToolNotPerformedError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
  static override isInstance = hasName<ToolNotPerformedError>('ToolNotPerformedError');
}

export type HoldSessionProblem = 'transaction-pooling' | 'session-lost';

/**
 * The database session that holds this process's runs cannot hold them. 'transaction-pooling': the lock
 * taken for a run was not its connection's on the very next statement (thrown when the hold is taken:
 * something between GNL and Postgres hands statements to different server sessions). 'session-lost':
 * the keep-alive found the session gone while runs were held (reported, not thrown: the appends of
 * those runs already write nothing, HoldLostError).
 */
export class HoldSessionError extends GnlError {
  override name = 'HoldSessionError';
  readonly reason: HoldSessionProblem;
  readonly runIds: string[];
  /** The server session (backend pid) that took the locks. */
  readonly lockPid: number;
  /** The session that answered instead; undefined when nothing answered (the connection failed). */
  readonly answeredPid?: number;
  /** 'transaction-pooling' seen the other way: another client of the pooler was handed the lock's own session. */
  readonly sharedWithPool?: boolean;
  constructor(args: { reason: HoldSessionProblem; runIds: string[]; lockPid: number; answeredPid?: number; sharedWithPool?: boolean; cause?: unknown }) {
    const runs = args.runIds.map((id) => `"${id}"`).join(', ');
    const answered = args.answeredPid === undefined ? 'nothing answered' : `database session ${args.answeredPid} answered`;
    const seen = args.sharedWithPool
      ? `its lock was taken on database session ${args.lockPid}, and a statement of another connection of this process then ran on that same session. `
      : `its lock was taken on database session ${args.lockPid}, and on the same connection's next statement ${answered}, which does not hold it. `;
    super(
      args.reason === 'transaction-pooling'
        ? `Cannot hold run ${runs}: ${seen}` +
            'Something between GNL and Postgres hands server sessions from one connection to another between transactions (a transaction-pooling ' +
            'proxy such as pgbouncer with pool_mode=transaction); session advisory locks need a session-level connection. Connect to Postgres ' +
            'directly or through a session-mode pool (docs/postgres-holds.md).'
        : `Lost the database session (${args.lockPid}) that holds run(s) ${runs}: its keep-alive failed (${answered}). Those holds are gone; ` +
            'the runs append nothing more from this process (HoldLostError) and can be resumed anywhere.',
      { cause: args.cause },
    );
    this.reason = args.reason;
    this.runIds = args.runIds;
    this.lockPid = args.lockPid;
    this.answeredPid = args.answeredPid;
    if (args.sharedWithPool) this.sharedWithPool = true;
  }
  static override isInstance = hasName<HoldSessionError>('HoldSessionError');
}

/**
 * Why a fork cannot be made (fork-plan.ts, workflow-fork-plan.ts): the parent is unknown, has no such model
 * step (a workflow's: no such step), the edit names a call the fork point does not keep (or a workflow's
 * step still open there, an unregistered version), or the fork's id is taken by another run.
 * ('not-an-agent-run' is no longer given: workflow runs are forked at their steps.)
 */
export type ForkRefusal = 'unknown-run' | 'no-such-step' | 'no-agent' | 'not-an-agent-run' | 'invalid-edit' | 'run-id-taken';

/** A fork that cannot be made: `reason` says which check refused it; nothing was written. */
export class ForkRefusedError extends GnlError {
  override name = 'ForkRefusedError';
  readonly runId: string;
  readonly atStep: number;
  readonly reason: ForkRefusal;
  constructor(args: { runId: string; atStep: number; reason: ForkRefusal; detail: string; cause?: unknown }) {
    super(`Cannot fork run "${args.runId}" at step ${args.atStep}: ${args.detail}. Nothing was written.`, { cause: args.cause });
    this.runId = args.runId;
    this.atStep = args.atStep;
    this.reason = args.reason;
  }
  static override isInstance = hasName<ForkRefusedError>('ForkRefusedError');
}

/**
 * Why a run's export or import was refused (run-export.ts, docs/operations.md#export-and-import): the run
 * to export does not exist, a line of the file is not what the format says (`line`, 1-based), or the run
 * id is taken in the target journal.
 */
export type RunTransferRefusal = 'unknown-run' | 'invalid-line' | 'run-exists';

/** An export or import that cannot be made: `reason` says which check refused it; nothing was written. */
export class RunTransferError extends GnlError {
  override name = 'RunTransferError';
  readonly reason: RunTransferRefusal;
  readonly runId: string | undefined;
  /** The file's line that is wrong (1-based: the header is line 1), for `invalid-line`. */
  readonly line: number | undefined;
  constructor(args: { reason: RunTransferRefusal; detail: string; runId?: string; line?: number; cause?: unknown }) {
    super(args.line === undefined ? args.detail : `line ${args.line}: ${args.detail}`, { cause: args.cause });
    this.reason = args.reason;
    this.runId = args.runId;
    this.line = args.line;
  }
  static override isInstance = hasName<RunTransferError>('RunTransferError');
}

/**
 * The runId names a run that retention dropped (gnl.retention_log, docs/operations.md#retention): a job
 * delivered again under its id is not a new job, its side effects ran under that id, so it is not started
 * from scratch. Nothing was written. To run the work again on purpose, start it under another runId.
 */
export class RunRetiredError extends GnlError {
  override name = 'RunRetiredError';
  readonly runId: string;
  /** How the dropped run had ended (`completed` or `canceled`) and when it was dropped, by which job. */
  readonly endedAs: string;
  readonly droppedAt: Date;
  readonly droppedBy: string;
  constructor(args: { runId: string; endedAs: string; droppedAt: Date; droppedBy: string }) {
    super(
      `Run "${args.runId}" ended ${args.endedAs} and was dropped by retention (${args.droppedBy}, ${args.droppedAt.toISOString()}): its id names work already done, so it is not started again. To run the job again on purpose, start it under another runId.`,
    );
    this.runId = args.runId;
    this.endedAs = args.endedAs;
    this.droppedAt = args.droppedAt;
    this.droppedBy = args.droppedBy;
  }
  static override isInstance = hasName<RunRetiredError>('RunRetiredError');
}

/** A workflow definition or a workflow's input is refused (defineWorkflow, runWorkflow, startWorkflow): every problem listed. */
export class WorkflowInputError extends GnlError {
  override name = 'WorkflowInputError';
  readonly problems: string[];
  constructor(args: { what: string; problems: string[]; cause?: unknown }) {
    super(`${args.what}: ${args.problems.join('; ')}`, args.cause === undefined ? undefined : { cause: args.cause });
    this.problems = args.problems;
  }
  static override isInstance = hasName<WorkflowInputError>('WorkflowInputError');
}

/** A run's memory option, or a thread message it would be given, is refused (runDurable's `memory`): every problem listed. */
export class MemoryInputError extends GnlError {
  override name = 'MemoryInputError';
  readonly problems: string[];
  constructor(args: { what: string; problems: string[]; cause?: unknown }) {
    super(`${args.what}: ${args.problems.join('; ')}`, args.cause === undefined ? undefined : { cause: args.cause });
    this.problems = args.problems;
  }
  static override isInstance = hasName<MemoryInputError>('MemoryInputError');
}

/** A person rejected a workflow step that needed approval: the workflow may catch it, else the run fails with it. */
export class StepRejectedError extends GnlError {
  override name = 'StepRejectedError';
  readonly runId: string;
  readonly step: string;
  readonly reason: string | undefined;
  constructor(args: { runId: string; step: string; reason?: string }) {
    super(`Run "${args.runId}": step "${args.step}" was rejected${args.reason ? `: ${args.reason}` : ''}.`);
    this.runId = args.runId;
    this.step = args.step;
    this.reason = args.reason;
  }
  static override isInstance = hasName<StepRejectedError>('StepRejectedError');
}

/** A child run of a workflow failed or was canceled (onFailure 'throw'): every child's outcome is on it, as recorded. */
export class ChildRunFailedError extends GnlError {
  override name = 'ChildRunFailedError';
  readonly runId: string;
  readonly step: string;
  readonly outcomes: readonly { runId: string; status: string; error?: { name: string; message: string } }[];
  constructor(args: { runId: string; step: string; outcomes: ChildRunFailedError['outcomes'] }) {
    const failed = args.outcomes.filter((o) => o.status !== 'completed');
    super(
      `Run "${args.runId}": step "${args.step}": ${failed.map((o) => `child run "${o.runId}" ${o.status}${o.error ? ` (${o.error.name}: ${o.error.message})` : ''}`).join('; ')}.`,
    );
    this.runId = args.runId;
    this.step = args.step;
    this.outcomes = args.outcomes;
  }
  static override isInstance = hasName<ChildRunFailedError>('ChildRunFailedError');
}

/** An event cannot be sent to a run (journal.sendEvent): no such run, the run is no workflow's, or it has ended. Nothing written. */
export class EventRefusedError extends GnlError {
  override name = 'EventRefusedError';
  readonly runId: string;
  readonly reason: 'unknown-run' | 'not-a-workflow' | 'ended' | 'invalid-payload' | 'event-id-taken';
  constructor(args: { runId: string; reason: EventRefusedError['reason']; detail: string; cause?: unknown }) {
    super(
      `An event for run "${args.runId}" was refused (${args.reason}): ${args.detail}. Nothing was written.`,
      args.cause === undefined ? undefined : { cause: args.cause },
    );
    this.runId = args.runId;
    this.reason = args.reason;
  }
  static override isInstance = hasName<EventRefusedError>('EventRefusedError');
}

/**
 * The MCP server's tools and their declarations do not match (durableMcpTools): a tool the server offers
 * that is not declared (no one said whether it changes the world), or a declared one the server does not
 * offer (a misspelt name would leave a side effect undeclared). Both lists given; no tool is returned.
 */
export class McpDeclarationError extends GnlError {
  override name = 'McpDeclarationError';
  readonly undeclared: string[];
  readonly notOffered: string[];
  constructor(args: { undeclared: string[]; notOffered: string[] }) {
    const problems = [
      ...(args.undeclared.length > 0
        ? [`the server offers tools with no declaration: ${args.undeclared.join(', ')} (declare each with sideEffect: true or false, or 'omit')`]
        : []),
      ...(args.notOffered.length > 0 ? [`declared tools the server does not offer: ${args.notOffered.join(', ')}`] : []),
    ];
    super(`MCP tools refused: ${problems.join('; ')}.`);
    this.undeclared = args.undeclared;
    this.notOffered = args.notOffered;
  }
  static override isInstance = hasName<McpDeclarationError>('McpDeclarationError');
}

/** An MCP tool answered with an error result (`isError: true`); the message is the result's text. */
export class McpToolError extends GnlError {
  override name = 'McpToolError';
  readonly toolName: string;
  /** The result as the server sent it. */
  readonly result: unknown;
  constructor(args: { toolName: string; message: string; result: unknown }) {
    super(`MCP tool ${args.toolName} answered with an error: ${args.message}`);
    this.toolName = args.toolName;
    this.result = args.result;
  }
  static override isInstance = hasName<McpToolError>('McpToolError');
}
