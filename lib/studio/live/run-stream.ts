/**
 * A run's answer as it streams, for the run page's live step: the run's stream log (followRunStream,
 * lib/durable/stream/stream-log.ts) served as the AI SDK serves a UI message stream (createUIMessageStreamResponse),
 * so the browser reads it with the SDK's own parser (run-stream-reader.ts). Server-only.
 *
 *   GET /api/runs/<run>/stream           the newest invocation's stream from its start, then live
 *   GET /api/runs/<run>/stream?from=next a done stream is skipped: the next invocation's (after a finish)
 *
 * 204 when the run has streamed nothing (not yet, or it ran before streams were kept). The response
 * ends after the invocation's finish; without one (a newer invocation took over, the stream's lifetime
 * ran out, the session ended, the journal failed) it just ends, and the browser replays from the start:
 * a cut never errors the body, so a reader tells "the answer is whole" (a finish) from "reconnect"
 * (none) by the chunks alone. Like the journal's streams (live.ts) it lives at most
 * GNL_STUDIO_STREAM_MAX_MS, sends a keep-alive comment every GNL_STUDIO_HEARTBEAT_MS, and asks on each
 * heartbeat whether its session is still on.
 */
import 'server-only';
import { createUIMessageStreamResponse, type UIMessageChunk } from 'ai';
import { followRunStream, type LiveJournal, StreamSupersededError } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { logError, streamSettings } from './live';

export type RunStreamFrom = 'replay' | 'next';

/** `?from=next` as followRunStream's 'next'; anything else replays. */
export function runStreamFrom(request: Request): RunStreamFrom {
  return new URL(request.url).searchParams.get('from') === 'next' ? 'next' : 'replay';
}

export interface RunStreamResponseOptions {
  runId: string;
  /** Default 'replay'. */
  from?: RunStreamFrom;
  /** The request's signal: the browser went away. */
  signal: AbortSignal;
  /** Asked on each heartbeat; false (or a failed check) ends the stream. Default: always on. */
  stillAuthorized?(): Promise<boolean>;
  /** Default: the environment's journal (storageFromEnv). */
  journal?: LiveJournal;
  /** Default GNL_STUDIO_HEARTBEAT_MS (15 s). */
  heartbeatMs?: number;
  /** Default GNL_STUDIO_STREAM_MAX_MS (5 min). */
  maxMs?: number;
  /** How often followRunStream looks at a quiet run's status. Default its own (2 s). */
  idleCheckMs?: number;
  /**
   * The chat's way (followAnswer): no lifetime, and a stream cut by anything but the reader (a newer
   * invocation took over, the journal failed) errors, so useChat reconnects and replays the answer whole;
   * a quiet end would read as the whole answer. Only a session that ended closes it quietly.
   */
  untilAnswered?: boolean;
}

export async function runStreamResponse(options: RunStreamResponseOptions): Promise<Response> {
  const journal = options.journal ?? storageFromEnv().runs;
  if ((await journal.streamBatches(options.runId, { limit: 1 })).length === 0) {
    return new Response(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
  }
  const heartbeatMs = options.heartbeatMs ?? streamSettings().heartbeatMs;
  const stream = followAnswer({ ...options, journal, heartbeatMs });
  return createUIMessageStreamResponse({ stream, keepAliveMs: heartbeatMs, headers: { 'Cache-Control': 'no-cache, no-transform' } });
}

/**
 * The run's answer followed as this module serves it: ended (closed, never errored) by its own end, the
 * browser going away, the lifetime, or a session no longer on (asked on each heartbeat). The chat's
 * routes serve their turns' answers through it too, `untilAnswered`: the session re-checked the same way.
 */
export function followAnswer(options: RunStreamResponseOptions): ReadableStream<UIMessageChunk> {
  const settings = streamSettings();
  const stop = new AbortController();
  const followed = followRunStream({
    journal: options.journal ?? storageFromEnv().runs,
    runId: options.runId,
    from: options.from ?? 'replay',
    signal: stop.signal,
    ...(options.idleCheckMs ? { idleCheckMs: options.idleCheckMs } : {}),
  });
  return endingQuietly(followed, {
    stop,
    signal: options.signal,
    heartbeatMs: options.heartbeatMs ?? settings.heartbeatMs,
    maxMs: options.untilAnswered ? undefined : (options.maxMs ?? settings.maxMs),
    stillAuthorized: options.stillAuthorized,
    runId: options.runId,
    passErrors: options.untilAnswered === true,
  });
}

/**
 * `followed`, ended (closed, never errored) by the first of: its own end, an error (logged), the
 * browser going away, the lifetime, a session that is no longer on. `passErrors`: an error it was not
 * asked for (not the reader's going, not the session's end) errors the stream instead; no lifetime when `maxMs` is undefined.
 */
function endingQuietly(
  followed: ReadableStream<UIMessageChunk>,
  args: {
    stop: AbortController;
    signal: AbortSignal;
    heartbeatMs: number;
    maxMs: number | undefined;
    stillAuthorized?: () => Promise<boolean>;
    runId: string;
    passErrors?: boolean;
  },
): ReadableStream<UIMessageChunk> {
  const { stop, signal } = args;
  const reader = followed.getReader();
  const abort = () => stop.abort();
  const lifetime = args.maxMs === undefined ? undefined : setTimeout(abort, args.maxMs);
  const authorized = args.stillAuthorized;
  const heartbeat = authorized
    ? setInterval(() => {
        authorized().then(
          (on) => {
            if (!on) abort();
          },
          (error) => {
            logError(`stream of ${args.runId}`)(error);
            abort();
          },
        );
      }, args.heartbeatMs)
    : undefined;
  const release = () => {
    clearTimeout(lifetime);
    clearInterval(heartbeat);
    signal.removeEventListener('abort', abort);
    abort();
  };
  signal.addEventListener('abort', abort, { once: true });
  if (signal.aborted) abort();
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
      } catch (error) {
        if (args.passErrors && !stop.signal.aborted) {
          release();
          return controller.error(error);
        }
        // A newer invocation took over is expected (the browser replays the newer one); anything else is logged.
        // instanceof, not StreamSupersededError.isInstance: that one is GnlError's, true for every GnlError.
        if (!(error instanceof StreamSupersededError)) logError(`stream of ${args.runId}`)(error);
      }
      release();
      controller.close();
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
}
