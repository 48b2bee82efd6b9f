import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { inboxCount } from '@/lib/studio/reads/inbox-count';

/** How many items wait in the inbox, as JSON (the nav re-reads it when a run changes). */
export async function GET() {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  return Response.json({ items: await inboxCount() }, { headers: { 'Cache-Control': 'no-store' } });
}
