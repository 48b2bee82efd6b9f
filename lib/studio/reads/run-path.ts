/**
 * A run's URL segment. Run ids may hold any printable character, and Next.js hands a dynamic segment
 * to the page percent-decoded on a full page load but still encoded on a client-side navigation
 * (seen with next 16.4.6), so percent-encoding cannot round-trip. This encoding never makes a `%`:
 * letters, digits and `_ - . : @` stay as they are (ids stay readable), every other UTF-8 byte becomes
 * `~XX`. A `%` in a segment can then only be percent-encoding added on the way (the browser encodes
 * `:` and `@`), which the decoder undoes once. An id of only dots is escaped whole, since a browser
 * resolves `.` and `..` segments away.
 */
const PLAIN = /^[A-Za-z0-9_.:@-]$/;
/** What no run id holds (lib/durable/identity/run-id.ts: control characters, lone surrogates; at most 512 characters). Kept here: this file is in the browser's bundle too. */
const NOT_IN_A_RUN_ID = /[\p{Cc}\p{Cs}]/u;
const MAX_RUN_ID_LENGTH = 512;

export function encodeRunSegment(runId: string): string {
  const allDots = /^\.+$/.test(runId);
  let out = '';
  for (const byte of new TextEncoder().encode(runId)) {
    const char = String.fromCharCode(byte);
    out += byte < 0x80 && PLAIN.test(char) && !(allDots && char === '.') ? char : `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The run id of a segment made by encodeRunSegment; undefined when the segment is not one. */
export function decodeRunSegment(received: string): string | undefined {
  let segment = received;
  if (segment.includes('%')) {
    try {
      segment = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  }
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i] as string;
    if (char === '~') {
      const hex = segment.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (PLAIN.test(char)) {
      bytes.push(char.charCodeAt(0));
    } else {
      return undefined;
    }
  }
  let runId: string;
  try {
    runId = new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
  // An id no run can have (a NUL or another control character, empty, too long) names no run: every route answers it 404.
  if (runId.length === 0 || [...runId].length > MAX_RUN_ID_LENGTH || NOT_IN_A_RUN_ID.test(runId)) return undefined;
  return runId;
}

/** The URL of a run's page. */
export function runHref(runId: string): string {
  return `/runs/${encodeRunSegment(runId)}`;
}
