'use client';

import { useQuery } from '@tanstack/react-query';
import { StreamStatusBanner } from '@/components/live/stream-status-banner';
import { useRunsLiveStatus } from '@/components/live/runs-live';
import { type KeyAction, KeyboardShortcuts } from '@/components/ui/keyboard-shortcuts';
import type { Inbox } from '@/lib/studio/reads/inbox';
import { inboxKey, inboxParts } from '@/lib/studio/reads/inbox-live';
import { inboxQuery } from '@/lib/studio/reads/queries';
import { DecisionNotes, useDecidedElsewhere, useDecisionOutcomes } from './decision-outcomes';
import { InboxCard } from './inbox-card';

const INBOX_KEYS: KeyAction[] = [
  // The Approve button asks first itself (confirm-step.tsx): the key presses it, and Enter confirms there.
  { key: 'a', name: 'approve', label: 'Approve (asks first)' },
  { key: 'r', name: 'reject', label: 'Reject (asks for the reason)' },
  { key: 'd', name: 'done', label: 'Mark done (asks for the output and reason)' },
  { key: 'n', name: 'not-done', label: 'Mark not done (asks for the reason)' },
];

/**
 * The inbox, kept current by the runs stream: the calls waiting for a decision, each with its choices;
 * below, those decided but waiting to resume (no choices left). Decisions made here are listed above.
 */
export function InboxList({ initial }: { initial: Inbox }) {
  const stream = useRunsLiveStatus();
  const { data } = useQuery({ ...inboxQuery(), initialData: initial });
  const outcomes = useDecisionOutcomes();
  const { open, decided } = inboxParts(data.items, outcomes.settled);
  useDecidedElsewhere(open, outcomes);
  return (
    <div className="space-y-4" data-testid="inbox" data-stream={stream}>
      <StreamStatusBanner status={stream} what="The inbox" />
      <KeyboardShortcuts actions={INBOX_KEYS} what="the inbox" />
      <DecisionNotes
        outcomes={outcomes}
        again={(entry) => (
          <InboxCard
            entry={data.items.find((e) => inboxKey(e) === inboxKey(entry)) ?? entry}
            onDecided={outcomes.decided}
            onLost={outcomes.lostAnswer}
            outcomes={outcomes}
          />
        )}
      />
      {open.length === 0 ? (
        <p className="rounded-lg border border-dashed px-4 py-10 text-center text-sm text-muted-foreground" data-testid="inbox-empty">
          Nothing waits for a person. Runs that need an approval, wait for a tool result, or whose side effect has an unknown outcome, appear here as they stop.
        </p>
      ) : (
        open.map((entry) => <InboxCard key={inboxKey(entry)} entry={entry} onDecided={outcomes.decided} onLost={outcomes.lostAnswer} outcomes={outcomes} />)
      )}
      {decided.length > 0 ? (
        <section className="space-y-3" data-testid="inbox-decided-list">
          <h2 className="text-sm font-medium text-muted-foreground">
            {decided.every((entry) => entry.resuming) ? 'Decided, resuming' : 'Decided, waiting to resume'}
          </h2>
          {decided.map((entry) => (
            <InboxCard key={inboxKey(entry)} entry={entry} onDecided={outcomes.decided} data-testid="inbox-decided" />
          ))}
        </section>
      ) : null}
      {data.truncated ? <p className="text-xs text-muted-foreground">More runs wait than the inbox shows at once; decide these first.</p> : null}
    </div>
  );
}
