'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { DecisionResult } from '@/app/(studio)/actions';
import { StreamStatusBanner } from '@/components/live/stream-status-banner';
import { useRunsLive } from '@/components/live/use-runs-live';
import type { Decision } from '@/lib/durable';
import type { Inbox, InboxItem } from '@/lib/studio/reads/inbox';
import type { Refusal } from '@/lib/studio/actions/operator-actions';
import { inboxQuery } from '@/lib/studio/reads/queries';
import { runHref } from '@/lib/studio/reads/run-path';
import { RefusalNote } from './action-feedback';
import { InboxCard } from './inbox-card';
import { VisibleText } from '@/components/ui/visible-text';
import { type KeyAction, KeyboardShortcuts } from '@/components/ui/keyboard-shortcuts';

const INBOX_KEYS: KeyAction[] = [
  { key: 'a', name: 'approve', label: 'Approve', confirm: true },
  { key: 'r', name: 'reject', label: 'Reject (asks for the reason)' },
  { key: 'd', name: 'done', label: 'Mark done (asks for the output and reason)' },
  { key: 'n', name: 'not-done', label: 'Mark not done (asks for the reason)' },
];

interface Recent {
  key: string;
  runId: string;
  toolName: string;
  outcome: Decision['outcome'];
  resume: string;
}

/** "You … refund of <run>": every outcome worded, the compiler says when one is added. */
const DONE_WORDS = {
  approved: 'approved',
  rejected: 'rejected',
  done: 'marked done',
  'not-done': 'marked not done',
  provided: 'provided the result of',
} satisfies Record<Decision['outcome'], string>;

/** The inbox, kept current by the runs stream; decisions made here are listed above it. */
export function InboxList({ initial }: { initial: Inbox }) {
  const stream = useRunsLive();
  const { data } = useQuery({ ...inboxQuery(), initialData: initial });
  const [recent, setRecent] = useState<Recent[]>([]);
  // Kept here, not on the card: the card leaves the list as soon as the run moves on.
  const [conflicts, setConflicts] = useState<{ key: string; refusal: Refusal }[]>([]);
  const decided = (entry: InboxItem, result: DecisionResult) => {
    if (!result.ok) {
      setConflicts((c) => [{ key: `${entry.run.runId}:${entry.item.toolCallId}:${c.length}`, refusal: result }, ...c.slice(0, 4)]);
      return;
    }
    setRecent((r) => [
      {
        key: `${entry.run.runId}:${entry.item.toolCallId}:${result.decision.at}`,
        runId: entry.run.runId,
        toolName: entry.item.toolName,
        outcome: result.decision.outcome,
        resume: result.resume.message,
      },
      ...r.slice(0, 9),
    ]);
  };
  return (
    <div className="space-y-4" data-testid="inbox" data-stream={stream}>
      <StreamStatusBanner status={stream} what="The inbox" />
      <KeyboardShortcuts actions={INBOX_KEYS} what="the inbox" />
      {conflicts.map((c) => (
        <RefusalNote key={c.key} refusal={c.refusal} />
      ))}
      {recent.length > 0 ? (
        <ul className="space-y-1 rounded-lg border bg-muted/40 p-3 text-sm" data-testid="recent-decisions">
          {recent.map((r) => (
            <li key={r.key} data-run-id={r.runId}>
              You {DONE_WORDS[r.outcome]}{' '}
              <code className="font-mono">
                <VisibleText text={r.toolName} />
              </code>{' '}
              of{' '}
              <Link href={runHref(r.runId)} className="font-mono text-link hover:underline">
                <VisibleText text={r.runId} />
              </Link>
              .{' '}
              <span className="text-muted-foreground">
                <VisibleText text={r.resume} />
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {data.items.length === 0 ? (
        <p className="rounded-lg border border-dashed px-4 py-10 text-center text-sm text-muted-foreground" data-testid="inbox-empty">
          Nothing waits for a person. Runs that need an approval, wait for a tool result, or whose side effect has an unknown outcome, appear here as they stop.
        </p>
      ) : (
        data.items.map((entry) => <InboxCard key={`${entry.run.runId}:${entry.item.toolCallId}`} entry={entry} onDecided={decided} />)
      )}
      {data.truncated ? <p className="text-xs text-muted-foreground">More runs wait than the inbox shows at once; decide these first.</p> : null}
    </div>
  );
}
