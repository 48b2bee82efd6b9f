/**
 * Server-sent events as a web Response, for route handlers.
 *
 * - `Cache-Control: no-cache, no-transform`: no cache keeps a copy, and no proxy or compressor
 *   (Next's own gzip honours no-transform) holds bytes back; `X-Accel-Buffering: no` for nginx.
 * - A `ping` event every `heartbeatMs`: the browser learns that a quiet stream is alive (a watchdog
 *   there reconnects when pings stop), and idle-timeout proxies see traffic.
 * - A stream lives at most `maxMs`, then ends; the browser reconnects at once with Last-Event-ID, so a
 *   long-lived tab is moved to a fresh connection regularly (and the resume path is exercised daily,
 *   not only after failures).
 * - With `stillAuthorized`, each heartbeat first asks whether the stream's session is still on; once
 *   it is not (signed out, revoked, the account disabled) the stream sends `signed-out` and ends, and
 *   the browser's reconnect is refused (401). A failed check ends the stream too (fail closed).
 * Everything a stream holds (subscriptions, timers) is released when the browser goes away, the
 * stream reaches maxMs, its session ends, or `start` fails.
 */

import { takeStreamPlace } from './stream-limits';

export interface SseMessage {
  /** The SSE event name (addEventListener on the browser side). */
  event: string;
  /** JSON-encoded as the data line (JSON has no raw newlines, so one line suffices). */
  data: unknown;
  /** The event id the browser sends back as Last-Event-ID when it reconnects. */
  id?: string | number;
}

export interface SseChannel {
  send(message: SseMessage): void;
  /** True once the stream ended; sending then does nothing. */
  readonly closed: boolean;
}

export interface SseOptions {
  /** The request's signal: the browser went away. */
  signal: AbortSignal;
  /** Default 15 000 ms. */
  heartbeatMs?: number;
  /** Default 5 minutes. */
  maxMs?: number;
  /** How long the browser waits before reconnecting after the stream ends. Default 500 ms. */
  retryMs?: number;
  /** Asked on each heartbeat (session.ts sessionStillOn: cached, not a query per call); false ends the stream. */
  stillAuthorized?(): Promise<boolean>;
  /** Starts producing; resolves to what releases it. A rejection ends the stream (the browser reconnects). */
  start(channel: SseChannel): Promise<() => unknown>;
  /** Told about a failed start or release (the server's log). */
  onError?(error: unknown): void;
  /** Who opens it (an operator id): counted against the live-stream bounds (stream-limits.ts); past them the answer is 429. */
  holder?: string;
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
} as const;

export function formatSse(message: SseMessage): string {
  const id = message.id === undefined ? '' : `id: ${String(message.id).replace(/[\r\n]/g, '')}\n`;
  return `${id}event: ${message.event}\ndata: ${JSON.stringify(message.data)}\n\n`;
}

export function sseResponse(options: SseOptions): Response {
  const place = options.holder === undefined ? undefined : takeStreamPlace(options.holder);
  if (place && 'refused' in place)
    return Response.json({ error: place.refused }, { status: 429, headers: { 'Retry-After': '10', 'Cache-Control': 'no-store' } });
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxMs = options.maxMs ?? 5 * 60_000;
  const encoder = new TextEncoder();
  let finish: () => void = () => {};

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let closed = false;
      let release: (() => unknown) | undefined;
      const channel: SseChannel = {
        send(message) {
          if (closed) return;
          try {
            controller.enqueue(encoder.encode(formatSse(message)));
          } catch {
            finish(); // the stream was canceled under us
          }
        },
        get closed() {
          return closed;
        },
      };
      const ping = () => channel.send({ event: 'ping', data: { at: new Date().toISOString() } });
      const authorized = options.stillAuthorized;
      const heartbeat = setInterval(() => {
        if (!authorized) return ping();
        authorized().then(
          (on) => {
            if (on) return ping();
            channel.send({ event: 'signed-out', data: { message: 'Your session has ended: sign in again.' } });
            finish();
          },
          (error) => {
            options.onError?.(error);
            finish();
          },
        );
      }, heartbeatMs);
      const lifetime = setTimeout(() => finish(), maxMs);
      finish = () => {
        if (closed) return;
        closed = true;
        place?.release();
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        options.signal.removeEventListener('abort', finish);
        Promise.resolve()
          .then(() => release?.())
          .catch((error) => options.onError?.(error));
        try {
          controller.close();
        } catch {
          // already closed or canceled
        }
      };
      options.signal.addEventListener('abort', finish);
      if (options.signal.aborted) return finish();
      controller.enqueue(encoder.encode(`retry: ${options.retryMs ?? 500}\n\n`));
      channel.send({ event: 'hello', data: { heartbeatMs } });
      options.start(channel).then(
        (stop) => {
          release = stop;
          if (closed) Promise.resolve(stop()).catch((error) => options.onError?.(error));
        },
        (error) => {
          options.onError?.(error);
          finish();
        },
      );
    },
    cancel() {
      finish();
    },
  });
  return new Response(body, { headers: SSE_HEADERS });
}
