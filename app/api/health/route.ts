import { checkHealth, healthStatusCode } from '@/lib/executor';
import { storageFromEnv } from '@/lib/durable/storage';

/**
 * Up or down, and whether the journal answers: for load balancers and orchestrators, so no session is
 * asked (proxy.ts lists it public). It reveals nothing else: no counts, versions or error texts.
 */
export async function GET() {
  const health = await checkHealth(storageFromEnv());
  return Response.json(health, { status: healthStatusCode(health), headers: { 'Cache-Control': 'no-store' } });
}
