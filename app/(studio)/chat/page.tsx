import type { Metadata } from 'next';
import Link from 'next/link';
import { connection } from 'next/server';
import { buttonVariants } from '@/components/ui/button';
import { Time } from '@/components/ui/time';
import { VisibleText } from '@/components/ui/visible-text';
import { requireOperator } from '@/lib/studio/auth/session';
import { recentConversations } from '@/lib/studio/chat/chat-history';
import { conversationIdSchema } from '@/lib/studio/chat/chat-request';
import { conversationHref } from '@/lib/studio/reads/conversation-path';

export const metadata: Metadata = { title: 'Chat' };

export default async function ChatsPage() {
  await connection();
  await requireOperator();
  const conversations = await recentConversations();
  return (
    <section className="space-y-4">
      <div className="flex items-center gap-4">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Chat with the support agent</h1>
          <p className="text-sm text-muted-foreground">
            Each message is a durable run: the answer streams, a refund waits for approval in the inbox, and a reload or a restarted server picks the answer up
            where it is.
          </p>
        </div>
        <Link href="/chat/new" className={buttonVariants({ className: 'ml-auto' })} data-testid="new-chat">
          New chat
        </Link>
      </div>
      {conversations.length === 0 ? (
        <p className="text-sm text-muted-foreground">No conversations yet.</p>
      ) : (
        <ul className="divide-y rounded-md border" data-testid="conversations">
          {conversations.map((conversation) => (
            <li key={conversation.id} className="flex items-center gap-4 px-3 py-2 text-sm">
              {conversationIdSchema.safeParse(conversation.id).success ? (
                <Link href={`/chat/${conversation.id}`} className="min-w-0 flex-1 truncate hover:underline">
                  <VisibleText text={conversation.firstMessage || conversation.id} />
                </Link>
              ) : (
                // Not a chat of this page (its id is not one the Studio made): its thread only.
                <span className="min-w-0 flex-1 truncate">
                  <VisibleText text={conversation.firstMessage || conversation.id} />
                </span>
              )}
              <Link href={conversationHref(conversation.id)} className="text-xs underline">
                Thread
              </Link>
              <span className="text-xs text-muted-foreground">
                {conversation.turns} {conversation.turns === 1 ? 'turn' : 'turns'} · <Time value={conversation.lastAt} />
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
