/**
 * The journal's size limit per event, checked where events are encoded, before anything is written:
 * a run's whole history is read back on every resume, so one huge tool output must not make every
 * later resume slow (or a row the database refuses). Over the limit is a JournalDataError naming it;
 * a tool output over it becomes that call's tool error (journaled-tool.ts).
 */
import { JournalDataError } from './errors';
import type { JournalEvent } from './events';
import { encodeJson } from './json-codec';

/** Largest event the journal accepts: 1 MiB of UTF-8 JSON, after json-codec's encoding. Named in the README. */
export const MAX_EVENT_BYTES = 1024 * 1024;

/** The event as the JSON the journal stores (`{ type, payload }`); JournalDataError when it cannot be encoded or is over MAX_EVENT_BYTES. */
export function encodeEvent(event: JournalEvent): string {
  const { type, ...payload } = event;
  const json = JSON.stringify({ type, payload: encodeJson(payload) });
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_EVENT_BYTES) {
    throw new JournalDataError(
      `A ${type} event of ${formatBytes(bytes)} cannot be journaled: the limit is ${formatBytes(MAX_EVENT_BYTES)} per event (MAX_EVENT_BYTES). Nothing was written.`,
    );
  }
  return json;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB` : `${bytes} bytes`;
}
