/**
 * A real HTTP webhook receiver for the notification suites, on a free port: it verifies each request's
 * GNL-Signature with the guide's own code (docs/examples/notify-receiver.ts) and keeps every request,
 * verified or not, so a test counts what really arrived (deduplicating is the receiver's job, not the test's).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyGnlSignature } from '@/docs/examples/notify-receiver';

export interface ReceivedWebhook {
  eventId: string | undefined;
  verified: boolean;
  body: unknown;
  raw: string;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Each request's headers, in order (a test that verifies a signature with another key reads them). */
  headers: IncomingHttpHeaders[];
  /** The verified requests' bodies for one event id. */
  deliveriesOf(eventId: string): unknown[];
  close(): Promise<void>;
}

/** `answer` gives the HTTP status of the n-th request (0-based); default 200. */
export async function startWebhookReceiver(secret: string, answer: (n: number) => number = () => 200): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const n = received.length;
      headers.push(request.headers);
      received.push({
        eventId: request.headers['gnl-event-id'] as string | undefined,
        verified: verifyGnlSignature(secret, request.headers['gnl-signature'] as string | undefined, raw),
        body: JSON.parse(raw),
        raw,
      });
      response.writeHead(answer(n)).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/gnl?token=not-shown`,
    received,
    headers,
    deliveriesOf: (eventId) => received.filter((r) => r.verified && r.eventId === eventId).map((r) => r.body),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
