'use client';

import { useEffect, useRef, useState } from 'react';
import { encodeRunSegment } from '@/lib/studio/reads/run-path';
import { type RunStreamSnapshot, readRunStream } from '@/lib/studio/reads/run-stream-reader';

const BACKOFF_MS = [250, 500, 1_000, 2_000, 4_000];

/**
 * Follows a run's answer while it runs (GET /api/runs/<run>/stream): the newest snapshot, or undefined
 * before the first one and once the run leaves running. Not a cache writer: what it shows is the log
 * beside the journal, never the journal itself (useRunLive keeps that).
 *
 * Reconnects: after a finish, for the next invocation's stream (`?from=next`, asked again when cut
 * before it came); after a cut (a newer invocation took over, the stream's lifetime, a dropped
 * connection), replaying from the start, with backoff while nothing comes; a 204 (nothing streamed yet)
 * is asked again with backoff. A run that
 * turns running on this page (a resume after a decision) asks for the next stream at once, not the
 * finished one before it. Stops when the run leaves running, or on a 401 (the event stream takes the
 * page to sign in).
 */
export function useLiveStep(runId: string, running: boolean): RunStreamSnapshot | undefined {
  const [snapshot, setSnapshot] = useState<RunStreamSnapshot>();
  const settledBefore = useRef(!running);
  useEffect(() => {
    if (!running) {
      settledBefore.current = true;
      setSnapshot(undefined);
      return;
    }
    const stop = new AbortController();
    void follow({ runId, from: settledBefore.current ? 'next' : 'replay', signal: stop.signal, onSnapshot: setSnapshot });
    return () => stop.abort();
  }, [runId, running]);
  return running ? snapshot : undefined;
}

async function follow(args: { runId: string; from: 'replay' | 'next'; signal: AbortSignal; onSnapshot: (s: RunStreamSnapshot) => void }) {
  const { signal } = args;
  const url = `/api/runs/${encodeRunSegment(args.runId)}/stream`;
  let from = args.from;
  let failures = 0;
  while (!signal.aborted) {
    let finished = false;
    let delivered = false;
    try {
      const response = await fetch(from === 'next' ? `${url}?from=next` : url, { signal, cache: 'no-store', headers: { accept: 'text/event-stream' } });
      if (response.status === 401) return;
      if (response.ok && response.status !== 204 && response.body) {
        const outcome = await readRunStream({ body: response.body, onSnapshot: (s) => signal.aborted || args.onSnapshot(s) });
        finished = outcome.finished;
        delivered = outcome.snapshots > 0;
        if (delivered) failures = 0;
      }
    } catch {
      // A dropped connection, a restarting server: asked again below.
    }
    if (signal.aborted) return;
    // A wait for the next stream that was cut before it came waits again; any other cut replays.
    if (finished) {
      from = 'next';
      failures = 0;
      continue;
    }
    if (delivered) from = 'replay';
    await pause(BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)] as number, signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
