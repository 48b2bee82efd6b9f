/**
 * A real TCP proxy in front of Postgres that pools by transaction, as pgbouncer does with
 * pool_mode=transaction: each client connection is served by several server sessions, and each time
 * the client is between transactions (ReadyForQuery 'I') its next statement goes to the next session,
 * round-robin (pgbouncer picks whichever server is free; round-robin makes the switch certain).
 *
 * Enough of the v3 protocol for postgres.js on a trust-auth server: the client's startup packet is
 * replayed to every server session, the first one's answer goes back to the client. Between
 * ReadyForQuery messages everything the client sends goes to one session; messages from the others are
 * dropped. Not handled: passwords, SSL, COPY, cancel requests, and (as in pgbouncer before 1.21) a
 * named prepared statement reused on a session that never parsed it.
 */
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';

export interface TransactionPoolingProxy {
  url: string;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;

export async function startTransactionPoolingProxy(target: string, sessionsPerClient = 2): Promise<TransactionPoolingProxy> {
  const upstream = new URL(target);
  const open = new Set<net.Socket>();
  const proxy = net.createServer((client) => {
    open.add(client);
    const servers: net.Socket[] = [];
    const end = () => {
      client.destroy();
      for (const server of servers) server.destroy();
      open.delete(client);
    };
    client.on('error', end).on('close', end);
    void serve(client, servers, upstream, sessionsPerClient).catch(end);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.toString(),
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

async function serve(client: net.Socket, servers: net.Socket[], upstream: URL, count: number): Promise<void> {
  const fromClient = new MessageReader(client, true);
  let startup = await fromClient.startup();
  if (startup.readInt32BE(4) === SSL_REQUEST) {
    client.write('N');
    startup = await fromClient.startup();
  }
  for (let i = 0; i < count; i++) {
    const server = net.connect({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    server.on('error', () => client.destroy()).on('close', () => client.destroy());
    servers.push(server);
  }
  const readers = servers.map((server) => new MessageReader(server, false));
  // Every session starts as the client asked; only the first one's greeting reaches the client.
  for (const [i, server] of servers.entries()) {
    server.write(startup);
    for (;;) {
      const message = await (readers[i] as MessageReader).next();
      if (i === 0) client.write(message);
      if (message[0] === 0x5a) break; // ReadyForQuery
      if (message[0] === 0x45) throw new Error('a server session refused the startup'); // ErrorResponse
    }
  }
  let current = 0;
  let pinned = false;
  let awaiting = 0; // Sync / Query messages sent to the pinned session and not yet answered
  for (const [i, reader] of readers.entries()) {
    reader.onMessage((message) => {
      if (i !== current || !pinned) return; // a stray notice or notification from an idle session
      client.write(message);
      if (message[0] !== 0x5a) return;
      awaiting -= 1;
      if (awaiting === 0 && message[5] === 0x49) {
        // 'I': between transactions, so the next statement may go to another session.
        pinned = false;
        current = (current + 1) % servers.length;
      }
    });
  }
  fromClient.onMessage((message) => {
    const type = message[0];
    if (type === 0x58) return void client.end(); // Terminate
    pinned = true;
    if (type === 0x53 || type === 0x51) awaiting += 1; // Sync, Query
    (servers[current] as net.Socket).write(message);
  });
}

/** Splits a socket's bytes into protocol messages: the untyped startup packet first (client side), then typed ones. */
class MessageReader {
  private buffer = Buffer.alloc(0);
  private waiting: ((message: Buffer) => void) | undefined;
  private listener: ((message: Buffer) => void) | undefined;
  private readonly queue: Buffer[] = [];

  constructor(
    socket: net.Socket,
    private untyped: boolean,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      for (let message = this.take(); message; message = this.take()) this.deliver(message);
    });
  }

  startup(): Promise<Buffer> {
    return this.next();
  }

  next(): Promise<Buffer> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  onMessage(listener: (message: Buffer) => void): void {
    this.listener = listener;
    for (const message of this.queue.splice(0)) listener(message);
  }

  private deliver(message: Buffer): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(message);
    else if (this.listener) this.listener(message);
    else this.queue.push(message);
  }

  private take(): Buffer | undefined {
    const header = this.untyped ? 0 : 1;
    if (this.buffer.length < header + 4) return undefined;
    const length = header + this.buffer.readInt32BE(header);
    if (this.buffer.length < length) return undefined;
    const message = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    // The client's startup packet (and an SSLRequest before it) are untyped; everything after is typed.
    if (this.untyped && message.length >= 8 && message.readInt32BE(4) !== SSL_REQUEST) this.untyped = false;
    return message;
  }
}
