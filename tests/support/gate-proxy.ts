/**
 * A real HTTP proxy in front of the demo's outside service that can hold chosen requests until the test
 * lets them through: how a test puts a worker inside a tool call (the side effect's start is journaled,
 * its request not yet answered) at a moment it chooses. A held request is forwarded when released, even
 * if the worker that sent it died meanwhile (the request had left it: the service may still act on it).
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Held {
  method: string;
  path: string;
  release: () => void;
}

export interface GateProxy {
  url: string;
  /** From now on, hold every request that matches (one gate at a time). */
  hold(match: (method: string, path: string) => boolean): void;
  /** Lets `count` held requests through (default all), oldest first, and stops holding new ones if all were asked. */
  release(count?: number): void;
  held(): { method: string; path: string }[];
  /** Resolves once `count` requests are held. */
  waitForHeld(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startGateProxy(target: string): Promise<GateProxy> {
  let gate: ((method: string, path: string) => boolean) | undefined;
  const held: Held[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      if (gate?.(method, path)) await new Promise<void>((release) => held.push({ method, path, release }));
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'idempotency-key']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const upstream = await fetch(`${target}${path}`, { method, headers, ...(body.length > 0 ? { body: new Uint8Array(body) } : {}) });
      const answer = Buffer.from(await upstream.arrayBuffer());
      if (res.destroyed) return;
      const replayed = upstream.headers.get('idempotent-replayed');
      res.writeHead(upstream.status, { 'content-type': 'application/json', ...(replayed ? { 'idempotent-replayed': replayed } : {}) });
      res.end(answer);
    })().catch((error: unknown) => {
      if (!res.destroyed) res.writeHead(502).end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hold(match) {
      gate = match;
    },
    release(count) {
      if (count === undefined) gate = undefined;
      for (const request of held.splice(0, count ?? held.length)) request.release();
    },
    held: () => held.map(({ method, path }) => ({ method, path })),
    async waitForHeld(count, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (held.length < count) {
        if (Date.now() > deadline) throw new Error(`only ${held.length} of ${count} requests were held within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      gate = undefined;
      for (const request of held.splice(0)) request.release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
