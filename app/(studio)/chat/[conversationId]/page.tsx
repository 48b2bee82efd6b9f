import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { connection } from 'next/server';
import { ChatPanel } from '@/components/chat/chat-panel';
import { requireOperator } from '@/lib/studio/auth/session';
import { conversationTurns, uiMessagesOf } from '@/lib/studio/chat/chat-history';
import { conversationIdSchema } from '@/lib/studio/chat/chat-request';
import { conversationHref } from '@/lib/studio/reads/conversation-path';
import { runHref } from '@/lib/studio/reads/run-path';

export const metadata: Metadata = { title: 'Chat' };

export default async function ChatPage({ params }: { params: Promise<{ conversationId: string }> }) {
  await connection();
  await requireOperator();
  const parsed = conversationIdSchema.safeParse((await params).conversationId);
  if (!parsed.success) notFound();
  const conversationId = parsed.data;
  const turns = await conversationTurns(conversationId);
  const last = turns.at(-1);
  return (
    <section className="mx-auto max-w-3xl space-y-4">
      <div className="flex items-baseline gap-4">
        <h1 className="text-xl font-semibold tracking-tight">Chat</h1>
        <span className="font-mono text-xs text-muted-foreground" data-testid="conversation-id">
          {conversationId}
        </span>
        {last ? (
          <span className="ml-auto flex gap-3 text-sm">
            <Link href={conversationHref(conversationId)} className="underline" data-testid="conversation-thread">
              Thread
            </Link>
            <Link href={runHref(last.runId)} className="underline" data-testid="last-turn-run">
              Last turn’s run
            </Link>
          </span>
        ) : null}
      </div>
      <ChatPanel
        conversationId={conversationId}
        initialMessages={uiMessagesOf(turns)}
        {...(last
          ? { lastTurn: { runId: last.runId, status: last.status, waitingFor: last.pending.filter((item) => !item.decision).map((item) => item.toolName) } }
          : {})}
      />
    </section>
  );
}
