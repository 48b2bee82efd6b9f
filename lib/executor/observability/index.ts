/**
 * What an executor shows its operators: health.ts (checkHealth, serveHealth: the health endpoint),
 * metrics.ts (GnlMetrics, the Prometheus exposition), trace-export.ts (startTraceExport: the OpenTelemetry
 * span export of the worker and the Studio's server). docs/operations.md.
 * Re-exported by lib/executor/index.ts, the layer's public surface; files of the layer import each other directly.
 */
export { checkHealth, healthStatusCode, serveHealth, type Health, HEALTH_TIMEOUT_MS } from './health';
export { GnlMetrics } from './metrics';
export { startTraceExport, type TraceExport } from './trace-export';
