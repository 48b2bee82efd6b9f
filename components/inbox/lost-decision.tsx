'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { Alert, AlertDescription, AlertTitle } from '@/components/ui/alert';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { InboxItem } from '@/lib/studio/reads/inbox';
import { callDecisionQuery } from '@/lib/studio/reads/queries';
import { runHref } from '@/lib/studio/reads/run-path';
import { OUTCOME_WORD } from './action-feedback';

/** "issueRefund of <run>": a call named by its tool, and its run linked (as text: both come from outside). */
export function CallOfRun({ toolName, runId }: { toolName: string; runId: string }) {
  return (
    <>
      <code className="font-mono">
        <VisibleText text={toolName} />
      </code>{' '}
      of{' '}
      <Link href={runHref(runId)} className="font-mono wrap-anywhere text-link hover:underline">
        <VisibleText text={runId} />
      </Link>
    </>
  );
}

/**
 * A decision whose answer never came (the server died right after recording it, the network dropped)
 * is not an error: whether it was recorded is the journal's to say. This asks the journal, again and
 * again until the Studio answers, then says it: recorded (by whom, when: no second click is offered),
 * or not recorded, and then the call's choices are offered again (`children`) while the run still waits.
 */
export function LostDecision({
  entry,
  askedAt,
  children,
  ...props
}: React.ComponentProps<'div'> & { entry: Pick<InboxItem, 'run' | 'item'>; askedAt: number }) {
  const { runId } = entry.run;
  const { toolCallId, toolName } = entry.item;
  const { data } = useQuery(callDecisionQuery(runId, toolCallId, askedAt));
  const what = <CallOfRun toolName={toolName} runId={runId} />;
  if (!data)
    return (
      <Alert variant="warning" data-testid="decision-checking" data-run-id={runId} data-tool-call-id={toolCallId} {...props}>
        <AlertTitle>No answer came back for your decision on {what}</AlertTitle>
        <AlertDescription>
          The Studio may be restarting. It reads the journal as soon as it answers and says here whether your decision was recorded: do not decide again until
          then.
        </AlertDescription>
      </Alert>
    );
  if (data.decision)
    return (
      <Alert data-testid="decision-recorded" data-run-id={runId} data-tool-call-id={toolCallId} {...props}>
        <AlertTitle>
          Recorded: {what} {OUTCOME_WORD[data.decision.outcome]} by <VisibleText text={data.decision.by} /> at <Time value={data.decision.at} />
        </AlertTitle>
        <AlertDescription>
          <span>
            The journal holds this decision{data.decision.reason ? <VisibleText text={` (“${data.decision.reason}”)`} /> : ''}; nothing is left to decide here.
            The run is {data.status}.
          </span>
        </AlertDescription>
      </Alert>
    );
  // Under an approval rule asking for more than one approval, a counted approval is not the call's decision yet.
  if (data.approvals)
    return (
      <div className="space-y-2" data-testid="decision-counted" data-run-id={runId} data-tool-call-id={toolCallId} {...props}>
        <Alert>
          <AlertTitle>
            Counted so far on {what}: {data.approvals.votes.length} of {data.approvals.needed} approvals
          </AlertTitle>
          <AlertDescription>
            <span>
              {data.approvals.votes.map((vote, i) => (
                <span key={`${vote.by}-${vote.at}`}>
                  {i > 0 ? ', ' : ''}
                  <VisibleText text={vote.by} /> at <Time value={vote.at} />
                </span>
              ))}
              . If yours is among them it counts: nothing is left for you to do. Otherwise decide again below.
            </span>
          </AlertDescription>
        </Alert>
        {children}
      </div>
    );
  return (
    <div className="space-y-2" data-testid="decision-not-recorded" data-run-id={runId} data-tool-call-id={toolCallId} {...props}>
      <Alert variant="warning">
        <AlertTitle>Not recorded: your decision on {what} did not reach the journal</AlertTitle>
        <AlertDescription>
          {data.undecided ? 'The run still waits for it: decide again below.' : `Nobody decided it, and the run no longer waits for it: it is ${data.status}.`}
        </AlertDescription>
      </Alert>
      {data.undecided ? children : null}
    </div>
  );
}
