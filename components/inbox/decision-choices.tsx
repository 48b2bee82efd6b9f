'use client';

import type { DecisionResult } from '@/app/(studio)/actions';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { InboxItem } from '@/lib/studio/reads/inbox';
import { ApprovalForm } from './approval-form';
import { ResumeButton } from './resume-button';
import { SideEffectForm } from './side-effect-form';
import { ToolResultForm } from './tool-result-form';

/**
 * A waiting call's choices, by what it waits for: approve or reject, mark done or not done, provide the
 * result. Once the call is decided, no choice is left: who decided, when, and a resume. The inbox card
 * and the run page both draw these.
 */
export function DecisionChoices({
  entry,
  onDecided,
  onLost,
  onSend,
}: {
  entry: Pick<InboxItem, 'run' | 'item' | 'outputSchema' | 'inputSchema' | 'outsideRecord' | 'resuming'>;
  onDecided: (result: DecisionResult) => void;
  /** The decision got no answer back (lost-decision.tsx says what the journal recorded). */
  onLost?: () => void;
  /** The decision was sent (its answer follows in onDecided or onLost). */
  onSend?: () => void;
}) {
  const { run, item } = entry;
  if (item.decision)
    return (
      <div className="space-y-2 rounded-md border border-dashed p-3 text-sm" data-slot="inbox-decided">
        <p>
          {item.decision.outcome}
          {item.decision.editedInput ? ' with changed arguments' : ''} by{' '}
          <strong>
            <VisibleText text={item.decision.by} />
          </strong>{' '}
          <Time value={item.decision.at} className="text-xs text-muted-foreground" />
          {item.decision.reason ? <VisibleText text={` — “${item.decision.reason}”`} /> : ''}.
          {entry.resuming ? (
            <>
              {' '}
              Resuming: <VisibleText text={entry.resuming.by} /> asked <Time value={entry.resuming.at} className="text-xs text-muted-foreground" />; the
              executor takes the run up.
            </>
          ) : (
            ' Waiting to resume.'
          )}
        </p>
        {entry.resuming ? null : <ResumeButton runId={run.runId} />}
      </div>
    );
  const common = {
    runId: run.runId,
    toolCallId: item.toolCallId,
    toolName: item.toolName,
    onDecided,
    ...(onLost ? { onLost } : {}),
    ...(onSend ? { onSend } : {}),
  };
  if (item.kind === 'approval') {
    // Under a rule with four eyes or more than one approval, changed arguments are a proposal others approve (decisions.ts).
    const proposes = item.rule?.fourEyes === true || (item.rule?.approvals ?? 1) > 1;
    return (
      <ApprovalForm
        {...common}
        input={item.input}
        inputSchema={entry.inputSchema}
        proposes={proposes}
        {...(item.proposal ? { proposal: { input: item.proposal.input, by: item.proposal.by } } : {})}
      />
    );
  }
  if (item.kind === 'tool-result') return <ToolResultForm {...common} outputSchema={entry.outputSchema} />;
  const found = entry.outsideRecord?.state === 'found' ? entry.outsideRecord.output : undefined;
  return <SideEffectForm {...common} outputSchema={entry.outputSchema} {...(found !== undefined ? { prefill: found } : {})} />;
}
