/**
 * What the Studio's server does once at start (instrumentation.ts): start its in-process executor (on
 * the embedded journal the only one; it takes up runs a previous server process left runnable, e.g.
 * after a demo crash point killed it), and make sure someone can sign in. Server-only.
 */
import 'server-only';
import { registry, schedules } from '@/agents';
import { addOperator } from '@/lib/accounts';
import { demoModelInfo } from '@/lib/demo';
import { storageFromEnv } from '@/lib/durable/storage';
import { getExecutor, retentionSettingsFromEnv } from '@/lib/executor';
import { demoInvocationHook } from './demo';
import { studioLeaseFromEnv } from './executor-lease';
import { rateLimitFromEnv } from '@/lib/server/rate-limit';
import { logText } from './log-text';
import { traceUrlTemplate } from './trace-link';
import { metricsToken } from './auth/metrics-token';
import { studioMetrics } from './metrics';
import { hostPolicyFromEnv } from './auth/request-host';
import { isLoopbackHost } from './auth/session-cookie';
import { needsFirstOperator, newSetupToken } from './auth/sign-in';

function origin(): string {
  const host = process.env.GNL_STUDIO_HOST || '127.0.0.1';
  return `http://${host.includes(':') ? `[${host}]` : host}:${process.env.PORT || '3000'}`;
}

/** Which hosts this Studio answers (proxy.ts refuses the rest), said at start when it is not only loopback. */
function announceHosts(): void {
  const policy = hostPolicyFromEnv();
  const bound = process.env.GNL_STUDIO_HOST || '127.0.0.1';
  const names = ['loopback names', ...policy.allowed.map(({ name, port }) => (port ? `${name}:${port}` : name))].join(', ');
  if (policy.allowed.length > 0 || policy.trustProxy)
    console.log(`studio: answers ${names}${policy.trustProxy ? ' (the host the proxy in front forwards: GNL_STUDIO_TRUST_PROXY)' : ''}`);
  if (!isLoopbackHost(bound) && policy.allowed.length === 0)
    console.log(`studio: listening on ${bound} but answering loopback names only: set GNL_STUDIO_ALLOWED_HOSTS to the names people reach it by`);
}

/** The settings the Studio reads later, checked at start: what is wrong (naming the variable), or undefined. */
export function checkStudioSettings(env: Record<string, string | undefined> = process.env): string | undefined {
  for (const check of [() => traceUrlTemplate(env), () => retentionSettingsFromEnv(env), () => studioLeaseFromEnv(env), () => rateLimitFromEnv(env)]) {
    try {
      check();
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  return undefined;
}

export async function bootStudio(): Promise<void> {
  announceHosts();
  if (metricsToken()) console.log('studio: /api/metrics also answers a scraper with GNL_METRICS_TOKEN as its bearer token');
  const aroundInvocation = demoInvocationHook();
  getExecutor({
    registry,
    // The deployment's schedules: this server starts their due slots as workers do (each slot once).
    schedules: schedules(),
    // Every run streams, and its stream is kept for the run page's live step and the chat's reconnects.
    streamRuns: true,
    // Webhooks set on the Webhooks screen, beside GNL_NOTIFY_WEBHOOK_URL's: used without a restart.
    webhookDirectory: true,
    // On the embedded journal this server is the only executor, so it runs the retention job (on Postgres the workers do).
    ...(storageFromEnv().capabilities.multiProcess ? {} : { retention: retentionSettingsFromEnv() }),
    ...(aroundInvocation ? { aroundInvocation } : {}),
    // How long its claim on a run holds without a heartbeat (GNL_STUDIO_LEASE_MS; default 30 s, as a worker's).
    ...studioLeaseFromEnv(),
    onEvent: (event) => {
      studioMetrics().observe(event);
      if (event.type === 'error') console.error(`studio executor: ${logText(event.where)}: ${logText(event.error)}`);
      if (event.type === 'finished' && event.error) console.log(`studio executor: ${logText(event.runId)} ${event.outcome}: ${logText(event.error)}`);
      if (event.type === 'retention-pass')
        console.log(
          `studio executor: retention dropped ${event.dropped} runs (${event.skipped} skipped)` +
            (event.memory.resources > 0
              ? `, and ${event.memory.items} memory items and ${event.memory.versions} working memory versions of ${event.memory.resources} resources`
              : ''),
        );
      if (event.type === 'schedule-missed')
        console.log(`studio executor: schedule ${event.scheduleId} missed ${event.first} … ${event.last} (${event.policy})`);
    },
  });
  const model = demoModelInfo();
  console.log(`studio: demo agent model ${model.provider}:${model.modelId}${model.kind === 'scripted' ? ` (scripted: ${model.reason})` : ''}`);
  if (!(await needsFirstOperator())) return;

  const { GNL_STUDIO_OPERATOR_LOGIN: login, GNL_STUDIO_OPERATOR_PASSWORD: password, GNL_STUDIO_OPERATOR_NAME: name } = process.env;
  if (login && password) {
    const operator = await addOperator({ login, password, name: name || login, by: 'studio first start (GNL_STUDIO_OPERATOR_LOGIN)' });
    console.log(`studio: created the first operator "${operator.login}" from GNL_STUDIO_OPERATOR_LOGIN; sign in at ${origin()}/sign-in`);
    return;
  }
  const token = newSetupToken();
  console.log(
    [
      'studio: no operator account exists yet. Create the first one (valid until an account exists, for this server process):',
      `studio:     ${origin()}/setup?token=${token}`,
      'studio: or stop the Studio and run: npx gnl operators add <login> --name "<your name>"',
    ].join('\n'),
  );
}
