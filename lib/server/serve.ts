/**
 * The HTTP API on its own, without the Studio's UI (`gnl serve`): node:http in front of the same handler
 * the Studio's Next route uses (api-handler.ts). Requests become web Requests (the body streamed, an
 * abort when the client goes away), answers are streamed back (the live follow included).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ApiContext } from './api-context';
import { createApi } from './api-handler';

export interface ServedApi {
  /** e.g. http://127.0.0.1:4020 (the API is under /api/v1). */
  url: string;
  close(): Promise<void>;
}

function webRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
}

async function send(response: Response, res: ServerResponse): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on('close', () => void reader.cancel().catch(() => undefined));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    // Each chunk leaves at once (an SSE message must not wait in a buffer).
    if (!res.write(value)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

/** Serves the API on `host:port` (port 0: one the kernel picks). */
export async function serveApi(context: ApiContext & { host?: string; port?: number }): Promise<ServedApi> {
  const api = createApi(context);
  const host = context.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    const origin = `http://${req.headers.host ?? host}`;
    let request: Request;
    try {
      request = webRequest(req, origin, aborted.signal);
    } catch (error) {
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end(`Bad request: ${(error as Error).message}`);
      return;
    }
    api
      .handle(request)
      .then((response) => send(response, res))
      .catch((error) => {
        console.error('gnl serve: answering failed:', error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
  });
  server.listen(context.port ?? 0, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
