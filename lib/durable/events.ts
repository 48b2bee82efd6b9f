/**
 * The journal's event vocabulary: one spelling, close to the AI SDK's own (`tool-approval-request`,
 * `tool-call-start` / `-end`). ARCHITECTURE.md lists it. Rows are never rewritten, so a new shape is
 * added beside an old one and readers keep understanding both.
 *
 * Payloads are stored through json-codec (Dates, bytes and undefined survive the round trip).
 */
import type { RunStatus } from './run-status';

/** What a run was started with; compared on resume (production semantics come in a later issue). */
export interface RunInput {
  /** The registered agent the run belongs to (runs started by name); absent for direct runDurable calls. */
  agent?: string;
  /** The agent's version fingerprint when the run was started (informational: changes are caught field by field). */
  agentVersion?: string;
  prompt?: unknown;
  messages?: unknown;
  system?: unknown;
  /** v7's `instructions`, when given instead of (or beside) system. */
  instructions?: unknown;
  modelId: string;
  provider: string;
  toolNames: string[];
  /** SHA-256 of each tool's input JSON Schema (canonical JSON). Absent in runs started before it was recorded. */
  toolSchemas?: Record<string, string>;
  /** The step limit runDurable applied because the call gave no stopWhen. */
  defaultStepLimit?: number;
  /** The scheme this run's idempotency keys are made by (idempotency-key.ts); absent in runs from before schemes: 1. */
  keyScheme?: number;
}

export interface ErrorInfo {
  name: string;
  message: string;
}

export type PendingItem =
  | {
      kind: 'approval';
      toolCallId: string;
      toolName: string;
      input: unknown;
      requestedAt: string;
      /** Past this instant the next resume treats the call as rejected ("expired"). */
      expiresAt?: string;
      decision?: Decision;
    }
  | {
      kind: 'side-effect';
      toolCallId: string;
      toolName: string;
      input: unknown;
      idempotencyKey: string;
      attempt: number;
      startedAt: string;
      reason: string;
      decision?: Decision;
    }
  | {
      /** A call to a tool without `execute` (a client-side tool): the run waits for journal.provideToolResult. */
      kind: 'tool-result';
      toolCallId: string;
      toolName: string;
      input: unknown;
      idempotencyKey: string;
      requestedAt: string;
      decision?: Decision;
    };

export interface Decision {
  outcome: 'approved' | 'rejected' | 'done' | 'not-done' | 'provided';
  by: string;
  at: string;
  reason?: string;
}

export type JournalEvent =
  | { type: 'run-start'; input: RunInput }
  | { type: 'run-resume'; fromStatus: RunStatus }
  | {
      type: 'model-step';
      step: number;
      provider: string;
      modelId: string;
      latencyMs: number;
      /** SHA-256 of the model call's input (prompt, tools, settings), to notice a replay that asks differently. */
      requestHash?: string;
      /** The model's raw result (LanguageModelV4GenerateResult without request/response bodies). */
      result: unknown;
    }
  | {
      type: 'tool-call-start';
      toolCallId: string;
      toolName: string;
      input: unknown;
      idempotencyKey: string;
      attempt: number;
      sideEffect: boolean;
    }
  | {
      type: 'tool-call-end';
      toolCallId: string;
      toolName: string;
      idempotencyKey: string;
      attempt: number;
      output: unknown;
      durationMs: number;
      /** Read-only calls record no start: their end carries the input and when execute began. */
      input?: unknown;
      startedAt?: string;
      /**
       * executed: execute returned it; check: the outside system said done; deduplicated: another call with
       * the same key did the work; provided: a tool without execute, answered by journal.provideToolResult.
       */
      source: 'executed' | 'check' | 'deduplicated' | 'provided';
      /** Who provided the output (source 'provided'). */
      by?: string;
      /** Why, as they said it (source 'provided'): the audit keeps it like a decision's reason. */
      reason?: string;
    }
  | {
      type: 'tool-call-error';
      toolCallId: string;
      toolName: string;
      idempotencyKey: string;
      attempt: number;
      error: ErrorInfo;
      durationMs: number;
      /** Read-only calls record no start: their error carries the input and when execute began. */
      input?: unknown;
      startedAt?: string;
      /**
       * true: execute threw; the run failed and the call is tried again on resume (a side effect under the
       * unknown-outcome rule). false or absent: final; replayed to the model as the call's error.
       */
      retryable?: boolean;
    }
  | {
      /**
       * What the run's repairToolCall made of a call the SDK could not parse (step, call id), or null when
       * it gave up. Replayed as recorded: the repair (often a paid model call) runs once per call.
       */
      type: 'tool-call-repair';
      step: number;
      toolCallId: string;
      /** The repaired call as the SDK takes it (LanguageModelV4ToolCall: input is the JSON text), or null. */
      repaired: unknown;
    }
  | { type: 'tool-approval-request'; toolCallId: string; toolName: string; input: unknown; requestedAt: string; expiresAt?: string }
  | {
      type: 'tool-approval-response';
      toolCallId: string;
      approved: boolean;
      by: string;
      reason?: string;
      expired?: boolean;
      /**
       * Decided by the toolApproval policy (no request was journaled before it): the call it names, so the
       * decision is replayed as recorded even when the policy later answers otherwise.
       */
      policy?: { toolName: string; input: unknown };
    }
  | {
      type: 'side-effect-check';
      toolCallId: string;
      idempotencyKey: string;
      attempt: number;
      result: { done: true } | { done: false } | { done: 'unknown'; reason: string };
    }
  | {
      type: 'side-effect-resolution';
      toolCallId: string;
      idempotencyKey: string;
      outcome: 'done' | 'not-done';
      output?: unknown;
      by: string;
      reason?: string;
    }
  | {
      type: 'replay-mismatch';
      /**
       * 'model-call': the step's input differs from the recorded one. 'tool-arguments' (older runs only): a
       * replayed call's arguments were derived differently; replays now run the recorded arguments (call-identity.ts).
       */
      kind: 'model-call' | 'tool-arguments';
      step?: number;
      toolCallId?: string;
      recorded: string;
      given: string;
    }
  | { type: 'run-suspend'; status: 'waiting-approval' | 'blocked' | 'waiting-tool-result'; pending: PendingItem[] }
  | { type: 'run-complete'; text: string; finishReason: string; steps: number }
  /** An operator canceled the run: it stops at its next step boundary and never executes another tool. Terminal. */
  | { type: 'run-cancel'; by: string; reason?: string }
  /**
   * An operator asked for the run to continue (journal.requestResume): the audit of a resume, appended from
   * anywhere like a decision. Inert: it changes neither the status nor the pending list, and replay skips it;
   * the invocation that follows records its own `run-resume`.
   */
  | { type: 'run-resume-request'; by: string; reason?: string }
  | { type: 'run-fail'; error: ErrorInfo };

export type JournalEventType = JournalEvent['type'];

/** An event as the journal holds it: its place in the run and when it was committed. */
export type RecordedEvent = JournalEvent & { seq: number; at: Date };

export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
