/**
 * Guide: Human approval before an AI SDK tool runs (docs/human-approval.md).
 * Large refunds wait for a person; the question and the answer live in the journal.
 * The guide's code blocks are the #region parts of this file (docs/examples/code-blocks.test.ts).
 */
import type { LanguageModel } from 'ai';
import { DecisionConflictError, gnlTool, type Journal, runDurable } from '@gnldev/durable';
import { refundTool } from './refund-tools';

// #region tool
const refund = (psp: string) =>
  gnlTool(refundTool(psp), {
    sideEffect: true,
    needsApproval: ({ amount }) => amount > 100, // large refunds wait for a person
  });
// #endregion

// #region handle
export async function handleRefundRequest(args: {
  journal: Journal;
  model: LanguageModel;
  psp: string;
  ticketId: string;
  message: string;
}) {
  const result = await runDurable({
    runId: `refund-request:${args.ticketId}`,
    journal: args.journal,
    model: args.model,
    tools: { refund: refund(args.psp) },
    prompt: args.message,
  });
  if (result.status === 'waiting-approval') {
    // Nothing waits in memory: the question is in the journal. Call again after the decision.
    return { status: 'waiting' as const, questions: result.pending };
  }
  if (result.status === 'canceled') return { status: 'canceled' as const, by: result.by };
  if (result.status === 'waiting-tool-result')
    return { status: 'waiting' as const, questions: result.pending };
  return { status: 'done' as const, text: result.text };
}
// #endregion

// #region inbox
export async function approvalInbox(journal: Journal) {
  const { runs } = await journal.listRuns({ status: 'waiting-approval' });
  const questions = [];
  for (const run of runs) {
    for (const item of run.pending) {
      if (item.kind !== 'approval' || item.decision) continue; // decided: the next resume acts on it
      const { toolCallId, toolName, input, requestedAt } = item;
      questions.push({ runId: run.runId, toolCallId, toolName, input, requestedAt });
    }
  }
  return questions;
}
// #endregion

// #region decide
export async function decide(
  journal: Journal,
  request: { runId: string; toolCallId: string; approve: boolean; by: string; reason?: string },
) {
  const { approve, ...decision } = request;
  try {
    await (approve ? journal.approve(decision) : journal.reject(decision));
    return { recorded: true as const };
  } catch (error) {
    // Someone decided first (or the call is not waiting): tell this person who, instead of failing.
    if (DecisionConflictError.isInstance(error)) {
      return { recorded: false as const, reason: error.reason, decidedBy: error.decidedBy };
    }
    throw error;
  }
}
// #endregion

// #region call-option
// The AI SDK v7 call option decides per call; here by the refund limit of whoever is asking.
export async function handleWithLimit(args: {
  journal: Journal;
  model: LanguageModel;
  psp: string;
  ticketId: string;
  message: string;
  refundLimit: number;
}) {
  return runDurable({
    runId: `refund-request:${args.ticketId}`,
    journal: args.journal,
    model: args.model,
    tools: { refund: gnlTool(refundTool(args.psp), { sideEffect: true }) },
    toolApproval: {
      refund: ({ amount }) => (amount > args.refundLimit ? 'user-approval' : 'not-applicable'),
    },
    prompt: args.message,
  });
}
// #endregion
