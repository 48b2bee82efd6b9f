/**
 * The demo's outside world: a small real HTTP service on 127.0.0.1 with its own in-memory store of
 * customers, tickets, refunds and emails. It keeps its OWN counters, so "at most once" is judged by
 * what this service says happened, never by the agent's journal or logs.
 *
 *   GET  /customers/:id        a customer and their orders (404 if unknown); counted in `customerLookups`
 *   POST /tickets              { customerId, subject, message }
 *   POST /refunds              { customerId, orderId, amount, ticketId? }
 *   POST /emails               { to, subject, body, ticketId? }
 *       Each with an Idempotency-Key header. The first request under a key performs the operation and
 *       answers 201; a repeat under the same key performs nothing and answers 200 with the FIRST result
 *       and `Idempotent-Replayed: true`; a repeat with a different body is refused (422). A request
 *       without a key always performs. A refund the store refuses (unknown order, more than the order
 *       total) answers 422 { refused } and performs nothing.
 *   GET  /tickets/by-key/:key  (and /refunds/…, /emails/…) the result stored under a key, or 404: what a
 *                              gnlTool `check` asks after an unknown outcome; counted in `keyLookups`
 *   GET  /tickets              (and /refunds, /emails) everything performed, in order
 *   GET  /stats                the counters (ServiceStats)
 *   POST /webhooks[?fail=N]    a receiver for GNL's notifications, counted by event id (webhook-inbox.ts);
 *                              ?fail=N refuses each event's first N deliveries with 503
 *   GET  /webhooks             what it received, per event id
 *
 * `startOutsideService()` runs it in this process (tests, the Studio); `npm run demo:service` runs it
 * as its own process. With `storeFile` (GNL_DEMO_SERVICE_STORE; `npm run studio` sets it beside its
 * journal) it keeps its store in that file, written after every request that changed it and read back at
 * start, so its counters survive a restart as a real service's database would.
 */
import { once } from 'node:events';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Answer, type Customer, DEMO_CUSTOMERS, type OperationKind, type RecordOf, type ServiceStats, Store } from './service-store';
import { WebhookInbox } from './webhook-inbox';

export const DEFAULT_SERVICE_PORT = 4010;

export interface OutsideService {
  /** Base URL, e.g. http://127.0.0.1:4010. */
  url: string;
  port: number;
  stats(): ServiceStats;
  /** Everything performed of one kind, in order. */
  records<K extends OperationKind>(kind: K): RecordOf<K>[];
  close(): Promise<void>;
}

export interface OutsideServiceOptions {
  /** Default 0: any free port. `npm run demo:service` uses GNL_DEMO_SERVICE_PORT, else 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The customer store. Default: DEMO_CUSTOMERS. */
  customers?: readonly Customer[];
  /** Each answer waits this long first, as a real service's would (default 0): keeps runs in flight in tests that pause workers mid-run. */
  latencyMs?: number;
  /** Keeps the store in this JSON file: read at start (a file of another shape is refused), written (atomically) after each request that changed it. */
  storeFile?: string;
}

function isKind(value: string | undefined): value is OperationKind {
  return value === 'tickets' || value === 'refunds' || value === 'emails';
}

async function route(store: Store, webhooks: WebhookInbox, req: IncomingMessage): Promise<Answer & { replayed?: boolean }> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const [first, second, third] = parts;
  if (req.method === 'GET') {
    if (first === 'customers' && parts.length === 2) return store.lookupCustomer(second as string);
    if (isKind(first) && second === 'by-key' && parts.length === 3) return store.lookupKey(first, third as string);
    if (isKind(first) && parts.length === 1) return { status: 200, body: store.records[first] };
    if (first === 'stats' && parts.length === 1) return { status: 200, body: store.stats };
    // Says what it is: `npm run studio` reuses a demo service already on its port only when it is this one.
    if (first === 'health' && parts.length === 1) return { status: 200, body: { ok: true, service: 'gnl-demo-outside-service' } };
    if (first === 'webhooks' && parts.length === 1) return { status: 200, body: webhooks.list() };
  }
  if (req.method === 'POST' && first === 'webhooks' && parts.length === 1) {
    const fail = Number(url.searchParams.get('fail') ?? 0);
    const signature = req.headers['gnl-signature'];
    return webhooks.receive(await readBody(req), { signature: typeof signature === 'string' ? signature : undefined }, Number.isInteger(fail) ? fail : 0);
  }
  if (req.method === 'POST' && isKind(first) && parts.length === 1) {
    const text = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { status: 400, body: { error: 'the body must be JSON' } };
    }
    const header = req.headers['idempotency-key'];
    return store.perform(first, typeof header === 'string' && header.length > 0 ? header : null, body);
  }
  return { status: 404, body: { error: `no route ${req.method} ${url.pathname}` } };
}

export async function startOutsideService(options: OutsideServiceOptions = {}): Promise<OutsideService> {
  const store = new Store(options.customers ?? DEMO_CUSTOMERS);
  const { storeFile } = options;
  // The file is the service's own (npm run demo:service): never part of the Studio's build trace.
  if (storeFile && existsSync(/*turbopackIgnore: true*/ storeFile)) {
    try {
      store.restore(JSON.parse(readFileSync(/*turbopackIgnore: true*/ storeFile, 'utf8')));
    } catch (error) {
      throw new Error(`The demo service's store ${storeFile} cannot be read back: ${(error as Error).message}. Move it away to start empty.`, { cause: error });
    }
  }
  const persist = () => {
    if (!storeFile) return;
    const temporary = `${storeFile}.${process.pid}.tmp`;
    writeFileSync(/*turbopackIgnore: true*/ temporary, JSON.stringify(store.snapshot()));
    renameSync(/*turbopackIgnore: true*/ temporary, storeFile);
  };
  const webhooks = new WebhookInbox();
  const latencyMs = options.latencyMs ?? 0;
  const server: Server = createServer((req, res) => {
    const answer = () =>
      route(store, webhooks, req).then(
        (answered) => {
          // Written before the answer: what a client was told happened is on disk (lookups count too).
          if (changesStore(req)) persist();
          send(res, answered.status, answered.body, answered.replayed ? { 'idempotent-replayed': 'true' } : {});
        },
        (error: unknown) => send(res, 500, { error: String(error) }),
      );
    if (latencyMs > 0) setTimeout(answer, latencyMs);
    else void answer();
  });
  const host = options.host ?? '127.0.0.1';
  server.listen(options.port ?? 0, host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => {
      throw error;
    }),
  ]);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    stats: () => structuredClone(store.stats),
    records: (kind) => structuredClone(store.records[kind]) as never,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every request but a read of the lists, the counters, the webhooks or the health changes the store (a lookup is counted). */
function changesStore(req: IncomingMessage): boolean {
  if (req.method !== 'GET') return !(req.url ?? '').startsWith('/webhooks');
  const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.split('/').filter(Boolean);
  return path[0] === 'customers' || path[1] === 'by-key';
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return; // the client died waiting (a killed process): nothing to answer
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
