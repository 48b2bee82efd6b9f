/**
 * The notifications guide's receiver (docs/notifications.md): a webhook endpoint in plain Node, no GNL
 * code, that verifies GNL-Signature, refuses stale timestamps and deduplicates by event id. The guide's
 * code block is the #region below; lib/executor/notifications/notifier.test.ts and notify-crash.test.ts run it as the
 * receiver of real deliveries.
 */
// #region receiver
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';

/**
 * True when `header` (`t=…,v1=…`) signs `rawBody` with `secret` and its timestamp is within
 * `toleranceSec` of now. During a key rotation the header carries two `v1=` (the new key's and the
 * old one's): either verifying is enough.
 */
export function verifyGnlSignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  toleranceSec = 300,
  nowSec = Date.now() / 1000,
): boolean {
  const parts = (header ?? '').split(',').map((part) => part.split('=', 2) as [string, string]);
  const t = Number(parts.find(([name]) => name === 't')?.[1]);
  const signatures = parts
    .filter(([name, value]) => name === 'v1' && /^[0-9a-f]{64}$/.test(value ?? ''))
    .map(([, value]) => Buffer.from(value, 'hex'));
  if (!Number.isInteger(t) || Math.abs(nowSec - t) > toleranceSec || signatures.length === 0)
    return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return signatures.some((signature) => timingSafeEqual(expected, signature));
}

/** Answers 200 to every verified delivery (also a repeat: GNL delivers at least once) and hands each event id to `onEvent` once. */
export function startReceiver(options: {
  port: number;
  secret: string;
  onEvent: (event: { id: string; type: string; run: { id: string } }) => void;
}): Server {
  const seen = new Set<string>(); // in production: a table with a unique key on the event id
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8'); // verify the bytes as sent, before parsing
      if (
        request.method !== 'POST' ||
        !verifyGnlSignature(
          options.secret,
          request.headers['gnl-signature'] as string | undefined,
          rawBody,
        )
      ) {
        response.writeHead(401).end();
        return;
      }
      const event = JSON.parse(rawBody);
      if (!seen.has(event.id)) {
        seen.add(event.id);
        options.onEvent(event);
      }
      response.writeHead(200).end();
    });
  }).listen(options.port, '127.0.0.1');
}
// #endregion
