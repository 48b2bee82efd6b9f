/**
 * The Studio's live streams, fed by the journal's notifications (LiveJournal.subscribe / watchRuns).
 * Server-only. The journal guarantees each event once and in order after a sequence number; the
 * stream keeps that across connections by using the sequence number as the SSE event id, so a
 * browser that reconnects (Last-Event-ID) after a dropped connection or a restarted server continues
 * exactly after the last event it received.
 *
 *   /api/runs/<run>/events   `events` (a batch, id = its last seq), `run` (the summary after a batch)
 *   /api/events              `run` (a run's summary whenever it gained events), `resync` (the journal's
 *                            listener reconnected: changes may be missed, re-read what you show)
 * Both send `hello` on connect (the browser re-reads its lists then) and `ping` heartbeats; each
 * heartbeat re-checks the session (sse.ts stillAuthorized), and a signed-out session's stream ends.
 */
import 'server-only';
import { storageFromEnv } from '@/lib/durable/storage';
import { logText } from '../log-text';
import { sendEventBatches } from './event-batches';
import { sseResponse } from './sse';
import { toWireRun } from '../reads/wire';

/** Stream settings: GNL_STUDIO_HEARTBEAT_MS (default 15 s) and GNL_STUDIO_STREAM_MAX_MS (default 5 min). */
export function streamSettings(): { heartbeatMs: number; maxMs: number } {
  const read = (name: string, fallback: number) => {
    const n = Number(process.env[name]);
    return Number.isFinite(n) && n >= 100 ? n : fallback;
  };
  return { heartbeatMs: read('GNL_STUDIO_HEARTBEAT_MS', 15_000), maxMs: read('GNL_STUDIO_STREAM_MAX_MS', 5 * 60_000) };
}

export function logError(where: string) {
  return (error: unknown) => console.error(`studio: ${logText(where)}: ${logText(error)}`);
}

/** Calls `task` now, or once more after the running call when asked during it (never two at once). */
function coalesced(task: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  const go = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    task()
      .catch(logError('stream read'))
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          go();
        }
      });
  };
  return go;
}

/** One run's journal after `afterSeq`, then live. The caller checked that the run exists. */
export function runEventsResponse(args: {
  runId: string;
  afterSeq: number;
  signal: AbortSignal;
  stillAuthorized(): Promise<boolean>;
  holder?: string;
}): Response {
  const { runId, afterSeq, signal } = args;
  return sseResponse({
    ...streamSettings(),
    signal,
    stillAuthorized: args.stillAuthorized,
    ...(args.holder !== undefined ? { holder: args.holder } : {}),
    onError: logError(`event stream of ${runId}`),
    async start(channel) {
      const journal = storageFromEnv().runs;
      const sendSummary = coalesced(async () => {
        const run = await journal.getRun(runId);
        if (run) channel.send({ event: 'run', data: toWireRun(run) });
      });
      sendSummary();
      const subscription = await journal.subscribe({
        runId,
        afterSeq,
        onEvents: (events) => {
          sendEventBatches(channel, events);
          sendSummary();
        },
        onError: logError(`following ${runId}`),
      });
      return () => subscription.close();
    },
  });
}

/** Every run's summary as it changes. */
export function runsEventsResponse(args: { signal: AbortSignal; stillAuthorized(): Promise<boolean>; holder?: string }): Response {
  return sseResponse({
    ...streamSettings(),
    signal: args.signal,
    stillAuthorized: args.stillAuthorized,
    ...(args.holder !== undefined ? { holder: args.holder } : {}),
    onError: logError('runs stream'),
    async start(channel) {
      const journal = storageFromEnv().runs;
      const changed = new Set<string>();
      const flush = coalesced(async () => {
        const runIds = [...changed];
        changed.clear();
        for (const runId of runIds) {
          const run = await journal.getRun(runId);
          if (run) channel.send({ event: 'run', data: toWireRun(run) });
        }
      });
      const watch = await journal.watchRuns({
        onChange: ({ runId }) => {
          changed.add(runId);
          flush();
        },
        onResync: () => channel.send({ event: 'resync', data: {} }),
        onError: logError('watching runs'),
      });
      return () => watch.close();
    },
  });
}

const SEQ = /^\d{1,9}$/;

/** Where a run's stream starts: after the browser's Last-Event-ID when it reconnects, else after `?after=`, else from the first event. */
export function resumeAfter(request: Request): number {
  const lastEventId = request.headers.get('last-event-id')?.trim();
  if (lastEventId && SEQ.test(lastEventId)) return Number(lastEventId);
  const after = new URL(request.url).searchParams.get('after');
  return after && SEQ.test(after) ? Number(after) : 0;
}
