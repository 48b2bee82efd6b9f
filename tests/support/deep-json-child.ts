/**
 * A child for deep-json.test.ts: values nested `depth` levels (objects and arrays, Maps and Sets, the
 * leaves Dates and bytes; and with a leaf over 64 KiB, which the storage cuts out of its row) through
 * everything a stored event goes through on its way in and out (the codec's strict encoding, the
 * storage's row and the bodies it stores apart, JSON text, the references resolved, the owned and copying
 * decodes, the canonical form, the sealing of a secret at the bottom and its opening), in the order the
 * journal does them, on whatever stack the process was started with (`--stack-size`). Prints one JSON
 * line: `ok` and the kinds done, or the first error.
 */
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { canonicalJson } from '@/lib/durable/identity/canonical-json';
import { decodeJson, decodeOwnedJson, encodeJson } from '@/lib/durable/journal/json-codec';
import { journalKeyFrom } from '@/lib/durable/sealing/secret-box';
import { JournalSecrets } from '@/lib/durable/sealing/secret-journal';
import { encodeStored } from '@/lib/durable/storage/event-rows';
import { resolveRefs } from '@/lib/durable/storage/payload-blobs';

const depth = Number(process.argv[2]);
const SECRET = 'pw-at-the-bottom-4d2c';
const kinds: Record<string, () => unknown> = {
  objects: () => nest(depth, (inner, i) => (i % 2 ? { k: inner } : [inner]), new Date(0)),
  collections: () => nest(depth, (inner, i) => (i % 2 ? new Map([['k', inner]]) : new Set([inner])), new Uint8Array([1, 2])),
  'collections, a big leaf': () => nest(depth, (inner, i) => (i % 2 ? new Map([['k', inner]]) : new Set([inner])), 'x'.repeat(70_000)),
  // The leaf is a level, and its sealed value (an envelope object) one more.
  'objects, a secret at the bottom': () => nest(depth - 2, (inner, i) => (i % 2 ? { k: inner } : [inner]), { password: SECRET }),
  'collections, a secret at the bottom': () => nest(depth - 2, (inner, i) => (i % 2 ? new Map([['k', inner]]) : new Set([inner])), { password: SECRET }),
};
function nest(levels: number, wrap: (inner: unknown, i: number) => unknown, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = wrap(value, i);
  return value;
}

// With a journal key: a secret at the bottom is sealed on the way in and opened on the way out.
const secrets = new JournalSecrets({ key: journalKeyFrom(randomBytes(32).toString('base64')), onClearText: () => {} });
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
    step(`${kind}: canonicalJson`, () => canonicalJson(encoded));
    // As the journal stores it (secrets sealed, its row, values over 64 KiB apart) and reads it back
    // (readEvents: references resolved into the row, the row decoded, then its envelopes opened).
    const event = { type: 'tool-call-end', toolCallId: 'c', toolName: 't', idempotencyKey: 'k', attempt: 1, output: value, durationMs: 0 };
    const stored = step(`${kind}: encodeStored`, () => encodeStored(event as never, 'run-deep', secrets));
    if (kind.includes('secret') && (stored.json.includes(SECRET) || !stored.json.includes('$gnl:enc'))) throw new Error(`${kind}: the secret is not sealed`);
    const bodies = new Map(stored.blobs.map((blob) => [blob.hash, JSON.parse(blob.json) as unknown]));
    if (bodies.size > 0 !== kind.includes('big')) throw new Error(`${kind}: ${bodies.size} values stored apart`);
    const row = () => (JSON.parse(stored.json) as { payload: object }).payload;
    // A row with references is read the copying way (readEvents), one without them in place.
    const owned = bodies.size > 0 ? undefined : step(`${kind}: decodeOwnedJson`, () => decodeOwnedJson<object>(row()));
    const copied = step(`${kind}: resolveRefs and decodeJson`, () =>
      decodeJson<object>(
        resolveRefs(row(), bodies, (hash) => {
          throw new Error(`no body ${hash}`);
        }),
      ),
    );
    for (const [how, decoded] of [
      ['owned', owned],
      ['copying', copied],
    ] as const) {
      if (decoded === undefined) continue;
      const opened = step(`${kind}: openEvent (${how})`, () => secrets.openEvent({ ...decoded, type: 'tool-call-end' } as never, 'run-deep', 'deep-json'));
      if (!sameNesting((opened as { output: unknown }).output, value)) throw new Error(`${kind}: the ${how} read differs`);
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
