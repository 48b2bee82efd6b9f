import { redirect } from 'next/navigation';
import { connection } from 'next/server';
import { requireOperator } from '@/lib/studio/auth/session';
import { encodeRunSegment } from '@/lib/studio/reads/run-path';

/**
 * `/run?id=<run id>`: the link webhooks carry (docs/notifications.md), sent on to the run's page. Senders
 * outside the Studio percent-encode the id as any query value; the page's own segment encoding stays here.
 * A page, not a route handler, so a person who is not signed in is sent to sign in and then comes back.
 */
export default async function RunLinkPage({ searchParams }: { searchParams: Promise<{ id?: string | string[] }> }) {
  await connection();
  await requireOperator();
  const { id } = await searchParams;
  redirect(typeof id === 'string' && id !== '' ? `/runs/${encodeRunSegment(id)}` : '/');
}
