/**
 * What the journal says about a run, folded from its events: the recorded model steps, each tool
 * operation (keyed by idempotency key, so a re-planned 'args' call finds the first call's work), and
 * each approval. runDurable consults it to replay; appends update it as they commit.
 */
import type { Decision, RecordedEvent } from './events';
import { type KeyScheme, keySchemeOf } from './idempotency-key';
import type { RunStatus } from './run-status';

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
  /** `policy`: decided by the toolApproval policy, not a person (the event named the call itself). */
  decision?: Pick<Decision, 'by' | 'reason'> & { approved: boolean; policy?: boolean };
}

export class RunState {
  status: RunStatus | undefined;
  lastSeq = 0;
  /** Who canceled the run, once it is canceled. */
  canceled: { by: string; reason?: string } | undefined;
  readonly modelSteps: unknown[] = [];
  readonly modelRequestHashes: (string | undefined)[] = [];
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

  constructor(events: readonly RecordedEvent[] = []) {
    for (const event of events) this.apply(event);
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

  apply(event: RecordedEvent): void {
    this.lastSeq = event.seq;
    switch (event.type) {
      case 'run-start':
        this.recordedKeyScheme = event.input.keyScheme;
        this.status = 'running';
        return;
      case 'run-resume':
        this.status = 'running';
        return;
      case 'run-suspend':
        this.status = event.status;
        return;
      case 'run-complete':
        this.status = 'completed';
        return;
      case 'run-fail':
        this.status = 'failed';
        return;
      case 'run-cancel':
        this.status = 'canceled';
        this.canceled = { by: event.by, reason: event.reason };
        return;
      case 'model-step':
        this.modelSteps[event.step] = event.result;
        this.modelRequestHashes[event.step] = event.requestHash;
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
        this.approvals.set(event.toolCallId, { toolName: event.toolName, input: event.input, requestedAt: event.requestedAt, expiresAt: event.expiresAt });
        this.recordInput(event.toolCallId, event.input);
        return;
      case 'tool-approval-response': {
        // A policy's decision comes with no request before it: it names the call itself.
        const approval =
          this.approvals.get(event.toolCallId) ??
          (event.policy ? { toolName: event.policy.toolName, input: event.policy.input, requestedAt: event.at.toISOString() } : undefined);
        if (!approval) return;
        approval.decision = { approved: event.approved, by: event.by, reason: event.reason, ...(event.policy ? { policy: true } : {}) };
        this.approvals.set(event.toolCallId, approval);
        if (event.policy) this.recordInput(event.toolCallId, event.policy.input);
        return;
      }
      case 'tool-call-repair':
        this.repairs.set(`${event.step}:${event.toolCallId}`, event.repaired);
        return;
      case 'side-effect-check':
      case 'replay-mismatch':
      case 'run-resume-request': // audit only: who asked for the resume, and why
        return;
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
