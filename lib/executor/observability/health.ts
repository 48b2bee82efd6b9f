/**
 * Health for load balancers and orchestrators (issue 18): up or down, and whether the journal answers,
 * nothing else (no counts, no versions, no errors' text: the answer is public; why it is down goes to the
 * server's own log, logHealthCause). The Studio serves it at
 * /api/health without a session; `npm run worker -- --health-port N` serves it at GET /health.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';

export interface Health {
  status: 'up' | 'down';
  /**
   * read-only: the journal answers but cannot take an append (a standby, or a node a failover is still
   * promoting: pg_auto_failover's stop_replication); down, as unreachable is.
   */
  journal: 'reachable' | 'read-only' | 'unreachable';
}

/** What health needs of a storage: its database, by shape (Storage.database()). */
export interface HealthStorage {
  database(): Promise<{ execute(statement: ReturnType<typeof sql>): PromiseLike<unknown> }>;
}

/** Default: a journal that does not answer `select 1` within 2 s is unreachable. */
export const HEALTH_TIMEOUT_MS = 2_000;

export interface HealthOptions {
  timeoutMs?: number;
  /**
   * Why the journal is down (its error, with the driver's as `cause`, or the timeout), for the server's own
   * log: the public answer never says. Default: logHealthCause.
   */
  onDown?: (cause: Error) => void;
}

/** Asks the journal one trivial question, bounded by `timeoutMs`: reachable (up) or not (down, the cause given to `onDown`). */
export async function checkHealth(storage: HealthStorage, options: HealthOptions = {}): Promise<Health> {
  const timeoutMs = options.timeoutMs ?? HEALTH_TIMEOUT_MS;
  const onDown = options.onDown ?? logHealthCause;
  let timer: NodeJS.Timeout | undefined;
  let failure: unknown;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const ask = (async () => {
    const rows = (await (
      await storage.database()
    ).execute(sql`select pg_is_in_recovery() or current_setting('transaction_read_only') = 'on' as "readOnly"`)) as unknown as
      | { readOnly: boolean }[]
      | { rows: { readOnly: boolean }[] };
    const row = Array.isArray(rows) ? rows[0] : rows.rows[0];
    return row?.readOnly ? 'read-only' : 'reachable';
  })().catch((error: unknown) => {
    failure = error;
    return false as const;
  });
  try {
    const answer = await Promise.race([ask, timeout]);
    if (answer === 'reachable') {
      lastCause = undefined;
      return { status: 'up', journal: 'reachable' };
    }
    const cause =
      answer === 'read-only'
        ? new Error('the journal answers read-only (a standby, or a node still being promoted)')
        : failure !== undefined
          ? new Error(`the journal did not answer: ${failure instanceof Error ? failure.message : String(failure)}`, { cause: failure })
          : new Error(`the journal did not answer within ${timeoutMs} ms`);
    onDown(cause);
    return { status: 'down', journal: answer === 'read-only' ? 'read-only' : 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

let lastCause: string | undefined;

/**
 * The default `onDown`: one line on stderr when the health turns down or its cause changes, not once per
 * probe (a load balancer asks every few seconds); up again resets it.
 */
export function logHealthCause(cause: Error): void {
  if (cause.message === lastCause) return;
  lastCause = cause.message;
  console.error(`gnl health: down: ${cause.message}`);
}

/** The HTTP status a health answer goes out with: 200 up, 503 down. */
export function healthStatusCode(health: Health): 200 | 503 {
  return health.status === 'up' ? 200 : 503;
}

/**
 * GET /health on `port` (0: any free one) of `host` (default 127.0.0.1), and GET /metrics when given
 * `metrics` (metrics.ts); anything else is 404. Resolves once listening.
 */
export async function serveHealth(
  storage: HealthStorage,
  options: { port: number; host?: string; metrics?: { scrape(): Promise<{ body: string; contentType: string }> } },
): Promise<{ url: string; close: () => Promise<void> }> {
  const { metrics } = options;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics' && metrics) {
      metrics.scrape().then(
        ({ body, contentType }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
        (error: unknown) => res.writeHead(503, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${(error as Error).message}`),
      );
      return;
    }
    if (req.method !== 'GET' || path !== '/health') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: metrics ? 'GET /health or /metrics only' : 'GET /health only' }));
      return;
    }
    void checkHealth(storage).then((health) => {
      res.writeHead(healthStatusCode(health), { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(health));
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
