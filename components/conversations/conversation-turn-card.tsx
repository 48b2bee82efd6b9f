import Link from 'next/link';
import { RunStatusBadge } from '@/components/runs/run-status-badge';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import type { ConversationTurn, ConversationWait } from '@/lib/studio/reads/conversation';
import { runHref } from '@/lib/studio/reads/run-path';
import { jsonReplacer } from '@/lib/studio/reads/wire';
import { cn } from '@/lib/utils';

/** Characters of a message shown in the thread; the run page shows the rest. */
const MAX_SHOWN = 2_000;
/** Characters of a waiting call's arguments shown beside its tool. */
const MAX_ARGS = 160;

/** How each kind of wait is named: keyed by the pending kind union, so a new kind fails to compile until it has one. */
const WAITS = {
  approval: 'Waiting for approval',
  'side-effect': 'Waiting for a person to settle an unknown outcome',
  'tool-result': 'Waiting for a tool result',
} satisfies Record<ConversationWait['kind'], string>;

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

function Message({ who, children, className, ...props }: React.ComponentProps<'div'> & { who: string }) {
  return (
    <div className={cn('min-w-0 space-y-0.5', className)} {...props}>
      <div className="text-xs text-muted-foreground">{who}</div>
      <div className="text-sm whitespace-pre-wrap wrap-anywhere">{children}</div>
    </div>
  );
}

function Answer({ turn }: { turn: ConversationTurn }) {
  const { answer } = turn;
  if (answer.kind === 'text') return <VisibleText text={cut(answer.text, MAX_SHOWN)} />;
  if (answer.kind === 'failed')
    return (
      <span className="text-destructive">
        Failed: <VisibleText text={cut(answer.error, MAX_SHOWN)} />
      </span>
    );
  if (answer.kind === 'none') return <span className="text-muted-foreground">{turn.status === 'canceled' ? 'Canceled.' : 'No answer yet.'}</span>;
  return (
    <ul className="space-y-1" data-slot="turn-waits">
      {answer.waits.map((wait) => (
        <li key={`${wait.kind}-${wait.toolCallId}`} data-kind={wait.kind}>
          {WAITS[wait.kind]}:{' '}
          <code className="font-mono">
            <VisibleText text={wait.toolName} />
          </code>{' '}
          <span className="font-mono text-xs text-muted-foreground">
            <VisibleText text={cut(typeof wait.input === 'string' ? wait.input : (JSON.stringify(wait.input, jsonReplacer) ?? ''), MAX_ARGS)} />
          </span>
          {wait.decided ? ` (${wait.decided}, waiting to resume)` : null}{' '}
          <Link href="/inbox" className="text-link hover:underline">
            {wait.decided ? 'Inbox' : 'Decide in the inbox'}
          </Link>
        </li>
      ))}
    </ul>
  );
}

/** One turn of a conversation: the user's new message, what the run answered (or waits for), its status and run. */
export function ConversationTurnCard({ turn, className, ...props }: React.ComponentProps<'article'> & { turn: ConversationTurn }) {
  return (
    <article
      data-testid="conversation-turn"
      data-run-id={turn.runId}
      data-turn={turn.turn}
      data-status={turn.status}
      className={cn('space-y-3 rounded-lg border p-4', turn.answer.kind === 'waiting' && 'border-amber-500/40', className)}
      {...props}
    >
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 className="text-sm font-medium">Turn {turn.turn}</h2>
        <RunStatusBadge status={turn.status} />
        <Link href={runHref(turn.runId)} className="font-mono text-xs wrap-anywhere text-link hover:underline" data-slot="turn-run-link">
          <VisibleText text={turn.runId} />
        </Link>
        <span className="ml-auto text-xs text-muted-foreground">
          {turn.stepCount} {turn.stepCount === 1 ? 'step' : 'steps'} · <Time value={turn.createdAt} />
        </span>
      </header>
      <Message who="User" data-slot="turn-user">
        {turn.userText === null ? <span className="text-muted-foreground">No text.</span> : <VisibleText text={cut(turn.userText, MAX_SHOWN)} />}
        {turn.otherParts > 0 ? (
          <span className="text-xs text-muted-foreground">
            {' '}
            (+ {turn.otherParts} {turn.otherParts === 1 ? 'part' : 'parts'} that {turn.otherParts === 1 ? 'is' : 'are'} not text: the run page shows{' '}
            {turn.otherParts === 1 ? 'it' : 'them'})
          </span>
        ) : null}
      </Message>
      <Message who="Agent" data-slot="turn-answer">
        <Answer turn={turn} />
      </Message>
    </article>
  );
}
