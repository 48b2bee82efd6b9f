'use client';

import Link from 'next/link';
import type { DecisionResult } from '@/app/(studio)/actions';
import { PayloadText, payloadString } from '@/components/runs/payload-text';
import { Badge } from '@/components/ui/badge';
import { CopyButton } from '@/components/ui/copy-button';
import { Time } from '@/components/ui/time';
import { HiddenCharsWarning, VisibleText } from '@/components/ui/visible-text';
import type { ApprovalRule, ApprovalVote } from '@/lib/durable';
import type { InboxItem } from '@/lib/studio/reads/inbox';
import { conversationHref } from '@/lib/studio/reads/conversation-path';
import { runHref } from '@/lib/studio/reads/run-path';
import { findHidden, markedText } from '@/lib/text';
import { cn } from '@/lib/utils';
import { DecisionChoices } from './decision-choices';
import type { DecisionOutcomes } from './decision-outcomes';
import { OutsideRecordNote } from './outside-record-note';

/** How each kind of question is named and framed: keyed by the kind union, so a new kind fails to compile until it has one. */
const KIND = {
  approval: { badge: 'approval', asks: 'needs approval', border: 'border-amber-500/40', badgeBorder: 'border-amber-500/50' },
  'side-effect': { badge: 'unknown outcome', asks: 'may or may not have happened', border: 'border-orange-500/40', badgeBorder: 'border-orange-500/50' },
  'tool-result': { badge: 'tool result', asks: 'waits for a tool result', border: 'border-violet-500/40', badgeBorder: 'border-violet-500/50' },
} satisfies Record<InboxItem['item']['kind'], { badge: string; asks: string; border: string; badgeBorder: string }>;

function Evidence({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="mt-0.5 text-xs wrap-anywhere">{children}</dd>
    </div>
  );
}

/** One thing waiting for a person: the run's goal, the last steps before it, what is asked, and the choices. */
export function InboxCard({
  entry,
  onDecided,
  onLost,
  outcomes,
  className,
  ...props
}: React.ComponentProps<'article'> & {
  entry: InboxItem;
  onDecided: (entry: InboxItem, result: DecisionResult) => void;
  /** A decision made here got no answer (lost-decision.tsx asks the journal what became of it). */
  onLost?: (entry: InboxItem) => void;
  /** The outcomes of the page the card is on: told when the person works on the card and sends a decision. */
  outcomes?: Pick<DecisionOutcomes, 'engage' | 'send'>;
}) {
  const { run, item } = entry;
  const hidden = findHidden(payloadString(item.input));
  return (
    <article
      data-testid="inbox-item"
      data-run-id={run.runId}
      data-tool-call-id={item.toolCallId}
      data-kind={item.kind}
      data-keynav-item=""
      data-keynav-label={markedText(`${item.toolName} of ${run.runId}`)}
      data-hidden-chars={hidden.count}
      className={cn(
        'space-y-3 rounded-lg border p-4 outline-none data-[keynav-focused]:ring-2 data-[keynav-focused]:ring-foreground/40',
        KIND[item.kind].border,
        className,
      )}
      // A card the person works on (a click, a key, focus in a field) is theirs: if someone else decides
      // it meanwhile, the page says so when it leaves instead of letting it vanish mid-thought.
      onPointerDownCapture={outcomes && (() => outcomes.engage(entry))}
      onClickCapture={outcomes && (() => outcomes.engage(entry))}
      onFocusCapture={outcomes && (() => outcomes.engage(entry))}
      {...props}
    >
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <Badge variant="outline" className={KIND[item.kind].badgeBorder}>
          {KIND[item.kind].badge}
        </Badge>
        <h2 className="text-sm font-medium">
          <code className="font-mono">
            <VisibleText text={item.toolName} />
          </code>{' '}
          {KIND[item.kind].asks}
        </h2>
        <Link href={runHref(run.runId)} className="font-mono text-xs wrap-anywhere text-link hover:underline">
          <VisibleText text={run.runId} />
        </Link>
        {run.conversationId !== undefined ? (
          <span className="text-xs text-muted-foreground" data-slot="inbox-conversation">
            turn of conversation{' '}
            <Link href={conversationHref(run.conversationId)} className="font-mono wrap-anywhere text-link hover:underline">
              <VisibleText text={run.conversationId} />
            </Link>
          </span>
        ) : null}
        <span className="ml-auto text-xs text-muted-foreground">
          waiting since <Time value={entry.since} />
        </span>
      </header>

      <div className="grid gap-3 lg:grid-cols-2">
        <PayloadText label={`Goal${run.agent ? ` (agent ${run.agent})` : ''}`} value={run.goal} />
        <div className="min-w-0">
          <div className="mb-0.5 text-xs text-muted-foreground">Last steps before it</div>
          {entry.lastSteps.length === 0 ? (
            <p className="text-xs text-muted-foreground">No model step recorded.</p>
          ) : (
            <ol className="space-y-1 text-xs" data-slot="inbox-last-steps">
              {entry.lastSteps.map((step) => (
                <li key={step.seq} className="wrap-anywhere">
                  <Link href={`${runHref(run.runId)}#seq-${step.seq}`} className="text-link hover:underline">
                    step {step.step + 1}
                  </Link>
                  {step.text ? (
                    <span>
                      : <VisibleText text={step.text.length > 200 ? `${step.text.slice(0, 200)}…` : step.text} />
                    </span>
                  ) : null}
                  {step.toolCalls.map((call, i) => (
                    <span key={`${call.toolName}-${i}`} className="text-muted-foreground">
                      {' '}
                      →{' '}
                      <code className="font-mono text-foreground">
                        <VisibleText text={call.toolName} />
                      </code>
                    </span>
                  ))}
                </li>
              ))}
            </ol>
          )}
        </div>
      </div>

      {item.kind === 'side-effect' ? (
        <dl className="grid grid-cols-2 gap-x-6 gap-y-2 rounded-md bg-muted/50 p-3 sm:grid-cols-3" data-slot="side-effect-evidence">
          <Evidence label="Tool">
            <code className="font-mono">
              <VisibleText text={item.toolName} />
            </code>
          </Evidence>
          <Evidence label="Idempotency key">
            <span className="flex flex-wrap items-center gap-2">
              <code className="font-mono">
                <VisibleText text={item.idempotencyKey} />
              </code>
              <CopyButton value={item.idempotencyKey} label="Copy key" />
            </span>
          </Evidence>
          <Evidence label="Attempt started">
            attempt {item.attempt}, <Time value={item.startedAt} />
          </Evidence>
          <Evidence label="Why it is blocked">
            <VisibleText text={item.reason} />
          </Evidence>
          <Evidence label="Executor">
            {entry.executor ? (
              <>
                {entry.executor.lastOwner ? (
                  <>
                    last held by{' '}
                    <code className="font-mono wrap-anywhere">
                      <VisibleText text={entry.executor.lastOwner} />
                    </code>
                    {entry.executor.owner === entry.executor.lastOwner
                      ? ' (it holds the lease now)'
                      : entry.executor.owner
                        ? ''
                        : ' (no executor holds it now)'}
                  </>
                ) : (
                  'no executor has claimed it'
                )}
                {entry.executor.owner && entry.executor.owner !== entry.executor.lastOwner ? (
                  <VisibleText text={`; held now by ${entry.executor.owner}`} />
                ) : (
                  ''
                )}
                {entry.executor.claimedAt ? (
                  <>
                    ; last claimed <Time value={entry.executor.claimedAt} />
                  </>
                ) : null}
                {entry.executor.outcome ? `; its last invocation ended ${entry.executor.outcome}` : ''}
              </>
            ) : (
              'not run by an executor (runDurable called directly)'
            )}
          </Evidence>
          <Evidence label="Last heartbeat">{entry.executor?.heartbeatAt ? <Time value={entry.executor.heartbeatAt} /> : 'none recorded'}</Evidence>
        </dl>
      ) : null}

      {item.kind === 'approval' && item.rule ? <ApprovalRuleNote rule={item.rule} votes={item.votes ?? []} /> : null}
      <HiddenCharsWarning found={hidden} />
      {item.kind === 'approval' && item.proposal ? (
        <div className="rounded-md border border-sky-500/40 bg-sky-500/5 p-3" data-slot="approval-proposal">
          <p className="mb-1 text-sm">
            <span className="font-medium">Arguments changed</span> by <VisibleText text={item.proposal.by} />, <Time value={item.proposal.at} />: an approval
            approves these.
          </p>
          <PayloadText label="Arguments as changed" value={item.proposal.input} data-slot="inbox-proposed-arguments" />
        </div>
      ) : null}
      <PayloadText
        label={item.kind === 'approval' && item.proposal ? 'Arguments as the model asked' : 'Arguments'}
        value={item.input}
        data-slot="inbox-arguments"
      />
      {entry.outsideRecord ? <OutsideRecordNote record={entry.outsideRecord} /> : null}

      <DecisionChoices
        entry={entry}
        onDecided={(result) => onDecided(entry, result)}
        onLost={onLost && (() => onLost(entry))}
        onSend={outcomes && (() => outcomes.send(entry))}
      />
    </article>
  );
}

/** Who may approve the call (its tool's `approvers`, as its question recorded them) and the approvals counted so far. */
function ApprovalRuleNote({ rule, votes }: { rule: ApprovalRule; votes: readonly ApprovalVote[] }) {
  const needed = rule.approvals ?? 1;
  const who = rule.role === 'admin' ? 'an admin' : rule.role === 'approver' ? 'an approver or an admin' : 'anyone who may decide';
  return (
    <div className="rounded-md border border-amber-500/40 bg-amber-500/5 p-3 text-sm" data-slot="approval-rule">
      <p>
        <span className="font-medium">Approval rule:</span> {needed > 1 ? `${needed} different people approve, each ${who}` : `approved by ${who}`}
        {rule.fourEyes ? '; four eyes: not by who started the run, nor by who changed its arguments' : ''}.
        {rule.fourEyes || needed > 1 ? ' Changed arguments are a proposal that others approve as changed.' : ''} One rejection rejects.
      </p>
      {needed > 1 ? (
        <p className="mt-1" data-slot="approval-count">
          {votes.length} of {needed} approvals given{votes.length > 0 ? ':' : '.'}
        </p>
      ) : null}
      {votes.length > 0 ? (
        <ul className="mt-1 space-y-0.5 text-xs">
          {votes.map((vote) => (
            <li key={`${vote.by}-${vote.at}`} className="wrap-anywhere">
              {vote.proposed ? 'changed the arguments and approved' : 'approved'} by <VisibleText text={vote.by} />, <Time value={vote.at} />
              {vote.reason ? (
                <>
                  : <VisibleText text={vote.reason} />
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
