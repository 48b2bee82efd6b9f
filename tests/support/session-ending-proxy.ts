/**
 * A real TCP proxy in front of Postgres that ends the first `sessions` sessions whose client sends a
 * statement matching `statement`, dropping that statement: what a server's idle_session_timeout does to
 * a session whose client stalled (a busy process, a loaded machine) between its last answer and that
 * statement, which then goes out on a connection the server has already ended (CONNECTION_CLOSED).
 * Other sessions, and other statements, pass untouched.
 */
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';

export interface SessionEndingProxy {
  url: string;
  /** Sessions ended so far. */
  ended(): number;
  close(): Promise<void>;
}

export async function startSessionEndingProxy(target: string, options: { sessions: number; statement: RegExp }): Promise<SessionEndingProxy> {
  const upstream = new URL(target);
  let ended = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const server = net.connect({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    client.on('data', (chunk: Buffer) => {
      if (ended < options.sessions && options.statement.test(chunk.toString('latin1'))) {
        ended++;
        client.destroy();
        server.destroy();
        return;
      }
      server.write(chunk);
    });
    server.pipe(client);
    const end = () => {
      client.destroy();
      server.destroy();
      open.delete(client);
    };
    open.add(client);
    for (const socket of [client, server]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    ended: () => ended,
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
