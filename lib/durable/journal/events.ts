/**
 * The journal's event vocabulary: one spelling, close to the AI SDK's own (`tool-approval-request`,
 * `tool-call-start` / `-end`). ARCHITECTURE.md lists it. Rows are never rewritten, so a new shape is
 * added beside an old one and readers keep understanding both.
 *
 * The types are inferred from the schemas in event-schemas.ts (one per event type, each field's meaning
 * written beside it there), so the compiler and the journal's append check hold the same vocabulary.
 * Payloads are stored through json-codec (Dates, bytes and undefined survive the round trip).
 */
import type { z } from 'zod';
import type {
  approvalProposalSchema,
  approvalRuleSchema,
  approvalVoteSchema,
  decisionSchema,
  errorInfoSchema,
  journalEventSchema,
  pendingItemSchema,
  runInputSchema,
  traceContextSchema,
  workflowWaitSchema,
} from './event-schemas';

/** What a run was started with; compared on resume (production semantics come in a later issue). */
export type RunInput = z.infer<typeof runInputSchema>;

export type ErrorInfo = z.infer<typeof errorInfoSchema>;

/** An invocation's OpenTelemetry span, as run-start and run-resume record it (tracing.ts). */
export type TraceContext = z.infer<typeof traceContextSchema>;

/** What a suspended run waits for: an approval, a side effect's outcome, or a client-side tool's result (a workflow's waits are its workflow-wait events). */
export type PendingItem = z.infer<typeof pendingItemSchema>;

export type Decision = z.infer<typeof decisionSchema>;

/** Who may approve a call (approvalRuleSchema). */
export type ApprovalRule = z.infer<typeof approvalRuleSchema>;

/** One approval counted toward a rule's N (approvalVoteSchema). */
export type ApprovalVote = z.infer<typeof approvalVoteSchema>;

/** Arguments changed under a rule, waiting to be approved as changed (approvalProposalSchema). */
export type ApprovalProposal = z.infer<typeof approvalProposalSchema>;

/** What a workflow waits for: a time, an event, or child runs (workflow-wait). */
export type WorkflowWait = z.infer<typeof workflowWaitSchema>;

export type JournalEvent = z.infer<typeof journalEventSchema>;

export type JournalEventType = JournalEvent['type'];

/** An event as the journal holds it: its place in the run and when it was committed. */
export type RecordedEvent = JournalEvent & { seq: number; at: Date };

export function errorInfo(error: unknown): ErrorInfo {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
