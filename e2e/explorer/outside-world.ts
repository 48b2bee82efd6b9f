/**
 * The explorer's outside world: a real HTTP service on 127.0.0.1 with its OWN store and counters per
 * operation kind and idempotency key. Every invariant about side effects is judged from this store.
 *
 *   GET  /read/:id                 read-only (counted in `reads`)
 *   POST /op/:kind                 a side effect, Idempotency-Key header required. Every request
 *                                  EXECUTES (executions + 1 for its key), except for kinds in `dedupe`,
 *                                  where a repeated key gets the first result and executes nothing.
 *                                  Kinds in `flaky` answer the FIRST request under a key with 503 and
 *                                  execute nothing (a tool that fails, then succeeds). Counted also
 *                                  per piece of work: kind and body (canonical JSON), whatever the key.
 *   GET  /op/:kind/by-key/:key     the first result under a key (200) or 404: what a `check` and the
 *                                  operator ask.
 *   POST /attempt/:kind/:key       counts how often a tool reached this point under a key ({ attempt }):
 *                                  the tools that throw before or after acting throw only the first time.
 * A service that does not deduplicate is what makes "at most once" a claim that can fail.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OpResult {
  opId: string;
  kind: string;
  /** The n-th execution under this key (1 when all is well). */
  execution: number;
}

export interface KeyRecord {
  requests: number;
  executions: number;
  first?: OpResult;
}

/** Requests and executions of one piece of work (a kind and its body), under any key. */
export interface WorkRecord {
  requests: number;
  executions: number;
}

export interface OutsideWorld {
  url: string;
  /** kind → key → record, a copy. */
  store(): Record<string, Record<string, KeyRecord>>;
  /** kind → body (canonical JSON) → record, a copy: how often each piece of work was asked for and done, under any key. */
  works(): Record<string, Record<string, WorkRecord>>;
  reads(): number;
  /** From now on every kind deduplicates by key, as a payment API does (a fork's repeated key meets the first result). */
  dedupeAll(): void;
  close(): Promise<void>;
}

export interface OutsideWorldOptions {
  dedupe?: readonly string[];
  flaky?: readonly string[];
}

export async function startOutsideWorld(options: OutsideWorldOptions = {}): Promise<OutsideWorld> {
  const dedupe = new Set(options.dedupe ?? []);
  let dedupeAll = false;
  const flaky = new Set(options.flaky ?? []);
  const store: Record<string, Record<string, KeyRecord>> = {};
  const works: Record<string, Record<string, WorkRecord>> = {};
  let reads = 0;
  let executions = 0;
  const attempts = new Map<string, number>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const parts = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const [first, kind, third, key] = parts;
    if (req.method === 'GET' && first === 'read' && parts.length === 2) {
      reads += 1;
      return send(res, 200, { id: kind, value: `value of ${kind}` });
    }
    if (req.method === 'POST' && first === 'attempt' && kind && third !== undefined && parts.length === 3) {
      const n = (attempts.get(`${kind}/${third}`) ?? 0) + 1;
      attempts.set(`${kind}/${third}`, n);
      return send(res, 200, { attempt: n });
    }
    if (req.method === 'GET' && first === 'op' && kind && third === 'by-key' && key && parts.length === 4) {
      const found = store[kind]?.[key]?.first;
      return found ? send(res, 200, found) : send(res, 404, { error: 'nothing under this key' });
    }
    if (req.method === 'POST' && first === 'op' && kind && parts.length === 2) {
      const body = await readBody(req);
      const header = req.headers['idempotency-key'];
      if (typeof header !== 'string' || header.length === 0) return send(res, 400, { error: 'Idempotency-Key required' });
      const byWork = works[kind] ?? {};
      works[kind] = byWork;
      const workId = canonicalBody(body);
      const work = byWork[workId] ?? { requests: 0, executions: 0 };
      byWork[workId] = work;
      work.requests += 1;
      const byKey = store[kind] ?? {};
      store[kind] = byKey;
      const record = byKey[header] ?? { requests: 0, executions: 0 };
      byKey[header] = record;
      record.requests += 1;
      if (flaky.has(kind) && record.requests === 1) return send(res, 503, { error: 'try again later' });
      if ((dedupeAll || dedupe.has(kind)) && record.first) return send(res, 200, record.first);
      record.executions += 1;
      work.executions += 1;
      executions += 1;
      const result: OpResult = { opId: `${kind}_${executions}`, kind, execution: record.executions };
      record.first ??= result;
      return send(res, 201, result);
    }
    return send(res, 404, { error: `no route ${req.method} ${req.url}` });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    store: () => structuredClone(store),
    works: () => structuredClone(works),
    reads: () => reads,
    dedupeAll: () => {
      dedupeAll = true;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return; // the client was killed waiting: the work is done, nobody to tell
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A body as canonical JSON (keys sorted), so one piece of work is one entry whatever its key order. */
export function canonicalBody(text: string): string {
  const sort = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sort)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, sort((value as Record<string, unknown>)[k])]),
          )
        : value;
  try {
    return JSON.stringify(sort(JSON.parse(text)));
  } catch {
    return text;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
