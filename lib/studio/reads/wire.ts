/**
 * The journal as the browser receives it: plain JSON, the same whether it came with the page (server
 * components) or over the event stream. Browser-safe (no server-only import): components use its types.
 *
 * The journal's payloads go through json-codec and may hold Dates, bytes or bigints; JSON cannot, so
 * Dates become ISO strings (their toJSON), bigints `123n`, bytes a `[n bytes]` note. The Studio only
 * shows payloads, so nothing needs to be revived.
 *
 * Secrets never reach the browser: jsonSafe (and so toWireEvent, toWireRun and the inbox) replaces
 * every value the redaction list names, every credential-looking string and every encrypted envelope
 * with "•••• redacted" (lib/durable/secrets/secret-fields.ts, the browser-safe half of the journal's secrets
 * rules; GNL_SECRET_FIELDS adds names on the server).
 */
import type { JournalEvent, RecordedEvent, RunSummary } from '@/lib/durable';
import { redactingReplacer, type SecretFields, secretFieldsFromEnv } from '@/lib/durable/secrets';

/** A journal event as JSON: `at` is an ISO string, payload values are JSON values. */
export type WireEvent = JournalEvent & { seq: number; at: string };

export type WireEventOf<T extends WireEvent['type']> = Extract<WireEvent, { type: T }>;

/** A run summary as JSON: its dates as ISO strings. */
export type WireRun = Omit<RunSummary, 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };

export interface WireRunPage {
  runs: WireRun[];
  nextCursor?: string;
}

/**
 * JSON.stringify's replacer for journal payloads: what JSON cannot hold is described, never dropped
 * silently. A Map is shown as an object when its keys are all text (else as its [key, value] pairs), a
 * Set as a list: JSON.stringify would show either as `{}`.
 */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  if (value instanceof Map) {
    const entries = [...value];
    return entries.every(([key]) => typeof key === 'string') ? Object.fromEntries(entries) : entries;
  }
  if (value instanceof Set) return [...value];
  return value;
}

let fields: SecretFields | undefined;
function redactor(): (key: string, value: unknown) => unknown {
  fields ??= secretFieldsFromEnv(typeof process === 'undefined' ? {} : process.env);
  return redactingReplacer(fields);
}

/** A value as the JSON the browser will see: secrets redacted. */
export function jsonSafe<T>(value: T): T {
  const redact = redactor();
  const text = JSON.stringify(value, (key, item) => redact(key, jsonReplacer(key, item)));
  return (text === undefined ? undefined : JSON.parse(text)) as T;
}

export function toWireEvent(event: RecordedEvent): WireEvent {
  // A run-complete's answer (the SDK's result, what runDurable answers a later call with; no other event
  // has the field) repeats the run's own events: the Studio shows those, and the browser is not sent the run twice.
  const { answer: _answer, ...sent } = event as RecordedEvent & { answer?: unknown };
  return jsonSafe(sent) as unknown as WireEvent;
}

export function toWireRun(run: RunSummary): WireRun {
  return jsonSafe(run) as unknown as WireRun;
}
