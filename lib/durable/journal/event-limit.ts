/**
 * The journal's limits, checked before anything is written.
 *
 * Size per event: 128 MiB of encoded JSON, so a run carries a 64 MiB value (an image or a PDF as base64
 * grows by a third) in one event. Values over 64 KiB are stored apart from the event row, by hash
 * (lib/durable/storage/payload-blobs.ts, docs/large-payloads.md), and count here. A run's whole
 * history is read back on every resume, and memory bounds what one process can hold and send (PGlite's
 * WASM heap most of all): over the limit is a JournalDataError naming the size, with `tooLarge` set; a
 * tool output over it becomes that call's tool error (journaled-tool.ts). An event is
 * encoded strictly (json-codec.ts): a value the journal could not give back (a function, a cycle,
 * nesting past MAX_JSON_DEPTH) is refused the same way, naming its path.
 *
 * Events per run: a run is replayed from its first event on every resume, so a loop that never ends
 * must stop somewhere. runDurable refuses to append past MAX_EVENTS_PER_RUN (or its maxEventsPerRun)
 * with RunEventLimitError; the run's failure is still recorded. A side effect starts only with room left
 * for its outcome, so one never executes with nowhere to record that it did. Operator decisions and
 * cancels are not counted against it, so a run at the limit can always be canceled.
 */
import { JournalDataError, RunEventLimitError } from '../errors';
import type { JournalEvent } from './events';
import { encodeJson, MAX_JSON_DEPTH } from './json-codec';

/** Largest event the journal accepts: 128 MiB of UTF-8 JSON, after json-codec's encoding (big values stored apart included). Named in docs/limits.md. */
export const MAX_EVENT_BYTES = 128 * 1024 * 1024;

/** Most events a run may hold, by default (runDurable's maxEventsPerRun). Named in docs/limits.md. */
export const MAX_EVENTS_PER_RUN = 100_000;

export { MAX_JSON_DEPTH };

/** The event as the JSON the journal stores (`{ type, payload }`); JournalDataError when it cannot be encoded or is over MAX_EVENT_BYTES. */
export function encodeEvent(event: JournalEvent): string {
  return encodeEventParts(event).json;
}

/** encodeEvent, with the encoded payload and the JSON's UTF-8 size beside it (storage cuts big values out of the payload). */
export function encodeEventParts(event: JournalEvent): { type: string; payload: unknown; json: string; bytes: number } {
  const { type, ...payload } = event;
  let encoded: unknown;
  try {
    encoded = encodeJson(payload, { strict: true });
  } catch (error) {
    if (!JournalDataError.isInstance(error)) throw error;
    throw new JournalDataError(`A ${type} event cannot be journaled: ${error.message} Nothing was written.`, { cause: error });
  }
  const json = JSON.stringify({ type, payload: encoded });
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_EVENT_BYTES) {
    throw new JournalDataError(
      `A ${type} event of ${formatBytes(bytes)} cannot be journaled: the limit is ${formatBytes(MAX_EVENT_BYTES)} per event (MAX_EVENT_BYTES). Nothing was written.`,
      { tooLarge: { eventType: type, bytes, limit: MAX_EVENT_BYTES } },
    );
  }
  return { type, payload: encoded, json, bytes };
}

/**
 * Throws RunEventLimitError when a run of `events` events cannot take `adding` more under `limit`, with
 * room left for `reserved` more (the outcomes of side effects started and not yet ended: run-session.ts).
 */
export function assertEventRoom(args: { runId: string; events: number; adding: number; reserved?: number; limit: number }): void {
  if (args.events + args.adding + (args.reserved ?? 0) > args.limit) throw new RunEventLimitError(args);
}

/** maxEventsPerRun as given to runDurable: a whole number of at least 2 (a start and one more event). */
export function eventLimitOption(value: unknown): number {
  if (value === undefined) return MAX_EVENTS_PER_RUN;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 2) {
    throw new JournalDataError(`maxEventsPerRun must be a whole number of at least 2, got ${String(value)}.`);
  }
  return value;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB` : `${bytes} bytes`;
}
