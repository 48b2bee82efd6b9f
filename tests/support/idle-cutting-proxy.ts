/**
 * A real TCP proxy in front of Postgres that destroys every connection on which no byte has moved, in
 * either direction, for `idleMs`: what a NAT gateway, a firewall or an L7 load balancer with an idle
 * timeout does. It counts only bytes, so TCP keepalive probes (no payload) do not keep a connection
 * open here: only statements do. It reads the startup packet to know each connection's
 * application_name, so a test can say which of a storage's connections were cut.
 */
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';

export interface IdleCuttingProxy {
  /** The connection string through the proxy (the target's, with host and port replaced). */
  url: string;
  /** Connections cut so far, by application_name ('?' before the startup packet was read). */
  cuts(): Record<string, number>;
  close(): Promise<void>;
}

export async function startIdleCuttingProxy(target: string, idleMs: number): Promise<IdleCuttingProxy> {
  const upstream = new URL(target);
  const cut: Record<string, number> = {};
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const server = net.connect({ host: upstream.hostname, port: Number(upstream.port || 5432) });
    let role = '?';
    let last = Date.now();
    const moved = () => {
      last = Date.now();
    };
    // The startup packet may come in more than one chunk (a busy machine): gather it before reading it.
    let startup = Buffer.alloc(0);
    const readStartup = (chunk: Buffer) => {
      startup = Buffer.concat([startup, chunk]);
      if (startup.length < 4 || startup.length < startup.readInt32BE(0)) return;
      client.off('data', readStartup);
      role = applicationName(startup) ?? role;
    };
    client.on('data', readStartup);
    client.on('data', moved);
    server.on('data', moved);
    client.pipe(server).pipe(client);
    const timer = setInterval(
      () => {
        if (Date.now() - last < idleMs) return;
        cut[role] = (cut[role] ?? 0) + 1;
        client.destroy();
        server.destroy();
      },
      Math.max(10, Math.floor(idleMs / 10)),
    );
    const end = () => {
      clearInterval(timer);
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
    cuts: () => ({ ...cut }),
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** application_name from a v3 startup packet (length, protocol 196608, then name\0value\0 pairs). */
export function applicationName(packet: Buffer): string | undefined {
  if (packet.length < 8 || packet.readInt32BE(4) !== 196608) return undefined;
  const fields = packet.subarray(8, packet.readInt32BE(0)).toString('utf8').split('\0');
  const at = fields.indexOf('application_name');
  return at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
}
