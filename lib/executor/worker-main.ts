/**
 * `npm run worker`: one worker process. Claims runnable runs from Postgres and executes them (executor.ts)
 * until SIGTERM or SIGINT, then stops cleanly: claims nothing more, stops its runs at their next step
 * boundary, waits up to --grace-ms, gives back the leases it still holds, and exits. A second signal
 * exits at once. Prints one JSON line per event on stdout.
 *
 *   npm run worker -- [--concurrency 4] [--lease-ms 30000] [--heartbeat-ms lease/3] [--poll-ms 1000] [--grace-ms 20000] [--health-port N]
 *
 * --health-port N serves GET /health on 127.0.0.1:N (0: a free port; the `health` line says which): up
 * or down and whether the journal answers (health.ts), for an orchestrator's liveness probe; and GET
 * /metrics, Prometheus's exposition (metrics.ts), on the same port. --health-host 0.0.0.0 opens it to
 * other machines (a container's probe, a Prometheus elsewhere): it answers nothing but these two.
 *
 * Needs Postgres (DATABASE_URL): on the embedded journal it exits with status 2 and says so.
 *
 * This file is the deployment's worker: it runs the application's agents (agents/index.ts), ticks its
 * schedules (agents/schedules.ts), runs the retention job (GNL_RETENTION_DAYS: docs/operations.md#retention), and arms the demo's crash points a run was started with (lib/demo
 * crash-point-store.ts), as the executor's `aroundInvocation`. The executor itself (executor.ts) knows neither.
 */
import { parseArgs } from 'node:util';
import { registry, schedules } from '@/agents';
import { CrashPointStore } from '@/lib/demo';
import { storageFromEnv } from '@/lib/durable/storage';
import { WorkersNeedPostgresError } from './errors';
import { Executor, type ExecutorEvent } from './executor';
import { serveHealth } from './observability/health';
import { GnlMetrics } from './observability/metrics';
import { retentionSettingsFromEnv } from './retention/retention-policy';
import { startTraceExport } from './observability/trace-export';

const USAGE =
  'usage: npm run worker -- [--concurrency N] [--lease-ms MS] [--heartbeat-ms MS] [--poll-ms MS] [--grace-ms MS] [--health-port N] [--health-host 127.0.0.1]';

function options() {
  const { values } = parseArgs({
    options: {
      concurrency: { type: 'string', short: 'c', default: '4' },
      'lease-ms': { type: 'string', default: '30000' },
      'heartbeat-ms': { type: 'string' },
      'poll-ms': { type: 'string', default: '1000' },
      'grace-ms': { type: 'string', default: '20000' },
      'health-port': { type: 'string' },
      'health-host': { type: 'string', default: '127.0.0.1' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const int = (name: string, raw: string | undefined, min: number) => {
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new TypeError(`--${name} must be a whole number of at least ${min} (got "${raw}")`);
    return value;
  };
  const leaseMs = int('lease-ms', values['lease-ms'], 100) as number;
  const heartbeatMs = int('heartbeat-ms', values['heartbeat-ms'], 10);
  // A lease renewed less often than it lasts lapses between heartbeats: another worker takes the run over mid-tool.
  if (heartbeatMs !== undefined && heartbeatMs >= leaseMs)
    throw new TypeError(`--heartbeat-ms (${heartbeatMs}) must be shorter than --lease-ms (${leaseMs}): a third of it is the default`);
  return {
    concurrency: int('concurrency', values.concurrency, 1) as number,
    leaseMs,
    heartbeatMs,
    pollMs: int('poll-ms', values['poll-ms'], 10) as number,
    graceMs: int('grace-ms', values['grace-ms'], 0) as number,
    healthPort: int('health-port', values['health-port'], 0),
    healthHost: values['health-host'] as string,
  };
}

function print(owner: string, event: ExecutorEvent | { type: string; [key: string]: unknown }) {
  process.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), worker: owner, pid: process.pid, ...event })}\n`);
}

async function main(): Promise<void> {
  let settings: ReturnType<typeof options>;
  try {
    settings = options();
  } catch (error) {
    console.error(`gnl worker: ${(error as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  // Spans over OTLP when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT says where (docs/operations.md#traces).
  let traces: ReturnType<typeof startTraceExport>;
  try {
    traces = startTraceExport('gnl-worker');
  } catch (error) {
    console.error(`gnl worker: ${(error as Error).message}`);
    process.exit(2);
  }
  const storage = storageFromEnv();
  if (!storage.capabilities.multiProcess) {
    console.error(`gnl worker: ${new WorkersNeedPostgresError().message}`);
    process.exit(2);
  }
  const { graceMs, heartbeatMs, healthPort, healthHost, ...rest } = settings;
  const metrics = healthPort === undefined ? undefined : new GnlMetrics(storage);
  if (healthPort !== undefined && healthPort > 65_535) {
    console.error(`gnl worker: --health-port must be a port number (0 to 65535), got ${healthPort}\n${USAGE}`);
    process.exit(2);
  }
  const executor: Executor = new Executor({
    storage,
    registry,
    // Every worker ticks the deployment's schedules: each slot's run is started once whoever ticks it.
    schedules: schedules(),
    aroundInvocation: new CrashPointStore(storage).aroundInvocation,
    // Ended runs past their agent's retention (GNL_RETENTION_DAYS, defineAgent's retentionDays) are dropped, one pass per interval across workers.
    retention: retentionSettingsFromEnv(),
    // As the Studio's executor: the run page shows the step being generated, a chat reconnects to its answer.
    streamRuns: true,
    // Webhooks set in the Studio (its Webhooks screen), beside GNL_NOTIFY_WEBHOOK_URL's.
    webhookDirectory: true,
    ...rest,
    ...(heartbeatMs !== undefined ? { heartbeatMs } : {}),
    onEvent: (event) => {
      metrics?.observe(event);
      print(executor.owner, event);
    },
  });
  await storage.database(); // fail fast (and migrate) before claiming anything
  const health = healthPort === undefined ? undefined : await serveHealth(storage, { port: healthPort, host: healthHost, ...(metrics ? { metrics } : {}) });
  if (health) print(executor.owner, { type: 'health', url: health.url });
  if (traces) print(executor.owner, { type: 'traces', endpoint: traces.endpoint, serviceName: traces.serviceName });
  executor.start();

  let signals = 0;
  const shutdown = async (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) process.exit(130);
    print(executor.owner, { type: 'signal', signal });
    // Bounded whatever happens below: past the grace period and 10 s for the goodbyes, exit anyway.
    setTimeout(() => process.exit(1), graceMs + 10_000).unref();
    await executor.stop({ graceMs });
    await health?.close().catch(() => undefined);
    await traces?.shutdown().catch((error: unknown) => console.error(`gnl worker: traces: ${(error as Error).message}`)); // the last batch goes out
    await storage.close().catch(() => undefined);
    process.exit(0);
  };
  process.on('SIGTERM', (s) => void shutdown(s));
  process.on('SIGINT', (s) => void shutdown(s));
}

main().catch((error: unknown) => {
  console.error(`gnl worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
