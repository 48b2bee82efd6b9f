import { loadInbox } from '@/lib/studio/reads/inbox';
import { operatorOrRefusal } from '@/lib/studio/auth/session';

/** Everything waiting for a person, as JSON (the inbox re-reads it when a run changes). */
export async function GET() {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  return Response.json(await loadInbox(), { headers: { 'Cache-Control': 'no-store' } });
}
