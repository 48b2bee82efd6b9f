/**
 * The stream log: what an invocation streamed, kept beside the journal so that a client that reconnects
 * (a reload, a dropped connection, a restarted server) gets the same answer again, without a gap and
 * without repeating text. No second store: the batches are rows in the journal's database, announced on
 * the journal's notification channel (storage/stream-rows.ts).
 *
 * What is written: each invocation's UI message stream (the chunks `toUIMessageStream()` makes, the
 * ones `useChat` reads), in batches of at most `flushMs` of chunks (default 40 ms), the last one marked
 * done. Every invocation streams the whole answer from its `start` chunk: the recorded steps come out
 * at once (replayed), then the live ones. So a reader needs one invocation's batches only, the newest;
 * the batches of older invocations are deleted once a newer one is done.
 *
 * What is left out, on purpose: `tool-input-delta` chunks (a call's arguments as they are typed, which
 * cannot be redacted until they are whole; the call's whole input follows in `tool-input-available`),
 * and text deltas are merged within a batch. The log is not the record: an unfinished step's text in it
 * is what the model had said when the process died, and the resume asks the model for that step again.
 *
 * Reading: followRunStream replays the newest invocation's batches and follows them live until its
 * done batch. When a newer invocation starts while one is followed (the old one's process died, another
 * took the run over), the stream ends with StreamSupersededError: the client reconnects and replays the
 * newer one from its start (useChat's default for a resumed stream is a full replay).
 */
import type { UIMessageChunk } from 'ai';
import { GnlError } from '../errors';
import type { LiveJournal, RunHold, StreamBatch, Subscription } from '../journal/journal';

export const DEFAULT_FLUSH_MS = 40;
/** How often a follower that has heard nothing looks at the run's status (a writer may have died). */
export const DEFAULT_IDLE_CHECK_MS = 2000;
const MAX_BUFFERED_CHUNKS = 500;

/** The message id every invocation of a run gives its answer: a replay rebuilds the same message. */
export function answerMessageId(runId: string): string {
  return `gnl:${runId}`;
}

/**
 * Writes `stream` to the run's stream log through `hold` (only the run's holder writes). Resolves when
 * the done batch is written (or the writing failed: told to `onError`, and the stream is still read to
 * its end so the run never waits on a reader that stopped).
 */
export async function writeStreamLog(args: {
  /** The invocation's hold; a session that takes its hold again (run-session.ts) passes one that follows it. */
  hold: Pick<RunHold, 'runId' | 'appendStream'>;
  stream: ReadableStream<UIMessageChunk>;
  invocation: string;
  flushMs?: number;
  onError?: (error: unknown) => void;
}): Promise<void> {
  const { hold, stream, invocation } = args;
  const flushMs = args.flushMs ?? DEFAULT_FLUSH_MS;
  // One write in flight per stream, at most one every flushMs: under load, chunks wait in the buffer and
  // go out merged in the next batch instead of queuing statements behind each other (bench figure 7).
  let buffer: UIMessageChunk[] = [];
  let batch = 0;
  let failed = false;
  let ended = false;
  /** The done batch was written (or tried): nothing is written after it. */
  let closed = false;
  let writing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let lastWriteAt = 0;
  const writeNow = async () => {
    timer = undefined;
    while (!failed && !closed && (buffer.length > 0 || ended)) {
      const done = ended;
      const chunks = mergeDeltas(buffer);
      buffer = [];
      const number = batch++;
      lastWriteAt = Date.now();
      try {
        await hold.appendStream({ invocation, batch: number, chunks, done });
      } catch (error) {
        failed = true;
        args.onError?.(
          new GnlError(`The stream of run "${hold.runId}" could not be written (batch ${number}); a reconnecting client sees it only up to there.`, {
            cause: error,
          }),
        );
      }
      if (done) {
        closed = true;
        return;
      }
      // More arrived meanwhile: it waits for the rest of its flush interval (or goes at once at the end).
      if (buffer.length > 0 && !ended) {
        const wait = flushMs - (Date.now() - lastWriteAt);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  };
  const schedule = () => {
    if (writing || timer) return;
    timer = setTimeout(() => {
      writing = writeNow().finally(() => {
        writing = undefined;
        if (buffer.length > 0 && !failed && !ended) schedule();
      });
    }, flushMs);
  };
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'tool-input-delta' || failed) continue;
      buffer.push(value);
      if (buffer.length >= MAX_BUFFERED_CHUNKS && !writing) {
        clearTimeout(timer);
        timer = undefined;
        writing = writeNow().finally(() => {
          writing = undefined;
        });
      } else schedule();
    }
  } catch (error) {
    buffer.push({ type: 'error', errorText: error instanceof Error ? error.message : String(error) });
  } finally {
    reader.releaseLock();
  }
  ended = true;
  while (writing) await writing;
  clearTimeout(timer);
  timer = undefined;
  if (!failed) await writeNow();
}

/** Consecutive text and reasoning deltas of one part, merged: fewer, larger chunks, the same text. */
function mergeDeltas(chunks: UIMessageChunk[]): UIMessageChunk[] {
  const merged: UIMessageChunk[] = [];
  for (const chunk of chunks) {
    const last = merged[merged.length - 1];
    if (
      last &&
      (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') &&
      last.type === chunk.type &&
      last.id === chunk.id &&
      !chunk.providerMetadata &&
      !last.providerMetadata
    ) {
      merged[merged.length - 1] = { ...last, delta: last.delta + chunk.delta };
    } else merged.push(chunk);
  }
  return merged;
}

/** The followed invocation was replaced by a newer one (the old one's process died): reconnect to read the newer from its start. */
export class StreamSupersededError extends GnlError {
  readonly runId: string;
  constructor(args: { runId: string; invocation: string; by: string }) {
    super(
      `The stream of run "${args.runId}" was taken over by a newer invocation (${args.by} after ${args.invocation}); reconnect to replay it from its start.`,
    );
    this.name = 'StreamSupersededError';
    this.runId = args.runId;
  }
  static override isInstance = (error: unknown): error is StreamSupersededError => GnlError.isInstance(error) && error.name === 'StreamSupersededError';
}

export interface FollowRunStreamOptions {
  journal: LiveJournal;
  runId: string;
  /**
   * What the caller expects: 'replay' reads the newest invocation's stream as it is (whole if it is done,
   * followed live if not); 'next' (a run that is about to run again: a resume, a new turn) skips a done
   * stream and waits for the next invocation's, unless the run settles without one. Default 'replay'.
   */
  from?: 'replay' | 'next';
  /** Stops following (the response was closed): the stream ends. */
  signal?: AbortSignal;
  idleCheckMs?: number;
}

/**
 * The run's stream as a UI message stream: `createUIMessageStreamResponse({ stream })` serves it. Ends
 * after the followed invocation's done batch; or, when the run is no longer running and its invocation
 * wrote no done batch (its process died after the run settled, or it was canceled meanwhile), with a
 * finish chunk after two idle checks.
 */
export function followRunStream(options: FollowRunStreamOptions): ReadableStream<UIMessageChunk> {
  const { journal, runId, signal } = options;
  const idleCheckMs = options.idleCheckMs ?? DEFAULT_IDLE_CHECK_MS;
  let invocation: string | undefined;
  /** Batches at or below this id are not read again. */
  let afterId = 0;
  /** The newest done stream when it is skipped ('next'): replayed if the run settles without a newer one. */
  let skipped: StreamBatch[] | undefined;
  let started = false;
  /** The first read: only there does a done stream mean the one that was finished when the reader came ('next'). */
  let firstRead = true;
  let ended = false;
  let reading: Promise<void> | undefined;
  let again = false;
  let idleChecks = 0;
  let subscription: Subscription | undefined;
  let checkTimer: NodeJS.Timeout | undefined;
  let controller!: ReadableStreamDefaultController<UIMessageChunk>;

  const end = (error?: unknown) => {
    if (ended) return;
    ended = true;
    clearInterval(checkTimer);
    void subscription?.close();
    if (error) controller.error(error);
    else controller.close();
  };
  const emit = (batches: StreamBatch[]) => {
    for (const batch of batches) {
      for (const chunk of batch.chunks as UIMessageChunk[]) controller.enqueue(chunk);
      afterId = Math.max(afterId, batch.id);
      if (batch.done) return end();
    }
  };
  const readAll = async (): Promise<StreamBatch[]> => {
    const all: StreamBatch[] = [];
    for (;;) {
      const page = await journal.streamBatches(runId, { afterId: all.length ? (all[all.length - 1] as StreamBatch).id : afterId, limit: 1000 });
      all.push(...page);
      if (page.length < 1000) return all;
    }
  };
  const readOnce = async () => {
    const batches = await readAll();
    const first = firstRead;
    firstRead = false;
    if (ended || batches.length === 0) return;
    idleChecks = 0;
    if (invocation === undefined) {
      const newest = (batches[batches.length - 1] as StreamBatch).invocation;
      const own = batches.filter((batch) => batch.invocation === newest);
      afterId = (batches[batches.length - 1] as StreamBatch).id;
      if (options.from === 'next' && first && own.some((batch) => batch.done)) {
        skipped = own;
        return;
      }
      invocation = newest;
      started = true;
      emit(own);
      return;
    }
    for (const batch of batches) {
      if (ended) return;
      if (batch.invocation !== invocation) return end(new StreamSupersededError({ runId, invocation, by: batch.invocation }));
      emit([batch]);
    }
  };
  const wake = () => {
    if (ended) return;
    if (reading) {
      again = true;
      return;
    }
    reading = (async () => {
      do {
        again = false;
        try {
          await readOnce();
        } catch (error) {
          return end(error);
        }
      } while (again && !ended);
    })().finally(() => {
      reading = undefined;
    });
  };
  const idleCheck = async () => {
    if (ended || reading) return;
    let status: string | undefined;
    try {
      status = (await journal.getRun(runId))?.status;
    } catch {
      return; // the journal is away: the next check asks again
    }
    if (status === undefined || status === 'running') {
      idleChecks = 0;
      return;
    }
    // Settled, and the followed invocation (if any) wrote no done batch: once more, then end.
    if (++idleChecks < 2) return wake();
    if (!started && skipped) {
      started = true;
      invocation = skipped[0]?.invocation;
      return emit(skipped);
    }
    if (started) controller.enqueue({ type: 'finish' });
    end();
  };

  return new ReadableStream<UIMessageChunk>({
    async start(c) {
      controller = c;
      if (signal?.aborted) return end();
      signal?.addEventListener('abort', () => end(), { once: true });
      subscription = await journal.watchStream({ runId, onWake: wake, onError: () => undefined });
      checkTimer = setInterval(() => void idleCheck(), idleCheckMs);
      checkTimer.unref?.();
      wake();
    },
    cancel() {
      ended = true;
      clearInterval(checkTimer);
      void subscription?.close();
    },
  });
}
