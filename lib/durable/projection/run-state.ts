/**
 * The run projection: the one fold of a run's journal into what the run is. Its status (one rule,
 * `statusAfter`), what it waits for (`pending`, with the decisions taken since it suspended), the
 * recorded model steps, each tool operation (keyed by idempotency key, so a re-planned 'args' call finds
 * the first call's work), each approval, and each call's latest decision. runDurable replays from it,
 * the tool gate and resume plans (run-plan.ts) decide from it, the summary an append writes follows its
 * status rule (run-summary.ts), and the Studio and the CLI read it; nothing else folds events
 * (projection-only.test.ts keeps it so). Pure and browser-safe; appends update it as they commit.
 */
import type {
  ApprovalProposal,
  ApprovalRule,
  ApprovalVote,
  Decision,
  JournalEvent,
  PendingItem,
  RecordedEvent,
  RunInput,
  WorkflowWait,
} from '../journal/events';
import { unreachable } from '../journal/exhaustive';
import { type KeyScheme, keySchemeOf } from '../identity/key-scheme';
import type { RunStatus } from '../journal/run-status';

/**
 * The status rule, in one place: the status a run has after `event`, given the one it had. Cancel is
 * terminal: once canceled, no later event (a run-fail of the invocation that was stopped, a resume)
 * changes it. Events that say nothing about the status keep it.
 */
export function statusAfter(status: RunStatus | undefined, event: JournalEvent): RunStatus | undefined {
  if (status === 'canceled') return status;
  switch (event.type) {
    case 'run-start':
    case 'run-resume':
      return 'running';
    case 'run-suspend':
      return event.status;
    case 'run-complete':
      return 'completed';
    case 'run-fail':
      return 'failed';
    case 'run-cancel':
      return 'canceled';
    default:
      return status;
  }
}

/** Whether `event` is one the status rule answers (a start, resume, suspend, end or cancel). */
export function changesStatus(event: JournalEvent): boolean {
  return statusAfter(undefined, event) !== undefined;
}

/**
 * What the run waits for after `event`, given what it waited for and its status after the event (by
 * statusAfter) and the decision the event records (by decisionIn): a suspend's
 * items; a decision marks its item (the first undecided one of the call and the kind it answers, as
 * decisions.ts plans it); a resume, the end or a cancel empties it, and a canceled run waits for nothing
 * whatever follows (the rule the append statement applies to the summary row, run-summary.ts).
 */
export function pendingAfter(
  pending: readonly PendingItem[],
  event: RecordedEvent,
  status: RunStatus | undefined,
  decided: ReturnType<typeof decisionIn>,
): readonly PendingItem[] {
  if (status === 'canceled') return [];
  if (event.type === 'run-suspend') return event.pending;
  if (changesStatus(event)) return [];
  if (event.type === 'tool-approval-vote') {
    // Counted toward the rule's N: the first undecided approval of the call keeps it (decisions.ts plans it).
    const voted = pending.findIndex((item) => item.toolCallId === event.toolCallId && item.kind === 'approval' && !item.decision);
    if (voted < 0) return pending;
    return pending.map((item, i) => (i === voted && item.kind === 'approval' ? withVote(item, event) : item));
  }
  if (!decided) return pending;
  const index = pending.findIndex((item) => item.toolCallId === decided.toolCallId && item.kind === decided.kind && !item.decision);
  if (index < 0) return pending;
  return pending.map((item, i) => (i === index ? { ...item, decision: decided.decision } : item));
}

/**
 * An approval with a vote counted: a plain vote is added; a proposal (changed arguments) voids the votes
 * before it, and counts as an approval itself unless the rule asks four eyes (decisions.ts plans both).
 */
export function withVote<T extends { rule?: ApprovalRule; votes?: ApprovalVote[]; proposal?: ApprovalProposal }>(
  item: T,
  event: Extract<RecordedEvent, { type: 'tool-approval-vote' }>,
): T {
  const at = event.at.toISOString();
  const vote = { by: event.by, at, ...(event.reason ? { reason: event.reason } : {}) };
  if (event.proposedInputHash === undefined) return { ...item, votes: [...(item.votes ?? []), vote] };
  const proposal = { input: event.proposedInput, inputHash: event.proposedInputHash, by: event.by, at };
  return { ...item, votes: item.rule?.fourEyes ? [] : [{ ...vote, proposed: true }], proposal };
}

/** The decision an event records, if it is one: which call, the pending kind it answers, and the outcome. */
export function decisionIn(event: RecordedEvent): { toolCallId: string; kind: PendingItem['kind']; decision: Decision } | undefined {
  // Only a decision pays for its instant: this runs for every event an append folds.
  const at = () => event.at.toISOString();
  const because = (reason: string | undefined) => (reason ? { reason } : {});
  if (event.type === 'tool-approval-response') {
    const outcome = event.approved ? 'approved' : 'rejected';
    const edited = event.approved && event.approvedInput !== undefined ? { editedInput: true } : {};
    return { toolCallId: event.toolCallId, kind: 'approval', decision: { outcome, by: event.by, at: at(), ...because(event.reason), ...edited } };
  }
  if (event.type === 'side-effect-resolution') {
    return { toolCallId: event.toolCallId, kind: 'side-effect', decision: { outcome: event.outcome, by: event.by, at: at(), ...because(event.reason) } };
  }
  if (event.type === 'tool-call-end' && event.source === 'provided') {
    return {
      toolCallId: event.toolCallId,
      kind: 'tool-result',
      decision: { outcome: 'provided', by: event.by ?? 'unknown', at: at(), ...because(event.reason) },
    };
  }
  return undefined;
}

/**
 * A run-forked or run-restarted event: another run of the job was made from this one (an executing run
 * applies one appended meanwhile: run-session.ts).
 */
export function isJobLink(event: RecordedEvent): boolean {
  return event.type === 'run-forked' || event.type === 'run-restarted';
}

/**
 * An event appended from anywhere that an executing run takes into its state when it sees it: a job
 * link (isJobLink) or an event sent to a workflow (its wait takes it).
 */
/**
 * An event that records what became of a tool call that ran: its result or its error. A process that saw
 * its tool finish, and lost its hold on the way to recording it, takes the hold again to record this
 * (run-session.ts), rather than leave the run blocked for a person.
 */
export function recordsOutcome(event: JournalEvent): boolean {
  return event.type === 'tool-call-end' || event.type === 'tool-call-error';
}

export function isAppliedMeanwhile(event: RecordedEvent): boolean {
  return isJobLink(event) || event.type === 'workflow-event';
}

export interface ToolOperation {
  idempotencyKey: string;
  toolName: string;
  /** The call ids that map to this operation (more than one when 'args' deduplicated a re-planned call). */
  toolCallIds: Set<string>;
  /** The call that first started it. */
  firstToolCallId: string;
  input: unknown;
  sideEffect: boolean;
  attempts: number;
  lastStartedAt?: Date;
  /** Set when the operation has a known result. */
  result?: { kind: 'output'; output: unknown } | { kind: 'error'; error: { name: string; message: string } };
  /** Set while the last attempt has no recorded result. */
  inFlight: boolean;
  /** The operator's latest resolution of an unknown outcome for the current attempt. */
  resolution?: 'done' | 'not-done';
}

export interface ApprovalState {
  toolName: string;
  input: unknown;
  requestedAt: string;
  expiresAt?: string;
  /** Who may approve it, as its request recorded (ApprovalRule). */
  rule?: ApprovalRule;
  /** Approvals counted toward the rule's N (tool-approval-vote), in order, since the arguments last changed. */
  votes?: ApprovalVote[];
  /** Arguments changed under the rule, waiting to be approved as changed (a tool-approval-vote that proposed them). */
  proposal?: ApprovalProposal;
  /** `policy`: decided by the toolApproval policy, not a person (the event named the call itself). */
  decision?: Pick<Decision, 'by' | 'reason'> & { approved: boolean; policy?: boolean; approvedInput?: unknown; approvedInputHash?: string };
}

/** One run-migrate as the projection keeps it. */
export interface RunMigration {
  seq: number;
  at: Date;
  fromVersion?: string;
  toVersion?: string;
  changed: string[];
  by: string;
  reason: string;
  overridden?: string[];
  /** Model steps recorded before it: their recorded requests were made by the earlier version. */
  stepsBefore: number;
}

/** One `run-retry`: the executor's verdict on an invocation that failed on a transient error. */
/** One wait of a workflow, as the projection keeps it. */
export interface WorkflowWaitRecord {
  waitId: string;
  name: string;
  wait: WorkflowWait;
  seq: number;
  at: Date;
  end?: { outcome: 'elapsed' | 'event' | 'timeout' | 'children'; eventId?: string; value?: unknown; seq: number; at: Date };
}

/** One event sent to a workflow run. */
export interface WorkflowEventRecord {
  eventId: string;
  name: string;
  payload: unknown;
  by: string;
  seq: number;
  at: Date;
}

export interface RetryRecord {
  seq: number;
  /** When it was journaled (ISO). */
  at: string;
  by: string;
  attempt: number;
  attempts: number;
  error: { name: string; message: string };
  /** When the executor resumes the run again; absent: attempts used up, the run waits for a person. */
  retryAt?: string;
}

/** A resume someone scheduled (a `run-resume-request` with `at`) that no invocation has begun since. */
export interface ScheduledResume {
  seq: number;
  /** When the run is to be invoked (ISO). */
  at: string;
  by: string;
  reason?: string;
}

export class RunState {
  status: RunStatus | undefined;
  lastSeq = 0;
  /** Who started the run, when its run-start says (a four-eyes rule keeps them from approving its calls). */
  startedBy: string | undefined;
  /** Who canceled the run, once it is canceled. */
  canceled: { by: string; reason?: string } | undefined;
  /** The first invocation span recorded (run-start's or a run-resume's): the trace the run's invocations continue (tracing.ts). */
  trace: { traceId: string; spanId: string } | undefined;
  /** What the run is compared with on resume: its run-start's input, or the last run-migrate's. */
  input: RunInput | undefined;
  /** Each run-migrate, in order: the run continues on another agent version from there. */
  readonly migrations: RunMigration[] = [];
  /** What the run waits for (the last suspend's items, with their decisions); empty while it moves or once it ended. */
  pending: readonly PendingItem[] = [];
  /** Each call's latest decision (a person's or a policy's), whether or not the run still lists it. */
  readonly decisions = new Map<string, Decision>();
  /** The seq of the last run-fail, while the run is failed. */
  failedAt: number | undefined;
  /** The seq of each run-resume: each invocation after the first begins with one. */
  readonly resumes: number[] = [];
  /** The text the run completed with (its last run-complete), if it completed. */
  completedText: string | undefined;
  /** The SDK's result its last run-complete recorded (completed-result.ts), when it recorded one. */
  completedAnswer: unknown;
  /** The error of its last run-fail. */
  failure: { name: string; message: string } | undefined;
  readonly modelSteps: unknown[] = [];
  readonly modelRequestHashes: (string | undefined)[] = [];
  /** The seq of each recorded model step, by step number. */
  private readonly stepSeqs: number[] = [];
  /** Every tool call id the recorded model steps hold (a new step's ids must not repeat them). */
  private readonly stepCallIds = new Set<string>();
  readonly operations = new Map<string, ToolOperation>();
  readonly keyOfCall = new Map<string, string>();
  readonly approvals = new Map<string, ApprovalState>();
  /** The arguments first recorded for each call: on replay they, not the arguments derived again, are the call's. */
  readonly inputOfCall = new Map<string, unknown>();
  /** The key scheme the run's start input records (undefined until its run-start is folded; none recorded: 1). */
  private recordedKeyScheme: unknown;
  /** What repairToolCall made of a call, by `<step>:<toolCallId>` (null: it gave up). */
  readonly repairs = new Map<string, unknown>();
  /**
   * Every call the run waited for a result of (a tool without execute: a person's answer, a sub-agent's
   * child), in the order its suspends first named them; who answered each is in `decisions`.
   */
  readonly resultCalls: { toolCallId: string; toolName: string }[] = [];
  /** The forks operators made of this run (its run-forked events), in order. */
  readonly forks: { childRunId: string; atStep: number; by: string; reason: string; at: Date; seq: number }[] = [];
  /** The runs operators restarted this run as (its run-restarted events), in order. */
  readonly restarts: { restartedAs: string; by: string; newAttempt: boolean; at: Date; seq: number }[] = [];
  /** Where the run came from when it was imported from an export (its last run-imported), else undefined. */
  imported: { runId: string; exportedAt: string; redacted: boolean; by: string; at: Date; seq: number } | undefined;
  /**
   * The run whose job this is when it was imported: the first run-imported's (an import of an imported copy
   * keeps the origin; its export holds the earlier run-imported), else undefined. Its 'args' keys and a
   * fork's root are made from it (call-identity.ts, fork-plan.ts).
   */
  importOrigin: string | undefined;
  /** Every run-retry, in order: each automatic attempt after a transient failure. */
  readonly retries: RetryRecord[] = [];
  /**
   * Transient failures in a row (the executor's next attempt number minus one): counted from the last
   * time the run moved on (a new model step, a suspend, its end) or a person asked for a resume.
   */
  retryStreak = 0;
  /** When the executor tries the failed run again (the last run-retry's retryAt), until the next invocation begins. */
  nextAttemptAt: string | undefined;
  /** The latest scheduled resume, until an invocation begins or someone asks for a resume at once. */
  scheduledResume: ScheduledResume | undefined;
  /** A workflow's waits (workflow-wait), by wait id, each with its end once recorded (workflow-wait-end). */
  readonly workflowWaits = new Map<string, WorkflowWaitRecord>();
  /** Events sent to the run (workflow-event), in the order recorded; one per event id. */
  readonly workflowEvents: WorkflowEventRecord[] = [];
  /** The ids of the events a wait has taken (delivered once). */
  readonly deliveredEvents = new Set<string>();
  /** A workflow's return value, once it completed (its run-complete's `output`). */
  completedOutput: unknown;

  constructor(events: readonly RecordedEvent[] = []) {
    for (const event of events) this.apply(event);
  }

  /** The agent version the run runs on: its start's, or the one its last migration moved it to. */
  get agentVersion(): string | undefined {
    return this.input?.agentVersion;
  }

  /**
   * The run a fork of this one (`runId`) makes its 'args' keys from: its lineage's root, else the run an
   * imported copy came from (callIdentity makes its own calls' keys so), else itself (fork-plan.ts).
   */
  forkRootOf(runId: string): string {
    return this.input?.forkOf?.rootRunId ?? this.importOrigin ?? runId;
  }

  /**
   * Model steps recorded before the last migration: replayed as recorded, their requests not compared
   * with this version's (a migrated run's earlier steps were asked with the earlier system prompt or tools).
   */
  get stepsBeforeMigration(): number {
    return this.migrations.at(-1)?.stepsBefore ?? 0;
  }

  toolCallIdsOfSteps(): ReadonlySet<string> {
    return this.stepCallIds;
  }

  /** The scheme every key of this run is made by: the one its start recorded, whatever this code's default. */
  keyScheme(runId: string): KeyScheme {
    return keySchemeOf(this.recordedKeyScheme, runId);
  }

  operationOfCall(toolCallId: string): ToolOperation | undefined {
    const key = this.keyOfCall.get(toolCallId);
    return key === undefined ? undefined : this.operations.get(key);
  }

  private recordInput(toolCallId: string, input: unknown): void {
    // An end that names no input (a provided result, a check's) says nothing about the arguments.
    if (input !== undefined && !this.inputOfCall.has(toolCallId)) this.inputOfCall.set(toolCallId, input);
  }

  /** The recorded model steps folded so far, in step order: number, seq and the model's raw result. */
  recordedSteps(): { step: number; seq: number; result: unknown }[] {
    return this.stepSeqs.flatMap((seq, step) => (seq === undefined ? [] : [{ step, seq, result: this.modelSteps[step] }]));
  }

  /**
   * The tool calls of the last recorded model step, as the SDK will run them on replay: a repaired call
   * as its repair made it, a call whose repair gave up and a call the provider executed left out.
   */
  lastStepCalls(): { toolCallId: string; toolName: string; input: unknown }[] {
    const step = this.modelSteps.length - 1;
    const content = (this.modelSteps[step] as { content?: unknown } | undefined)?.content;
    const calls: { toolCallId: string; toolName: string; input: unknown }[] = [];
    for (const part of Array.isArray(content) ? content : []) {
      const p = part as { type?: unknown; toolCallId?: unknown; toolName?: unknown; input?: unknown; providerExecuted?: unknown };
      if (p?.type !== 'tool-call' || typeof p.toolCallId !== 'string' || p.providerExecuted === true) continue;
      const repairKey = `${step}:${p.toolCallId}`;
      const repaired = this.repairs.has(repairKey) ? (this.repairs.get(repairKey) as typeof p | null) : p;
      if (!repaired) continue;
      const toolName = typeof repaired.toolName === 'string' ? repaired.toolName : String(p.toolName ?? '');
      calls.push({ toolCallId: p.toolCallId, toolName, input: this.inputOfCall.get(p.toolCallId) ?? parsedInput(repaired.input) });
    }
    return calls;
  }

  /** The latest decision on a call: approved, rejected, done, not done or provided. */
  decisionOf(toolCallId: string): Decision | undefined {
    return this.decisions.get(toolCallId);
  }

  apply(event: RecordedEvent): void {
    this.lastSeq = event.seq;
    // Each rule once per event: this runs for every event an append folds.
    this.status = statusAfter(this.status, event);
    const decided = decisionIn(event);
    this.pending = pendingAfter(this.pending, event, this.status, decided);
    if (this.status !== 'failed') this.failedAt = undefined;
    if (decided) this.decisions.set(decided.toolCallId, decided.decision);
    switch (event.type) {
      case 'run-start':
        this.input = event.input;
        if (event.by !== undefined) this.startedBy = event.by;
        this.recordedKeyScheme = event.input.keyScheme;
        this.trace ??= event.trace;
        return;
      case 'run-resume':
        this.trace ??= event.trace;
        this.resumes.push(event.seq);
        this.nextAttemptAt = undefined;
        this.scheduledResume = undefined;
        return;
      case 'run-migrate': {
        const { fromVersion, toVersion, changed, by, reason, overridden } = event;
        // A fork's lineage (forkOf: its parent, its inherited keys, its instruction) is the run's, not its
        // version's: a migration's input is built from the agent and carries none, and a fork that copied its
        // parent's run-migrate, or was migrated itself, is still that fork (its repeats keep their keys).
        const forkOf = event.input.forkOf ?? this.input?.forkOf;
        const restartOf = event.input.restartOf ?? this.input?.restartOf;
        // So is the call or wait it answers (its parent link); a migration recorded before it carried one kept none.
        const parent = event.input.parent ?? this.input?.parent;
        this.input = { ...event.input, ...(forkOf ? { forkOf } : {}), ...(restartOf ? { restartOf } : {}), ...(parent ? { parent } : {}) };
        this.migrations.push({
          seq: event.seq,
          at: event.at,
          ...(fromVersion !== undefined ? { fromVersion } : {}),
          ...(toVersion !== undefined ? { toVersion } : {}),
          changed,
          by,
          reason,
          ...(overridden ? { overridden } : {}),
          stepsBefore: this.modelSteps.length,
        });
        return;
      }
      case 'run-retry': {
        const { by, attempt, attempts, error, retryAt } = event;
        this.retries.push({ seq: event.seq, at: event.at.toISOString(), by, attempt, attempts, error, ...(retryAt ? { retryAt } : {}) });
        this.retryStreak = attempt;
        this.nextAttemptAt = retryAt;
        return;
      }
      case 'run-cancel':
        this.canceled ??= { by: event.by, ...(event.reason ? { reason: event.reason } : {}) };
        return;
      case 'run-fail':
        if (this.status === 'failed') this.failedAt = event.seq;
        this.failure = event.error;
        return;
      case 'run-suspend':
        this.retryStreak = 0;
        for (const item of event.pending)
          if (item.kind === 'tool-result' && !this.resultCalls.some((call) => call.toolCallId === item.toolCallId))
            this.resultCalls.push({ toolCallId: item.toolCallId, toolName: item.toolName });
        return;
      case 'run-complete':
        this.completedText = event.text;
        this.completedAnswer = event.answer;
        this.completedOutput = event.output;
        this.retryStreak = 0;
        return;
      case 'model-step':
        this.retryStreak = 0;
        this.modelSteps[event.step] = event.result;
        this.modelRequestHashes[event.step] = event.requestHash;
        this.stepSeqs[event.step] = event.seq;
        for (const part of (event.result as { content?: { type?: string; toolCallId?: string }[] } | undefined)?.content ?? []) {
          if (part.type === 'tool-call' && typeof part.toolCallId === 'string') this.stepCallIds.add(part.toolCallId);
        }
        return;
      case 'tool-call-start': {
        const op = this.operations.get(event.idempotencyKey) ?? {
          idempotencyKey: event.idempotencyKey,
          toolName: event.toolName,
          toolCallIds: new Set<string>(),
          firstToolCallId: event.toolCallId,
          input: event.input,
          sideEffect: event.sideEffect,
          attempts: 0,
          inFlight: false,
        };
        op.toolCallIds.add(event.toolCallId);
        this.recordInput(event.toolCallId, event.input);
        op.attempts = event.attempt;
        op.lastStartedAt = event.at;
        op.inFlight = true;
        op.result = undefined;
        op.resolution = undefined;
        this.operations.set(event.idempotencyKey, op);
        this.keyOfCall.set(event.toolCallId, event.idempotencyKey);
        return;
      }
      case 'tool-call-end':
      case 'tool-call-error': {
        // A read-only call records no start (running it again is safe): its end or error carries the input.
        const op = this.operations.get(event.idempotencyKey) ?? unstartedOperation(event);
        this.operations.set(event.idempotencyKey, op);
        op.attempts = Math.max(op.attempts, event.attempt);
        op.toolCallIds.add(event.toolCallId);
        this.keyOfCall.set(event.toolCallId, event.idempotencyKey);
        if ('input' in event) this.recordInput(event.toolCallId, event.input);
        if (event.type === 'tool-call-error' && event.retryable) {
          // execute threw: a read-only call is simply tried again; a side effect may have acted, so its
          // outcome stays unknown (in flight) for the unknown-outcome rule.
          op.inFlight = op.sideEffect;
          op.result = undefined;
          return;
        }
        op.inFlight = false;
        op.result = event.type === 'tool-call-end' ? { kind: 'output', output: event.output } : { kind: 'error', error: event.error };
        return;
      }
      case 'side-effect-resolution': {
        const op = this.operations.get(event.idempotencyKey);
        if (!op) return;
        op.resolution = event.outcome;
        if (event.outcome === 'done') {
          op.inFlight = false;
          op.result = { kind: 'output', output: event.output };
        }
        return;
      }
      case 'tool-approval-request':
        this.approvals.set(event.toolCallId, {
          toolName: event.toolName,
          input: event.input,
          requestedAt: event.requestedAt,
          expiresAt: event.expiresAt,
          ...(event.rule ? { rule: event.rule } : {}),
        });
        this.recordInput(event.toolCallId, event.input);
        return;
      case 'tool-approval-vote': {
        const approval = this.approvals.get(event.toolCallId);
        if (approval) this.approvals.set(event.toolCallId, withVote(approval, event));
        return;
      }
      case 'tool-approval-response': {
        // A policy's decision comes with no request before it: it names the call itself.
        const approval =
          this.approvals.get(event.toolCallId) ??
          (event.policy ? { toolName: event.policy.toolName, input: event.policy.input, requestedAt: event.at.toISOString() } : undefined);
        if (!approval) return;
        const edited =
          event.approved && event.approvedInput !== undefined ? { approvedInput: event.approvedInput, approvedInputHash: event.approvedInputHash } : {};
        approval.decision = { approved: event.approved, by: event.by, reason: event.reason, ...(event.policy ? { policy: true } : {}), ...edited };
        this.approvals.set(event.toolCallId, approval);
        if (event.policy) this.recordInput(event.toolCallId, event.policy.input);
        // Edited, then approved: the approved arguments are the call's from now on (its execution, its
        // 'args' key, the prompt of the next model call); the request keeps the original.
        if ('approvedInput' in edited) this.inputOfCall.set(event.toolCallId, edited.approvedInput);
        return;
      }
      case 'tool-call-repair':
        this.repairs.set(`${event.step}:${event.toolCallId}`, event.repaired);
        return;
      case 'run-forked': // audit and link only: the child's run-start holds the copy
        this.forks.push({ childRunId: event.childRunId, atStep: event.atStep, by: event.by, reason: event.reason, at: event.at, seq: event.seq });
        return;
      case 'run-imported': // audit only: where the run came from
        this.imported = { ...event.from, by: event.by, at: event.at, seq: event.seq };
        this.importOrigin ??= event.from.runId;
        return;
      case 'run-restarted': // audit and link only: the new run's run-start names this one
        this.restarts.push({ restartedAs: event.restartedAs, by: event.by, newAttempt: event.newAttempt === true, at: event.at, seq: event.seq });
        return;
      case 'run-resume-request': // audit: who asked for the resume, and why; a person's resume starts the attempts afresh
        this.retryStreak = 0;
        this.nextAttemptAt = undefined;
        this.scheduledResume = event.resumeAt
          ? { seq: event.seq, at: event.resumeAt, by: event.by, ...(event.reason ? { reason: event.reason } : {}) }
          : undefined;
        return;
      case 'workflow-wait':
        if (!this.workflowWaits.has(event.waitId)) {
          this.workflowWaits.set(event.waitId, { waitId: event.waitId, name: event.name, wait: event.wait, seq: event.seq, at: event.at });
        }
        return;
      case 'workflow-wait-end': {
        this.retryStreak = 0;
        const wait = this.workflowWaits.get(event.waitId);
        if (wait && !wait.end) {
          const { outcome, eventId, value } = event;
          wait.end = { outcome, ...(eventId !== undefined ? { eventId } : {}), ...('value' in event ? { value } : {}), seq: event.seq, at: event.at };
        }
        if (event.eventId !== undefined) this.deliveredEvents.add(event.eventId);
        return;
      }
      case 'workflow-event': // inert: it waits in the journal until a wait takes it
        if (!this.workflowEvents.some((sent) => sent.eventId === event.eventId)) {
          this.workflowEvents.push({ eventId: event.eventId, name: event.name, payload: event.payload, by: event.by, seq: event.seq, at: event.at });
        }
        return;
      case 'side-effect-check':
      case 'replay-mismatch':
        return;
      default:
        unreachable(event, 'The run projection');
    }
  }
}

function unstartedOperation(event: Extract<RecordedEvent, { type: 'tool-call-end' | 'tool-call-error' }>): ToolOperation {
  return {
    idempotencyKey: event.idempotencyKey,
    toolName: event.toolName,
    toolCallIds: new Set(),
    firstToolCallId: event.toolCallId,
    input: event.input,
    sideEffect: false,
    attempts: event.attempt,
    inFlight: false,
  };
}

/** A model's tool call input is JSON text; a call whose text does not parse is kept as the text. */
function parsedInput(input: unknown): unknown {
  if (typeof input !== 'string') return input;
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}

/** A whole run's events as `journal.events` gives them: numbered 1, 2, 3… from its run-start (or none: a run not started). */
export function isWholeRun(events: readonly RecordedEvent[]): boolean {
  if (!events.every((event, i) => typeof event === 'object' && event !== null && event.seq === i + 1)) return false;
  return events.length === 0 || events[0]?.type === 'run-start';
}

/** When the run these events are of started (its run-start's time, ms), if they begin with it. */
export function runStartedAt(events: readonly RecordedEvent[]): number | undefined {
  const first = events[0];
  return first?.type === 'run-start' && first.seq === 1 ? new Date(first.at).getTime() : undefined;
}
