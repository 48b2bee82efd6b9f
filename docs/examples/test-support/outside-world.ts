/**
 * The outside world of the guides' tests: one real HTTP server on 127.0.0.1 playing a helpdesk, a mail
 * service, a payment service (PSP) that deduplicates by Idempotency-Key, a legacy PSP that ignores it,
 * and a log of real model calls. The tests judge each guide by these counters, never by the agent's word.
 *
 * It can also end an agent the hard way: `killWhen(pid, predicate)` SIGKILLs that process when the
 * predicate first holds after a request, once the work is done and before the answer is sent (the agent
 * dies with the outside system's work done and unrecorded). Requests of the kinds listed in `hold` are
 * never answered: they wait until their client goes away (dies, or gives up on a timeout).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Refund {
  refundId: string;
  orderId: string;
  amount: number;
}

export interface WorldEvent {
  kind: 'model-call' | 'ticket' | 'email' | 'refund' | 'legacy-refund';
  /** For model calls: the step asked for. */
  step?: number;
}

export interface OutsideWorld {
  url: string;
  tickets: { ticketId: string; customerId: string; subject: string }[];
  emails: { messageId: string; to: string; subject: string }[];
  customerLookups: number;
  /** Refunds the PSP executed, by order id (a repeat under a known key is answered, not executed). */
  refunds: Map<string, Refund[]>;
  /** POST /psp/refunds requests received, by order id. */
  refundRequests: Map<string, number>;
  /** GET /psp/refunds/:key lookups (what a gnlTool check asks). */
  refundLookups: number;
  /** Refunds the legacy PSP executed, by order id: it ignores Idempotency-Key. */
  legacyRefunds: Map<string, number>;
  /** Real model calls, in order: which agent, which step, which process. */
  modelCalls: { agent: string; step: number; pid: number }[];
  /** Kinds of request never answered: they wait until their client goes away. */
  hold: Set<WorldEvent['kind']>;
  /** SIGKILLs `pid` after the first request for which `predicate` holds; resolves then. */
  killWhen(
    pid: number,
    predicate: (event: WorldEvent, world: OutsideWorld) => boolean,
  ): Promise<void>;
  close(): Promise<void>;
}

export async function startOutsideWorld(): Promise<OutsideWorld> {
  const byKey = new Map<string, Refund>();
  let ids = 0;
  let armed:
    | {
        pid: number;
        predicate: (event: WorldEvent, world: OutsideWorld) => boolean;
        killed: () => void;
      }
    | undefined;

  const world: OutsideWorld = {
    url: '',
    tickets: [],
    emails: [],
    customerLookups: 0,
    refunds: new Map(),
    refundRequests: new Map(),
    refundLookups: 0,
    legacyRefunds: new Map(),
    modelCalls: [],
    hold: new Set(),
    killWhen(pid, predicate) {
      return new Promise<void>((resolve) => {
        armed = { pid, predicate, killed: resolve };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // idle keep-alive sockets of the test's own fetches
      }),
  };

  /** After the work is done: kill the armed process if the predicate holds, hold the answer, or answer. */
  function settle(event: WorldEvent, res: ServerResponse, body: unknown): void {
    if (armed?.predicate(event, world)) {
      const { pid, killed } = armed;
      armed = undefined;
      process.kill(pid, 'SIGKILL');
      killed();
      return; // never answered: the client is dead
    }
    if (world.hold.has(event.kind)) return; // answered by nobody; the socket closes with its client
    json(res, 200, body);
  }

  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://world');
      const key = req.headers['idempotency-key'] as string | undefined;
      const route = `${req.method} ${url.pathname}`;
      if (route === 'POST /model-calls') {
        const { agent, step, pid } = (await readJson(req)) as {
          agent: string;
          step: number;
          pid: number;
        };
        world.modelCalls.push({ agent, step, pid });
        return settle({ kind: 'model-call', step }, res, {});
      }
      if (req.method === 'GET' && url.pathname.startsWith('/customers/')) {
        world.customerLookups += 1;
        const customerId = decodeURIComponent(url.pathname.slice('/customers/'.length));
        return json(res, 200, { customerId, name: 'Ana Lima', email: 'ana@example.com' });
      }
      if (route === 'POST /tickets') {
        const input = (await readJson(req)) as { customerId: string; subject: string };
        const ticket = { ticketId: `T-${++ids}`, ...input };
        world.tickets.push(ticket);
        return settle({ kind: 'ticket' }, res, ticket);
      }
      if (route === 'POST /emails') {
        const input = (await readJson(req)) as { to: string; subject: string };
        const email = { messageId: `M-${++ids}`, to: input.to, subject: input.subject };
        world.emails.push(email);
        return settle({ kind: 'email' }, res, email);
      }
      if (route === 'POST /psp/refunds') {
        const input = (await readJson(req)) as { orderId: string; amount: number };
        world.refundRequests.set(input.orderId, (world.refundRequests.get(input.orderId) ?? 0) + 1);
        const known = key ? byKey.get(key) : undefined;
        if (known) return json(res, 200, known); // deduplicated: the first result, no second refund
        const refund = { refundId: `re_${++ids}`, orderId: input.orderId, amount: input.amount };
        if (key) byKey.set(key, refund);
        world.refunds.set(input.orderId, [...(world.refunds.get(input.orderId) ?? []), refund]);
        return settle({ kind: 'refund' }, res, refund);
      }
      if (req.method === 'GET' && url.pathname.startsWith('/psp/refunds/')) {
        world.refundLookups += 1;
        const refund = byKey.get(decodeURIComponent(url.pathname.slice('/psp/refunds/'.length)));
        return refund
          ? json(res, 200, refund)
          : json(res, 404, { error: 'no refund under this key' });
      }
      if (route === 'POST /legacy-psp/refunds') {
        const input = (await readJson(req)) as { orderId: string; amount: number };
        world.legacyRefunds.set(input.orderId, (world.legacyRefunds.get(input.orderId) ?? 0) + 1);
        const refund = { refundId: `lg_${++ids}`, orderId: input.orderId, amount: input.amount };
        return settle({ kind: 'legacy-refund' }, res, refund);
      }
      json(res, 404, { error: `no route ${route}` });
    } catch (error) {
      if (!res.headersSent) json(res, 500, { error: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  world.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return world;
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}
