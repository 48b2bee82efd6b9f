/** Why the Studio resumed a run on its own: the decision that left nothing undecided, e.g. "after approving issueRefund (call-2)". */
export function resumeReason(decision: {
  kind: 'approve' | 'reject' | 'resolve' | 'provide';
  toolCallId: string;
  /** The call's tool, when the run still lists it. */
  toolName?: string;
  /** With kind 'resolve'. */
  outcome?: 'done' | 'not-done';
}): string {
  const call = decision.toolName ? `${decision.toolName} (${decision.toolCallId})` : decision.toolCallId;
  if (decision.kind === 'approve') return `after approving ${call}`;
  if (decision.kind === 'reject') return `after rejecting ${call}`;
  if (decision.kind === 'provide') return `after providing the result of ${call}`;
  return `after marking ${call} ${decision.outcome === 'done' ? 'done' : 'not done'}`;
}
