import type { Metadata } from 'next';
import { connection } from 'next/server';
import { InboxList } from '@/components/inbox/inbox-list';
import { loadInbox } from '@/lib/studio/reads/inbox';
import { requireOperator } from '@/lib/studio/auth/session';

export const metadata: Metadata = { title: 'Inbox' };

export default async function InboxPage() {
  await connection(); // the journal is read per request, never prerendered
  await requireOperator();
  const inbox = await loadInbox();
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Inbox</h1>
        <p className="text-sm text-muted-foreground">
          Everything waiting for a person, oldest first. Approve or reject tool calls; settle side effects whose outcome is unknown (mark done with what it
          returned, or not done so it runs again under the same key).
        </p>
      </div>
      <InboxList initial={inbox} />
    </div>
  );
}
