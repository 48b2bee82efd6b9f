import { demoServiceState } from '@/lib/studio/demo';
import { operatorOrRefusal } from '@/lib/studio/auth/session';

/** The demo's outside service counters (its own numbers, by request and by idempotency key). */
export async function GET() {
  const auth = await operatorOrRefusal();
  if ('refusal' in auth) return auth.refusal;
  return Response.json(await demoServiceState(), { headers: { 'Cache-Control': 'no-store' } });
}
