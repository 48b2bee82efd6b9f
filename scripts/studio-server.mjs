/**
 * The Studio's HTTP server: Next's own request handler (the production build, as `next start` serves
 * it) behind a Node http server of ours, so that every request carries the client's address as the
 * Studio determined it (client-address.mjs) before Next sees it. scripts/studio.mjs starts it.
 *
 *   node scripts/studio-server.mjs --hostname 127.0.0.1 --port 3000
 */
import { createServer } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import next from 'next';
import { stampClientAddress, trustProxyFromEnv } from './client-address.mjs';

const { values } = parseArgs({ options: { hostname: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '3000' } } });
const hostname = values.hostname;
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  console.error(`studio-server: --port must be a port number, not ${JSON.stringify(values.port)}`);
  process.exit(2);
}
const trustProxy = trustProxyFromEnv();
const root = path.resolve(import.meta.dirname, '..');

// Every request this server hands Next carries the client's address as stamped below; the sign-in limit
// reads that header only when this is set (lib/studio/auth/client-address.ts): under a bare `next start` it is the client's.
process.env.GNL_CLIENT_ADDRESS_STAMPED = '1';
const app = next({ dev: false, dir: root, hostname, port });
const handle = app.getRequestHandler();
await app.prepare();

/** What a proxy says about the original request; from a client that is not the declared proxy, it is a lie. */
const PROXY_HEADERS = ['x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'forwarded'];

const server = createServer((request, response) => {
  stampClientAddress(request, { trustProxy });
  // Without GNL_STUDIO_TRUST_PROXY nobody's proxy headers count (Next then sets its own from the
  // connection); proxy.ts ignores X-Forwarded-Host then as well, for a Studio served by plain next start.
  if (!trustProxy) for (const name of PROXY_HEADERS) delete request.headers[name];
  handle(request, response).catch((error) => {
    console.error('studio-server: the request handler failed', error);
    if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
    response.end('Internal Server Error');
  });
});
server.on('error', (error) => {
  console.error(`studio-server: cannot listen on ${hostname}:${port}: ${error.message}`);
  process.exit(1);
});
server.listen(port, hostname, () => {
  console.log(
    `studio-server: ready on http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}` +
      (trustProxy ? ' (client addresses from the last X-Forwarded-For entry: GNL_STUDIO_TRUST_PROXY)' : ''),
  );
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    server.close(() => process.exit(0));
    // Open event streams keep connections alive: do not wait for them longer than this.
    setTimeout(() => process.exit(0), 5_000).unref();
  });
}
