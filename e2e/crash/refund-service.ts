/**
 * The outside world of the crash suite: a small real HTTP refund service on 127.0.0.1, with its OWN
 * counters. The suite judges every crash by what this service says happened, never by the agent's logs.
 *
 *   GET  /orders/:orderId   read-only order lookup (counted in `lookups`)
 *   POST /refunds           body { orderId, amount }, header Idempotency-Key. The first request with a key
 *                           executes the refund (`executions` + 1) and stores the result; a repeat with the
 *                           same key returns the stored result and does not execute again (deduplication,
 *                           what gnlTool's `retrySafe` relies on). A request without a key always executes.
 *                           With `dedupe: false` the service ignores the key and executes every request
 *                           (a service that does NOT deduplicate).
 *   GET  /refunds/:key      the stored result under a key (200 { status: 'done', result }) or 404: what a
 *                           gnlTool `check` asks.
 *   GET  /stats             the counters.
 *   POST /control/pause-next  the next POST /refunds waits, before executing, until released
 *                           (in-process: `pauseNext()`), to hold a child inside its refund call.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RefundResult {
  refundId: string;
  orderId: string;
  amount: number;
  /** Which execution of the service produced it (1-based). */
  execution: number;
}

export interface RefundRequestRecord {
  idempotencyKey: string | null;
  orderId: string;
  amount: number;
  /** Did this request execute a refund (false: answered from the stored result). */
  executed: boolean;
}

export interface RefundStats {
  /** POST /refunds requests received (answered or not). */
  requests: number;
  /** Refunds really executed: the number that matters. */
  executions: number;
  /** Executions per order id. */
  executionsByOrder: Record<string, number>;
  /** Distinct idempotency keys seen on POST /refunds. */
  distinctKeys: number;
  /** GET /orders lookups served. */
  lookups: number;
  /** GET /refunds/:key checks served. */
  checks: number;
  /** Every POST /refunds, in arrival order. */
  log: RefundRequestRecord[];
}

export interface RefundService {
  url: string;
  stats(): RefundStats;
  /**
   * The next POST /refunds waits before executing. `arrived` resolves when it is in; `release()` lets it
   * go on; `settled` resolves once the service has executed (or deduplicated) it, whether or not its
   * client is still alive to read the answer.
   */
  pauseNext(): Paused;
  close(): Promise<void>;
}

export interface RefundServiceOptions {
  /** Deduplicate by Idempotency-Key (default true). */
  dedupe?: boolean;
}

export interface Paused {
  arrived: Promise<void>;
  release(): void;
  settled: Promise<void>;
}

interface Pause {
  arrived: () => void;
  released: Promise<void>;
  settled: () => void;
}

export async function startRefundService(options: RefundServiceOptions = {}): Promise<RefundService> {
  const dedupe = options.dedupe ?? true;
  const stored = new Map<string, RefundResult>();
  const keys = new Set<string>();
  const stats: RefundStats = { requests: 0, executions: 0, executionsByOrder: {}, distinctKeys: 0, lookups: 0, checks: 0, log: [] };
  const pauses: Pause[] = [];
  const releases = new Set<() => void>();

  const pauseNext = (): Paused => {
    const arrived = deferred();
    const released = deferred();
    const settled = deferred();
    releases.add(released.resolve);
    pauses.push({ arrived: arrived.resolve, released: released.promise, settled: settled.resolve });
    return { arrived: arrived.promise, release: released.resolve, settled: settled.promise };
  };

  const refund = (res: ServerResponse, key: string | null, orderId: string, amount: number): void => {
    const previous = dedupe && key ? stored.get(key) : undefined;
    if (previous) {
      stats.log.push({ idempotencyKey: key, orderId, amount, executed: false });
      json(res, 200, previous);
      return;
    }
    stats.executions += 1;
    stats.executionsByOrder[orderId] = (stats.executionsByOrder[orderId] ?? 0) + 1;
    const result: RefundResult = { refundId: `r_${orderId}_${stats.executions}`, orderId, amount, execution: stats.executions };
    if (key && !stored.has(key)) stored.set(key, result);
    stats.log.push({ idempotencyKey: key, orderId, amount, executed: true });
    json(res, 201, result);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (req.method === 'GET' && parts[0] === 'orders' && parts.length === 2) {
      stats.lookups += 1;
      return json(res, 200, { orderId: parts[1], total: 40, currency: 'EUR', placedAt: '2026-11-01T10:00:00.000Z' });
    }
    if (req.method === 'POST' && url.pathname === '/refunds') {
      const body = JSON.parse((await readBody(req)) || '{}') as { orderId?: unknown; amount?: unknown };
      if (typeof body.orderId !== 'string' || typeof body.amount !== 'number') return json(res, 400, { error: 'orderId and amount required' });
      const header = req.headers['idempotency-key'];
      const key = typeof header === 'string' && header.length > 0 ? header : null;
      stats.requests += 1;
      if (key) keys.add(key);
      stats.distinctKeys = keys.size;
      const pause = pauses.shift();
      if (pause) {
        pause.arrived();
        await pause.released;
      }
      try {
        return refund(res, key, body.orderId, body.amount);
      } finally {
        pause?.settled();
      }
    }
    if (req.method === 'GET' && parts[0] === 'refunds' && parts.length === 2) {
      stats.checks += 1;
      const result = stored.get(parts[1] as string);
      return result ? json(res, 200, { status: 'done', result }) : json(res, 404, { status: 'not-found' });
    }
    if (req.method === 'GET' && url.pathname === '/stats') return json(res, 200, snapshot(stats));
    if (req.method === 'POST' && url.pathname === '/control/pause-next') {
      pauseNext();
      return json(res, 200, { paused: true });
    }
    return json(res, 404, { error: 'not found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(error) });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => snapshot(stats),
    pauseNext,
    close: async () => {
      for (const release of releases) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Promise.withResolvers, which Node 20 lacks. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function snapshot(stats: RefundStats): RefundStats {
  return structuredClone(stats);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return; // the client died waiting (a killed child): nothing to answer
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
