/**
 * Reads a run's stream (GET /api/runs/<run>/stream, lib/studio/live/run-stream.ts) the way useChat does:
 * the SSE parsed by the AI SDK's own `parseJsonEventStream` against `uiMessageChunkSchema`, the chunks
 * folded into the answer by `readUIMessageStream`. Browser-safe.
 *
 * The fold is the SDK's; what it cannot say is tracked beside it from the chunks: whether the last step
 * is still being generated (a `start-step` without its `finish-step`: told to the fold as a
 * `message-metadata` chunk right after the boundary, so each snapshot carries it in order, and a new
 * step shows at once, before its first word), and whether the stream finished (its `finish` chunk: the
 * invocation is done) or was only cut (reconnect and replay from the start).
 */
import { parseJsonEventStream, readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai';

/** The metadata key the boundary is told under (kept out of the way of an answer's own metadata). */
const STEP_OPEN = 'gnl:stepOpen';

export interface RunStreamSnapshot {
  /** The answer so far: every step the invocation streamed, replayed ones included. */
  message: UIMessage;
  /** The last step has started and not finished: it is being generated now. */
  stepOpen: boolean;
}

export interface RunStreamOutcome {
  /** The stream's finish arrived: the invocation is done. False: cut, reconnect to replay. */
  finished: boolean;
  /** Snapshots delivered. */
  snapshots: number;
  /** The text of an `error` chunk the invocation wrote (its model stream failed), if any. */
  errorText?: string;
}

/**
 * Reads `body` to its end, telling `onSnapshot` the answer after each change. Rejects when the body
 * fails (a dropped connection) or holds a chunk that is not a UI message chunk.
 */
export async function readRunStream(args: { body: ReadableStream<Uint8Array>; onSnapshot: (snapshot: RunStreamSnapshot) => void }): Promise<RunStreamOutcome> {
  const outcome: RunStreamOutcome = { finished: false, snapshots: 0 };
  let failure: { error: unknown } | undefined;
  const parsed = parseJsonEventStream({ stream: args.body, schema: uiMessageChunkSchema }).getReader();
  const chunks = new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      try {
        const { done, value } = await parsed.read();
        if (done) return controller.close();
        if (!value.success) throw value.error;
        const chunk = value.value;
        if (chunk.type === 'finish') outcome.finished = true;
        else if (chunk.type === 'error') outcome.errorText = chunk.errorText;
        controller.enqueue(chunk);
        if (chunk.type === 'start-step' || chunk.type === 'finish-step') {
          controller.enqueue({ type: 'message-metadata', messageMetadata: { [STEP_OPEN]: chunk.type === 'start-step' } });
        }
      } catch (error) {
        failure = { error };
        controller.close();
      }
    },
    cancel(reason) {
      return parsed.cancel(reason);
    },
  });
  // Errors are counted above, not thrown by the fold: an `error` chunk is part of what was streamed.
  for await (const message of readUIMessageStream({ stream: chunks, onError: () => undefined })) {
    outcome.snapshots += 1;
    const meta = message.metadata as Record<string, unknown> | undefined;
    args.onSnapshot({ message, stepOpen: meta?.[STEP_OPEN] === true });
  }
  if (failure) throw failure.error;
  return outcome;
}
