/**
 * The Studio's Prometheus metrics (lib/executor/observability/metrics.ts): one registry per server process, fed by its
 * executor's events (boot.ts) and read at /api/metrics by a signed-in operator or a scraper holding
 * GNL_METRICS_TOKEN (auth/metrics-token.ts). Server-only.
 */
import 'server-only';
import { storageFromEnv } from '@/lib/durable/storage';
import { GnlMetrics } from '@/lib/executor';

let metrics: GnlMetrics | undefined;

export function studioMetrics(): GnlMetrics {
  metrics ??= new GnlMetrics(storageFromEnv());
  return metrics;
}
