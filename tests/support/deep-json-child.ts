/**
 * A child for deep-json.test.ts: values nested `depth` levels (objects and arrays, Maps and Sets, the
 * leaves Dates and bytes; and with a leaf over 64 KiB, which the storage cuts out of its row) through
 * everything a stored event goes through on its way in and out (the codec's strict encoding, the
 * storage's row and the bodies it stores apart, JSON text, the references resolved, the owned and copying
 * decodes, the canonical form, the sealing's scan for envelopes on read), on whatever stack the process
 * was started with (`--stack-size`). Prints one JSON line: `ok` and the kinds done, or the first error.
 */
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson } from '@/lib/durable/identity/canonical-json';
import { decodeJson, decodeOwnedJson, encodeJson } from '@/lib/durable/journal/json-codec';
import { JournalSecrets } from '@/lib/durable/sealing/secret-journal';
import { encodeStored } from '@/lib/durable/storage/event-rows';
import { resolveRefs } from '@/lib/durable/storage/payload-blobs';

const depth = Number(process.argv[2]);
const kinds: Record<string, () => unknown> = {
  objects: () => nest(depth, (inner, i) => (i % 2 ? { k: inner } : [inner]), new Date(0)),
  collections: () => nest(depth, (inner, i) => (i % 2 ? new Map([['k', inner]]) : new Set([inner])), new Uint8Array([1, 2])),
  'collections, a big leaf': () => nest(depth, (inner, i) => (i % 2 ? new Map([['k', inner]]) : new Set([inner])), 'x'.repeat(70_000)),
};
function nest(levels: number, wrap: (inner: unknown, i: number) => unknown, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = wrap(value, i);
  return value;
}

const secrets = new JournalSecrets();
const done: string[] = [];
let at = '';
const step = <T>(name: string, work: () => T): T => {
  at = name;
  return work();
};
try {
  for (const [kind, make] of Object.entries(kinds)) {
    const value = make();
    at = kind;
    const encoded = step(`${kind}: encodeJson`, () => encodeJson(value, { strict: true }));
    const text = JSON.stringify(encoded);
    step(`${kind}: canonicalJson`, () => canonicalJson(encoded));
    // As the journal stores it (its row, values over 64 KiB apart) and reads it back (references resolved).
    const event = { type: 'tool-call-end', toolCallId: 'c', toolName: 't', idempotencyKey: 'k', attempt: 1, output: value, durationMs: 0 };
    const stored = step(`${kind}: encodeStored`, () => encodeStored(event as never, 'run-deep', secrets));
    const bodies = new Map(stored.blobs.map((blob) => [blob.hash, JSON.parse(blob.json) as unknown]));
    const row = JSON.parse(stored.json) as { payload: { output: unknown } };
    const read = step(`${kind}: resolveRefs`, () =>
      resolveRefs(row.payload, bodies, (hash) => {
        throw new Error(`no body ${hash}`);
      }),
    ) as { output: unknown };
    if (bodies.size > 0 !== kind.includes('big')) throw new Error(`${kind}: ${bodies.size} values stored apart`);
    if (
      !sameNesting(
        step(`${kind}: decode the row`, () => decodeJson(read.output)),
        value,
      )
    )
      throw new Error(`${kind}: the stored row reads back different`);
    const opened = step(`${kind}: openEvent`, () => secrets.openEvent({ type: 'tool-call-end', output: JSON.parse(text) } as never, 'run-deep', 'deep-json'));
    const owned = step(`${kind}: decodeOwnedJson`, () => decodeOwnedJson((opened as { output: unknown }).output));
    const copied = step(`${kind}: decodeJson`, () => decodeJson(JSON.parse(text)));
    // The comparison walks both values on the same stack: the values are compared level by level instead.
    for (const [how, back] of [
      ['owned', owned],
      ['copying', copied],
    ] as const) {
      if (!sameNesting(back, value)) throw new Error(`${kind}: the ${how} decode differs`);
    }
    done.push(kind);
  }
  console.log(JSON.stringify({ ok: true, done }));
} catch (error) {
  console.log(JSON.stringify({ ok: false, done, at, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }));
}

/** Equal, compared one level at a time in a loop (each level's container of one member, then its member). */
function sameNesting(back: unknown, value: unknown): boolean {
  let a = back;
  let b = value;
  for (;;) {
    if (Array.isArray(b) && Array.isArray(a) && a.length === 1 && b.length === 1) [a, b] = [a[0], b[0]];
    else if (b instanceof Set && a instanceof Set && a.size === 1 && b.size === 1) [a, b] = [[...a][0], [...b][0]];
    else if (b instanceof Map && a instanceof Map && a.size === 1 && b.size === 1 && a.has('k')) [a, b] = [a.get('k'), b.get('k')];
    else if (isPlainOne(b) && isPlainOne(a)) [a, b] = [(a as { k: unknown }).k, (b as { k: unknown }).k];
    else return isDeepStrictEqual(a, b);
  }
}

function isPlainOne(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && Object.keys(value).length === 1 && 'k' in value;
}
