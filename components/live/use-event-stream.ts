'use client';

import { useEffect, useRef, useState } from 'react';
import { isSigningOut } from './signing-out';

/** live: connected; connecting: (re)connecting, as after every stream's natural end; down: the browser gave up and we wait to try again. */
export type StreamStatus = 'connecting' | 'live' | 'down';

export interface EventStreamOptions {
  /** The stream's URL, asked at each (re)connect: it says where to resume. */
  url: () => string;
  /** Handlers by SSE event name; `data` is the parsed JSON. Return 'reconnect' to start over from url(). */
  handlers: Record<string, (data: unknown) => undefined | 'reconnect'>;
  /** Changing it closes the stream and opens a new one. */
  key: string;
}

const BACKOFF_MS = [500, 1_000, 2_000, 5_000, 10_000];

/**
 * An EventSource that stays up: the browser's own reconnect (with Last-Event-ID) after the server
 * ends a stream; our own, with backoff, when the browser gives up (an HTTP error while the server
 * restarts); and a watchdog that reconnects when the heartbeats stop (a half-open connection).
 */
export function useEventStream({ url, handlers, key }: EventStreamOptions): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const latest = useRef({ url, handlers });
  latest.current = { url, handlers };

  useEffect(() => {
    let source: EventSource | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let heartbeatMs = 15_000;
    let stopped = false;

    const armWatchdog = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => reconnect(), heartbeatMs * 2.5 + 2_000);
    };
    const reconnect = () => {
      source?.close();
      source = undefined;
      clearTimeout(retryTimer);
      if (!stopped) connect();
    };
    const connect = () => {
      setStatus('connecting');
      const es = new EventSource(latest.current.url());
      source = es;
      armWatchdog();
      es.onopen = () => {
        failures = 0;
        setStatus('live');
      };
      es.onerror = () => {
        if (es !== source) return;
        if (es.readyState === EventSource.CLOSED) {
          setStatus('down');
          es.close();
          source = undefined;
          retryTimer = setTimeout(connect, BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]);
        } else setStatus('connecting');
      };
      const listen = (name: string, handle: (data: unknown) => undefined | 'reconnect') =>
        es.addEventListener(name, (message) => {
          if (es !== source) return;
          armWatchdog();
          let data: unknown;
          try {
            data = JSON.parse((message as MessageEvent<string>).data);
          } catch {
            return;
          }
          if (handle(data) === 'reconnect') reconnect();
        });
      listen('hello', (data) => {
        const ms = (data as { heartbeatMs?: unknown })?.heartbeatMs;
        if (typeof ms === 'number' && ms > 0) heartbeatMs = ms;
        armWatchdog();
        return latest.current.handlers.hello?.(data);
      });
      listen('ping', () => undefined);
      // The session ended (signed out here or elsewhere, revoked, the account disabled): reconnecting
      // would only be refused, so the page goes to sign in, and back here after.
      listen('signed-out', () => {
        stopped = true;
        es.close();
        source = undefined;
        setStatus('down');
        // Signed out here: the sign-out's own redirect is on its way.
        if (isSigningOut()) return undefined;
        window.location.assign(`/sign-in?next=${encodeURIComponent(`${window.location.pathname}${window.location.search}`)}`);
        return undefined;
      });
      for (const name of Object.keys(latest.current.handlers)) {
        if (name !== 'hello' && name !== 'signed-out') listen(name, (data) => latest.current.handlers[name]?.(data));
      }
    };

    connect();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      clearTimeout(watchdog);
      source?.close();
    };
  }, [key]);

  return status;
}
