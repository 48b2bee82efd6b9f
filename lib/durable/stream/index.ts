/**
 * Streaming. streamDurable (stream-durable.ts) is runDurable over streamText: stream-step.ts lets a step's
 * tool calls reach the loop only once the step is journaled; stream-log.ts keeps the run's UI message
 * stream in gnl.stream_chunks (writeStreamLog) and replays it to a client that reconnects (followRunStream).
 * An entry for readers and for code outside lib/durable; files of the core import each other directly, and
 * the public surface is lib/durable/index.ts.
 */
export { streamDurable, type StreamDurableOptions, type StreamDurableResult, type ResumableOptions } from './stream-durable';
export { answerMessageId, followRunStream, StreamSupersededError, type FollowRunStreamOptions } from './stream-log';
export { DEFAULT_FLUSH_MS, writeStreamLog } from './stream-log';
