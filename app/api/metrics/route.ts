import { operatorOrRefusal } from '@/lib/studio/auth/session';
import { bearerMatches } from '@/lib/studio/auth/metrics-token';
import { studioMetrics } from '@/lib/studio/metrics';

/**
 * Prometheus's exposition of the fleet and this server (lib/executor/observability/metrics.ts). A scraper sends
 * GNL_METRICS_TOKEN as a bearer token; without one (or a wrong one) only a signed-in operator reads it.
 */
export async function GET(request: Request) {
  if (!bearerMatches(request.headers.get('authorization'))) {
    const auth = await operatorOrRefusal();
    if ('refusal' in auth) return auth.refusal;
  }
  const { body, contentType } = await studioMetrics().scrape();
  return new Response(body, { headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' } });
}
