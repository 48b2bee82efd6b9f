'use client';

import { useQuery } from '@tanstack/react-query';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { VisibleText } from '@/components/ui/visible-text';
import type { InboxItem } from '@/lib/studio/reads/inbox';
import { callDecisionQuery } from '@/lib/studio/reads/queries';
import { ago, OUTCOME_WORD } from './action-feedback';
import { CallOfRun } from './lost-decision';

/**
 * A card the person was working on left because the call was decided elsewhere (another tab, another
 * operator) or its run stopped waiting for it. Says who decided and when, as the journal records it, in
 * the words a refused decision uses ("Already approved by bob, 3 s ago"): nothing of theirs was sent.
 */
export function DecidedElsewhere({ entry, askedAt, ...props }: React.ComponentProps<'div'> & { entry: Pick<InboxItem, 'run' | 'item'>; askedAt: number }) {
  const { runId } = entry.run;
  const { toolCallId, toolName } = entry.item;
  const { data } = useQuery(callDecisionQuery(runId, toolCallId, askedAt));
  const what = <CallOfRun toolName={toolName} runId={runId} />;
  const common = { 'data-run-id': runId, 'data-tool-call-id': toolCallId, ...props };
  if (data?.decision)
    return (
      <Alert variant="warning" data-testid="decided-elsewhere" {...common}>
        <AlertTitle>
          Already {OUTCOME_WORD[data.decision.outcome]} by <VisibleText text={data.decision.by} />, {ago(data.decision.at)}
        </AlertTitle>
        <AlertDescription>
          <span>
            {what} was decided while you had it open{data.decision.reason ? <VisibleText text={` (“${data.decision.reason}”)`} /> : ''}; your choice was not
            sent. The run is {data.status}.
          </span>
        </AlertDescription>
      </Alert>
    );
  return (
    <Alert variant="warning" data-testid="decided-elsewhere" data-checking={data ? undefined : ''} {...common}>
      <AlertTitle>
        {what} {data ? 'no longer waits for a decision' : 'left: someone decided it'}
      </AlertTitle>
      <AlertDescription>
        {data ? `Nobody decided it; the run no longer waits for it: it is ${data.status}.` : 'Reading from the journal who decided it and when…'}
      </AlertDescription>
    </Alert>
  );
}
