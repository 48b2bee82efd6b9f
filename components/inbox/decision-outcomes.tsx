'use client';

import Link from 'next/link';
import { useEffect, useRef, useState } from 'react';
import type { DecisionResult } from '@/app/(studio)/actions';
import { VisibleText } from '@/components/ui/visible-text';
import type { Decision } from '@/lib/durable';
import type { Refusal } from '@/lib/studio/actions/operator-actions';
import type { InboxItem } from '@/lib/studio/reads/inbox';
import { inboxKey } from '@/lib/studio/reads/inbox-live';
import { runHref } from '@/lib/studio/reads/run-path';
import { RefusalNote } from './action-feedback';
import { DecidedElsewhere } from './decided-elsewhere';
import { LostDecision } from './lost-decision';

interface Recent {
  key: string;
  runId: string;
  toolName: string;
  outcome: Decision['outcome'];
  /** A counted decision that changed the arguments under the call's rule (a proposal others approve). */
  proposed?: boolean;
  resume: string;
}

/** "You … refund of <run>": every outcome worded, the compiler says when one is added. */
const DONE_WORDS = {
  approved: 'approved',
  rejected: 'rejected',
  done: 'marked done',
  'not-done': 'marked not done',
  provided: 'provided the result of',
  counted: 'gave one of the approvals needed for',
} satisfies Record<Decision['outcome'], string>;

/**
 * What became of the decisions made on this page (the inbox, a run's page): made, refused (someone
 * decided first), or sent with no answer back. Kept by the page, not by the card: a card leaves as soon
 * as its call is decided, and the page says what happened. `settled`: the calls decided here, whose
 * choices leave at once, before the journal's word reaches the cache.
 */
export function useDecisionOutcomes() {
  const [recent, setRecent] = useState<Recent[]>([]);
  const [conflicts, setConflicts] = useState<{ key: string; refusal: Refusal }[]>([]);
  const [settled, setSettled] = useState<ReadonlySet<string>>(new Set());
  const [lost, setLost] = useState<{ key: string; entry: InboxItem; askedAt: number }[]>([]);
  const [elsewhere, setElsewhere] = useState<{ key: string; entry: InboxItem; askedAt: number }[]>([]);
  // Cards the person worked on, and decisions on their way: refs, read when a card leaves, never drawn.
  const engaged = useRef(new Set<string>());
  const sending = useRef(new Set<string>());
  const engage = (entry: InboxItem) => engaged.current.add(inboxKey(entry));
  const send = (entry: InboxItem) => sending.current.add(inboxKey(entry));
  /** An open card left: if it was this person's, not by their own decision, someone else decided it. */
  const departed = (entry: InboxItem) => {
    const key = inboxKey(entry);
    if (!engaged.current.has(key) || sending.current.has(key) || settled.has(key)) return;
    engaged.current.delete(key);
    setElsewhere((e) => [{ key, entry, askedAt: Date.now() }, ...e.filter((x) => x.key !== key).slice(0, 4)]);
  };
  const settle = (entry: InboxItem) => setSettled((s) => new Set(s).add(inboxKey(entry)));
  const lostAnswer = (entry: InboxItem) => {
    settle(entry);
    const key = inboxKey(entry);
    setLost((l) => [{ key, entry, askedAt: Date.now() }, ...l.filter((x) => x.key !== key).slice(0, 4)]);
  };
  const decided = (entry: InboxItem, result: DecisionResult) => {
    settle(entry);
    sending.current.delete(inboxKey(entry));
    setLost((l) => l.filter((x) => x.key !== inboxKey(entry)));
    if (!result.ok) {
      setConflicts((c) => [{ key: `${inboxKey(entry)}:${c.length}`, refusal: result }, ...c.slice(0, 4)]);
      return;
    }
    setRecent((r) => [
      {
        key: `${inboxKey(entry)}:${result.decision.at}`,
        runId: entry.run.runId,
        toolName: entry.item.toolName,
        outcome: result.decision.outcome,
        ...(result.decision.outcome === 'counted' && result.decision.editedInput ? { proposed: true } : {}),
        resume: result.resume.message,
      },
      ...r.slice(0, 9),
    ]);
  };
  return { recent, conflicts, settled, lost, elsewhere, decided, lostAnswer, engage, send, departed };
}

export type DecisionOutcomes = ReturnType<typeof useDecisionOutcomes>;

/**
 * Watches a page's open cards: one that leaves (decided in another tab, by another operator, or its run
 * moved on) while the person was working on it is told by DecisionNotes, with who decided and when.
 */
export function useDecidedElsewhere(open: readonly InboxItem[], outcomes: DecisionOutcomes) {
  const before = useRef(new Map<string, InboxItem>());
  useEffect(() => {
    const now = new Map(open.map((entry) => [inboxKey(entry), entry]));
    for (const [key, entry] of before.current) if (!now.has(key)) outcomes.departed(entry);
    before.current = now;
  });
}

/**
 * The page's word on its decisions, above its cards: conflicts, lost answers (with what the journal
 * says; `again` draws the call's choices when it was not recorded) and the decisions made.
 */
export function DecisionNotes({ outcomes, again }: { outcomes: DecisionOutcomes; again: (entry: InboxItem) => React.ReactNode }) {
  return (
    <>
      {outcomes.conflicts.map((c) => (
        <RefusalNote key={c.key} refusal={c.refusal} />
      ))}
      {outcomes.elsewhere.map((e) => (
        <DecidedElsewhere key={`${e.key}:${e.askedAt}`} entry={e.entry} askedAt={e.askedAt} />
      ))}
      {outcomes.lost.map((l) => (
        <LostDecision key={`${l.key}:${l.askedAt}`} entry={l.entry} askedAt={l.askedAt}>
          {again(l.entry)}
        </LostDecision>
      ))}
      {outcomes.recent.length > 0 ? (
        <ul className="space-y-1 rounded-lg border bg-muted/40 p-3 text-sm" data-testid="recent-decisions">
          {outcomes.recent.map((r) => (
            <li key={r.key} data-run-id={r.runId}>
              You {r.proposed ? 'proposed changed arguments for' : DONE_WORDS[r.outcome]}{' '}
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
    </>
  );
}
