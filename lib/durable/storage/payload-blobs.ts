/**
 * Big values stored apart from their event row (docs/large-payloads.md).
 *
 * An event is encoded (json-codec) and its secrets sealed first; then any value inside its payload
 * whose encoded JSON is over BLOB_THRESHOLD_BYTES is cut out into `gnl.payloads`, keyed by the
 * SHA-256 of its JSON text, and replaced in the row by a reference `{ "$gnl": "blob", "h", "n" }`.
 * The rows and their blobs go in ONE statement (event-rows.ts), so an event never commits without
 * the bodies it names, and the same value written twice (two runs, one image) is one row.
 *
 * The reference reuses json-codec's tag key: the codec wraps every user object that has a `$gnl` key
 * (`{ $gnl: 'object', v }`), so an object with an own `$gnl` key anywhere but as such a `v` was written
 * by GNL. That `v` is the one place a user's `$gnl` key lives: it is never replaced by a reference
 * (its values may be), and a reader never takes it for one.
 *
 * Bottom-up: a big string (an image's base64, a long page) becomes a blob of its own; a container is
 * cut out only when what is left of it, references in place, is still over the threshold, and then
 * as a whole (its body holds its big children too, whose own blobs are dropped). So a body never
 * names another blob and a load resolves every reference with the rows it fetched in its one query.
 * The payload root stays in the row: the indexes and decisions read `payload->>'toolName'`, `'by'`…;
 * so do a run-start's `input`, which the run row copies and the agent filter reads (`input->>'agent'`),
 * and a model step's `result` (the Studio sums `payload->'result'->'usage'` in SQL).
 */
import { createHash } from 'node:crypto';
import { ENVELOPE_KEY } from '../internal';

/** A value over this many bytes of encoded JSON is stored apart. Named in docs/large-payloads.md. */
export const BLOB_THRESHOLD_BYTES = 64 * 1024;

const TAG = '$gnl';

export interface Blob {
  /** SHA-256 of `json` (UTF-8), hex. */
  hash: string;
  /** UTF-8 bytes of `json`. */
  bytes: number;
  /** The value's encoded JSON text. */
  json: string;
}

export interface BlobRef {
  [TAG]: 'blob';
  h: string;
  n: number;
}

/** What is left in the row (`{ type, payload }` JSON, references in place) and the bodies cut out. */
export interface Split {
  json: string;
  blobs: Blob[];
}

interface Part {
  /** The node's whole JSON text. */
  full: string;
  /** Its text as the row keeps it: big descendants as references. */
  row: string;
  rowBytes: number;
  blobs: Blob[];
}

/**
 * Splits one stored event. `json` is `{"type":…,"payload":…}` and `bytes` its UTF-8 size (both from
 * encodeEvent): an event under the threshold is returned as it is, at no cost but this comparison.
 */
export function splitEvent(event: { json: string; bytes: number; type: string; payload: unknown }): Split {
  if (event.bytes <= BLOB_THRESHOLD_BYTES) return { json: event.json, blobs: [] };
  const payload = splitRoot(event.payload, KEPT_IN_ROW[event.type] ?? []);
  return { json: `{"type":${JSON.stringify(event.type)},"payload":${payload.row}}`, blobs: payload.blobs };
}

/** Members of a payload that stay objects in the row (their own members may still be cut out), by event type. */
const KEPT_IN_ROW: Record<string, readonly string[]> = { 'run-start': ['input'], 'model-step': ['result'] };

/** Splits a value whose root (and the members named by `keepKeys`) must stay in place. */
export function splitRoot(value: unknown, keepKeys: readonly string[] = []): { row: string; blobs: Blob[] } {
  const part = walk(value, true, keepKeys);
  return { row: part.row, blobs: part.blobs };
}

function walk(node: unknown, keep: boolean, keepKeys: readonly string[] = []): Part {
  if (node === null || typeof node !== 'object') {
    const text = JSON.stringify(node) ?? 'null';
    return maybeBlob({ full: text, row: text, rowBytes: typeof node === 'string' ? Buffer.byteLength(text, 'utf8') : text.length, blobs: [] }, keep);
  }
  const tagged = !Array.isArray(node) && Object.hasOwn(node, TAG) && (node as Record<string, unknown>)[TAG] === 'object';
  // Loops, one frame a level (deep-json.test.ts: a value at MAX_JSON_DEPTH with a big leaf).
  const parts: [string | undefined, Part][] = [];
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) parts.push([undefined, walk(node[i], false)]);
  } else {
    const record = node as Record<string, unknown>;
    // The `v` of a tagged user object holds the user's own keys (a `$gnl` among them): kept in place.
    for (const key of Object.keys(record)) parts.push([key, walk(record[key], (tagged && key === 'v') || keepKeys.includes(key))]);
  }
  return maybeBlob(join(parts, Array.isArray(node)), keep);
}

function join(parts: [string | undefined, Part][], array: boolean): Part {
  // `+` builds V8 ropes: a parent's text shares its children's instead of copying them (join would flatten).
  let full = array ? '[' : '{';
  let row = full;
  let rowBytes = 2 + Math.max(parts.length - 1, 0);
  const blobs: Blob[] = [];
  parts.forEach(([key, part], i) => {
    const prefix = (i > 0 ? ',' : '') + (key === undefined ? '' : `${JSON.stringify(key)}:`);
    full += prefix + part.full;
    row += prefix + part.row;
    rowBytes += (key === undefined ? 0 : Buffer.byteLength(prefix, 'utf8') - (i > 0 ? 1 : 0)) + part.rowBytes;
    for (const blob of part.blobs) blobs.push(blob);
  });
  const close = array ? ']' : '}';
  return { full: full + close, row: row + close, rowBytes, blobs };
}

function maybeBlob(part: Part, keep: boolean): Part {
  if (keep || part.rowBytes <= BLOB_THRESHOLD_BYTES) return part;
  // Cut out whole: the body is the full text, so the descendants' own blobs are not needed.
  const blob: Blob = { hash: sha256(part.full), bytes: Buffer.byteLength(part.full, 'utf8'), json: part.full };
  const ref = JSON.stringify({ [TAG]: 'blob', h: blob.hash, n: blob.bytes } satisfies BlobRef);
  return { full: part.full, row: ref, rowBytes: ref.length, blobs: [blob] };
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The statement parameter for a write's blobs (each hash once), or null when it has none. */
export function blobsParameter(blobs: readonly Blob[]): string | null {
  if (blobs.length === 0) return null;
  const seen = new Set<string>();
  const items: string[] = [];
  for (const blob of blobs) {
    if (seen.has(blob.hash)) continue;
    seen.add(blob.hash);
    items.push(`{"h":"${blob.hash}","n":${blob.bytes},"b":${blob.json}}`);
  }
  return `[${items.join(',')}]`;
}

/** The hashes a row names (its `blobs` column), or null when it names none. */
export function hashesOf(blobs: readonly Blob[]): string[] | null {
  return blobs.length === 0 ? null : [...new Set(blobs.map((blob) => blob.hash))];
}

function isRef(node: unknown): node is BlobRef {
  return node !== null && typeof node === 'object' && !Array.isArray(node) && (node as Record<string, unknown>)[TAG] === 'blob';
}

/**
 * Visits a stored tree, replacing each reference with `replace(ref)`. `wrap(tagged)` may replace a
 * whole tagged value that holds references (a placeholder must not become the base64 of bytes).
 * Returns the same object when nothing changed.
 */
function mapRefs(node: unknown, replace: (ref: BlobRef) => unknown, wholeTagged?: (tagged: object) => unknown): unknown {
  if (node === null || typeof node !== 'object') return node;
  // Loops that call mapRefs directly, one frame a level: a value at MAX_JSON_DEPTH (Maps and Sets are
  // three levels each once encoded) is read on a fresh process's stack (deep-json.test.ts).
  if (Array.isArray(node)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < node.length; i++) {
      const item: unknown = node[i];
      const next = mapRefs(item, replace, wholeTagged);
      if (next !== item) {
        out ??= [...node];
        out[i] = next;
      }
    }
    return out ?? node;
  }
  if (isRef(node)) return replace(node);
  const record = node as Record<string, unknown>;
  const tag = Object.hasOwn(record, TAG) ? record[TAG] : Object.hasOwn(record, ENVELOPE_KEY) ? ENVELOPE_KEY : undefined;
  // A sealed secret's envelope is a tagged value too: a placeholder for its ciphertext could not be opened.
  if (tag !== undefined && tag !== 'object' && wholeTagged && containsRef(node)) return wholeTagged(node);
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = record[key];
    // A tagged user object's `v` is the user's own keys: map its values, never read it as a reference.
    const next =
      tag === 'object' && key === 'v' && item !== null && typeof item === 'object'
        ? mapValues(item, replace, wholeTagged)
        : mapRefs(item, replace, wholeTagged);
    if (next !== item) {
      out ??= { ...record };
      out[key] = next;
    }
  }
  return out ?? node;
}

function mapValues(record: object, replace: (ref: BlobRef) => unknown, wholeTagged?: (tagged: object) => unknown): object {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const item = (record as Record<string, unknown>)[key];
    const next = mapRefs(item, replace, wholeTagged);
    if (next !== item) {
      out ??= { ...record };
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true }); // a `__proto__` key stays a key
    }
  }
  return out ?? record;
}

function containsRef(node: unknown): boolean {
  let found = false;
  mapRefs(node, (ref) => {
    found = true;
    return ref;
  });
  return found;
}

/** Every hash a stored tree names. */
export function refsIn(node: unknown): string[] {
  const hashes = new Set<string>();
  mapRefs(node, (ref) => {
    hashes.add(ref.h);
    return ref;
  });
  return [...hashes];
}

/** The stored tree with its references replaced by their bodies; a body that was not found is a JournalDataError (thrown by `missing`). */
export function resolveRefs(node: unknown, bodies: ReadonlyMap<string, unknown>, missing: (hash: string) => never): unknown {
  return mapRefs(node, (ref) => (bodies.has(ref.h) ? bodies.get(ref.h) : missing(ref.h)));
}

/**
 * The stored tree with each big value shown as a placeholder string (listings, which must not fetch
 * megabytes per row): `[1.2 MiB stored apart, sha256 3f2a9c…]`. A tagged value holding one (bytes,
 * a Map…) becomes the placeholder as a whole.
 */
export function withBlobPlaceholders(node: unknown): unknown {
  const shown = (hash: string, bytes: number) => `[${formatBytes(bytes)} stored apart, sha256 ${hash.slice(0, 12)}…]`;
  return mapRefs(
    node,
    (ref) => shown(ref.h, ref.n),
    (tagged) => {
      let bytes = 0;
      let first = '';
      mapRefs(tagged, (ref) => {
        bytes += ref.n;
        first ||= ref.h;
        return ref;
      });
      return shown(first, bytes);
    },
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  return `${Math.round(bytes / 1024)} KiB`;
}
