'use client';

import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import type { DecisionConflictReason } from '@/lib/durable';
import type { Refusal } from '@/lib/studio/actions/operator-actions';
import { VisibleText } from '@/components/ui/visible-text';

/** "4 s ago", "3 min ago": how long since an ISO instant, for a person. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}

export const OUTCOME_WORD = {
  approved: 'approved',
  rejected: 'rejected',
  done: 'marked done',
  'not-done': 'marked not done',
  provided: 'provided',
  counted: 'counted an approval of',
  canceled: 'canceled',
} as const;

/** A refused decision's title, by the journal's reason (who decided first is said separately, above). */
const CONFLICT_TITLE = {
  'unknown-run': 'No such run',
  'unknown-call': 'Not recorded: the run does not wait for this',
  'already-decided': 'Already decided',
  expired: 'The question expired',
  'run-finished': 'The run has finished',
  'run-executing': 'The run is executing: decide when it waits again',
} satisfies Record<DecisionConflictReason, string>;

/**
 * What went wrong with an action, whichever way: the server's refusal (its answer says why), or the call
 * itself failing (the session ended and the proxy answered 401, the Studio restarted, the network dropped:
 * the server action threw). Never silence: a button that just comes back would read as "nothing happened".
 */
export function ActionFailure({ data, error }: { data: { ok: boolean } | undefined; error: Error | null }) {
  if (data && !data.ok) return <RefusalNote refusal={data as Refusal} />;
  if (error)
    return (
      <RefusalNote
        refusal={{
          ok: false,
          kind: 'error',
          message: `The Studio did not answer this (${error.message}): reload the page; if your session ended, sign in again.`,
        }}
      />
    );
  return null;
}

/** Why an action was refused, said plainly: a conflict names who decided first and when. */
export function RefusalNote({ refusal }: { refusal: Refusal }) {
  if (refusal.kind === 'conflict' && refusal.yours) {
    // The person's own first decision stands (a double click, a second tab): nothing of theirs was refused.
    const what = refusal.outcome ? OUTCOME_WORD[refusal.outcome] : 'decided';
    return (
      <Alert data-testid="action-already-yours">
        <AlertTitle>
          Already recorded: you {what} it{refusal.decidedAt ? `, ${ago(refusal.decidedAt)}` : ''}
        </AlertTitle>
        <AlertDescription>Your decision stands; this repeat changed nothing.</AlertDescription>
      </Alert>
    );
  }
  if (refusal.kind === 'conflict' && refusal.decidedBy) {
    const what = refusal.outcome ? OUTCOME_WORD[refusal.outcome] : 'decided';
    return (
      <Alert variant="warning" data-testid="action-conflict">
        <AlertTitle>
          Already {what} by <VisibleText text={refusal.decidedBy} />
          {refusal.decidedAt ? `, ${ago(refusal.decidedAt)}` : ''}
        </AlertTitle>
        <AlertDescription>
          Your decision was not recorded: the first one stands. <VisibleText text={refusal.message} />
        </AlertDescription>
      </Alert>
    );
  }
  const title =
    refusal.kind === 'conflict'
      ? CONFLICT_TITLE[refusal.reason]
      : refusal.kind === 'invalid'
        ? 'Check the form'
        : refusal.kind === 'unauthenticated'
          ? 'Signed out'
          : refusal.kind === 'forbidden'
            ? 'Not allowed'
            : refusal.kind === 'not-resumable'
              ? 'Cannot resume here'
              : 'Something went wrong';
  return (
    <Alert variant={refusal.kind === 'error' ? 'destructive' : 'warning'} data-testid={`action-${refusal.kind}`}>
      <AlertTitle>{title}</AlertTitle>
      <AlertDescription className="whitespace-pre-wrap wrap-break-word">
        <VisibleText text={refusal.message} />
      </AlertDescription>
    </Alert>
  );
}
