/**
 * Span export for the processes GNL ships: the Studio's server (instrumentation.ts) and `npm run worker`
 * (docs/operations.md#traces). The runtime core only uses @opentelemetry/api (lib/durable/telemetry/tracing.ts):
 * an application that configures OpenTelemetry itself gets GNL's spans in its own pipeline. These two
 * processes are GNL's own, so they export with the standard environment, and nothing without it:
 *
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL) or OTEL_EXPORTER_OTLP_ENDPOINT (+ /v1/traces): OTLP/HTTP, JSON
 *   OTEL_EXPORTER_OTLP_HEADERS / _TRACES_HEADERS: `key=value,…` (an API key), read by the exporter
 *   OTEL_SERVICE_NAME (default gnl-studio / gnl-worker), OTEL_TRACES_EXPORTER=none turns it off
 *   OTEL_BSP_SCHEDULE_DELAY: milliseconds between batches (default 5000)
 *
 * A process whose global tracer provider was set by someone else first keeps theirs (told on stderr).
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

export interface TraceExport {
  /** Where spans go (for the start-up line). */
  endpoint: string;
  serviceName: string;
  /** Sends what is buffered and stops (a worker's shutdown, the server's exit). */
  shutdown(): Promise<void>;
}

/** Starts exporting when the environment asks for it; undefined when it does not (or another provider was registered first). */
export function startTraceExport(defaultServiceName: string, env: Record<string, string | undefined> = process.env): TraceExport | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint || (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase() === 'none') return undefined;
  const variable = `OTEL_EXPORTER_OTLP_${env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ? 'TRACES_' : ''}ENDPOINT`;
  let protocol: string;
  try {
    protocol = new URL(endpoint).protocol;
  } catch (error) {
    throw new TypeError(`${variable} must be a URL (got "${endpoint}").`, { cause: error });
  }
  if (protocol !== 'http:' && protocol !== 'https:') throw new TypeError(`${variable} must be a URL (got "${endpoint}"): http:// or https://, OTLP over HTTP.`);
  const delay = env.OTEL_BSP_SCHEDULE_DELAY === undefined ? 5_000 : Number(env.OTEL_BSP_SCHEDULE_DELAY);
  if (!Number.isInteger(delay) || delay < 1)
    throw new TypeError(`OTEL_BSP_SCHEDULE_DELAY must be a whole number of milliseconds (got "${env.OTEL_BSP_SCHEDULE_DELAY}").`);
  const serviceName = env.OTEL_SERVICE_NAME?.trim() || defaultServiceName;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), scheduledDelayMillis: delay })],
  });
  if (!trace.setGlobalTracerProvider(provider)) {
    process.stderr.write("gnl: traces: a tracer provider was registered before GNL's; spans go to that one (OTEL_EXPORTER_OTLP_* ignored here).\n");
    void provider.shutdown();
    return undefined;
  }
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const resolved = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || `${endpoint.replace(/\/$/, '')}/v1/traces`;
  return { endpoint: resolved, serviceName, shutdown: () => provider.shutdown() };
}
