import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { ConversationTurnCard } from '@/components/conversations/conversation-turn-card';
import { VisibleText } from '@/components/ui/visible-text';
import { loadConversation, MAX_TURNS } from '@/lib/studio/reads/conversation';
import { decodeConversationSegment } from '@/lib/studio/reads/conversation-path';
import { requireOperator } from '@/lib/studio/auth/session';
import { markedText } from '@/lib/text';

type Params = Promise<{ conversationId: string }>;

export async function generateMetadata({ params }: { params: Params }): Promise<Metadata> {
  const conversationId = decodeConversationSegment((await params).conversationId);
  // A title is a string, not markup: an id's hidden characters as ⟨U+202E⟩ text.
  return { title: conversationId === undefined ? 'Not found' : `Conversation ${markedText(conversationId)}` };
}

export default async function ConversationPage({ params }: { params: Params }) {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const conversationId = decodeConversationSegment((await params).conversationId);
  const conversation = conversationId === undefined ? undefined : await loadConversation(conversationId);
  if (!conversation) notFound();

  const { turns, earlierTurns } = conversation;
  return (
    <div className="space-y-4">
      <div className="space-y-1">
        <Link href="/" className="text-sm text-muted-foreground hover:text-foreground">
          ← Runs
        </Link>
        <h1 className="text-lg font-semibold">
          Conversation{' '}
          <span className="font-mono wrap-anywhere" data-testid="conversation-id">
            <VisibleText text={conversation.conversationId} />
          </span>
        </h1>
        <p className="text-sm text-muted-foreground">
          Each user turn is a run of its own, oldest first: the user&apos;s new message and what the agent answered, or what it waits for.
        </p>
      </div>
      {earlierTurns > 0 ? (
        <p className="rounded-md border border-dashed px-3 py-2 text-sm text-muted-foreground" data-testid="conversation-earlier">
          {earlierTurns} earlier {earlierTurns === 1 ? 'turn is' : 'turns are'} not shown: this page shows the newest {MAX_TURNS}.
        </p>
      ) : null}
      <ol className="space-y-3" data-testid="conversation-turns">
        {turns.map((turn) => (
          <li key={turn.runId}>
            <ConversationTurnCard turn={turn} />
          </li>
        ))}
      </ol>
    </div>
  );
}
