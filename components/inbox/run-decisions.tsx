'use client';

import { useQuery } from '@tanstack/react-query';
import { PayloadText } from '@/components/runs/payload-text';
import { VisibleText } from '@/components/ui/visible-text';
import { inboxAfterRunChange, inboxKey, inboxParts } from '@/lib/studio/reads/inbox-live';
import type { InboxItem } from '@/lib/studio/reads/inbox';
import { runInboxQuery } from '@/lib/studio/reads/queries';
import type { WireRun } from '@/lib/studio/reads/wire';
import { DecisionChoices } from './decision-choices';
import { DecisionNotes, type DecisionOutcomes, useDecidedElsewhere } from './decision-outcomes';

const ASKS = {
  approval: 'needs approval',
  'side-effect': 'may or may not have happened',
  'tool-result': 'waits for a tool result',
} satisfies Record<InboxItem['item']['kind'], string>;

function PendingCall({ entry, outcomes }: { entry: InboxItem; outcomes: DecisionOutcomes }) {
  return (
    <div
      className="space-y-2 rounded-md border p-3"
      onPointerDownCapture={() => outcomes.engage(entry)}
      onClickCapture={() => outcomes.engage(entry)}
      onFocusCapture={() => outcomes.engage(entry)}
      data-testid="run-pending-call"
      data-run-id={entry.run.runId}
      data-tool-call-id={entry.item.toolCallId}
      data-kind={entry.item.kind}
    >
      <p className="text-sm font-medium">
        <code className="font-mono">
          <VisibleText text={entry.item.toolName} />
        </code>{' '}
        {ASKS[entry.item.kind]}
      </p>
      <PayloadText label="Arguments" value={entry.item.input} />
      <DecisionChoices
        entry={entry}
        onDecided={(result) => outcomes.decided(entry, result)}
        onLost={() => outcomes.lostAnswer(entry)}
        onSend={() => outcomes.send(entry)}
      />
    </div>
  );
}

/**
 * A run page's waiting calls with the inbox's choices (the same components, the same outcomes: a call
 * decided here or anywhere loses its choices at once, by the run's live summary; an answer that never
 * came is asked of the journal). The calls come as the inbox reads them, with their output schemas.
 * `outcomes` belongs to the caller, which outlives this list: a decision that lets the run finish at
 * once must still be told ("You approved …") after the choices are gone.
 */
export function RunDecisions({ run, outcomes, ...props }: React.ComponentProps<'div'> & { run: WireRun; outcomes: DecisionOutcomes }) {
  // Read only while the run waits for someone: a moving or finished run has no choices to offer.
  const { data } = useQuery({ ...runInboxQuery(run.runId), enabled: run.pending.length > 0 });
  const items = data ? inboxAfterRunChange({ items: data, truncated: false }, run).items : [];
  const { open } = inboxParts(items, outcomes.settled);
  useDecidedElsewhere(open, outcomes);
  return (
    <div className="space-y-3" data-testid="run-decisions" {...props}>
      <DecisionNotes
        outcomes={outcomes}
        again={(entry) => <PendingCall entry={items.find((e) => inboxKey(e) === inboxKey(entry)) ?? entry} outcomes={outcomes} />}
      />
      {open.map((entry) => (
        <PendingCall key={inboxKey(entry)} entry={entry} outcomes={outcomes} />
      ))}
    </div>
  );
}
