/**
 * Turns values into what a jsonb column keeps, and back, without losing what plain JSON drops.
 *
 * A replayed model response must give the loop exactly what the model returned (Dates as Dates,
 * bytes as bytes), and a tool's recorded output must come back as the tool returned it. The rule for
 * every value class is: stored and read back deep-equal, or refused with a JournalDataError naming the
 * value's path, before anything is written. Never silently changed.
 *
 * Kept losslessly, as tagged objects `{ $gnl: tag, … }`:
 * - Date (an invalid Date too), Uint8Array (Buffer comes back as Uint8Array), the other typed arrays,
 *   Map, Set, RegExp (source and flags), bigint, undefined (a whole value or an array item; a hole in
 *   a sparse array comes back as undefined), NaN, ±Infinity and -0;
 * - strings jsonb refuses: a NUL character (\u0000) or a lone surrogate (half of a UTF-16 pair,
 *   which is not Unicode and which Postgres refuses in JSON), as values and as object keys;
 * - user objects that happen to have a `$gnl` key, and an own `__proto__` key (kept as a key).
 * Kept as JSON keeps them (what comes back is what JSON.stringify would give, and what the AI SDK
 * sends the model): an object with toJSON() is stored as its toJSON() (URL → string); a class
 * instance as its own enumerable properties (a plain object comes back); a boxed primitive as the
 * primitive; an Error as its name and message; a property whose value is undefined is dropped, as are
 * symbol-keyed properties.
 * The tag `blob` is the storage's (storage/payload-blobs.ts: a value stored apart from its row, resolved
 * before decoding); this codec never writes it, and reading one unresolved is an unknown-tag error.
 * Refused: a cycle, nesting deeper than MAX_JSON_DEPTH, and in the journal (`strict`, event-limit.ts) a
 * function or symbol anywhere, which no journal can give back. Hashing and comparison (non-strict)
 * drop functions and symbols as JSON does.
 */
import { JournalDataError } from '../errors';

const TAG = '$gnl';
type Tagged = { [TAG]: string; v?: unknown; f?: string; t?: string };

/** Deepest nesting of arrays and objects (Maps, Sets…) the journal accepts. Named in docs/limits.md. */
export const MAX_JSON_DEPTH = 1000;

export interface EncodeOptions {
  /** Refuse functions and symbols instead of dropping them (the journal: it must give back what it was given). */
  strict?: boolean;
}

const TYPED_ARRAYS = {
  Int8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
} as const;
type TypedArrayName = keyof typeof TYPED_ARRAYS;

// A surrogate that is not part of a pair.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function encodeJson(value: unknown, options: EncodeOptions = {}): unknown {
  return new Encoder(options.strict === true).encode(value);
}

export function decodeJson<T = unknown>(value: unknown): T {
  return decode(value) as T;
}

/**
 * decodeJson for a tree the caller owns and gives up: one fresh from JSON.parse (a row the driver just
 * read), whose objects nobody else holds and none of which appears twice. Its objects and arrays are
 * kept and only tagged values replaced in them, instead of each copied (a completed run's answer
 * decodes some thousand nodes per call, and the copies with their key lists were a quarter of its garbage:
 * `npx tsx bench/profile.ts answer 1000 --alloc`). Never for a tree
 * that shares a node (payload bodies resolved into several events) or is read again: decoding a node
 * twice is not decoding it once.
 */
export function decodeOwnedJson<T = unknown>(value: unknown): T {
  return decodeOwned(value) as T;
}

class Encoder {
  private readonly seen = new Set<object>();
  private readonly path: (string | number)[] = [];

  constructor(private readonly strict: boolean) {}

  encode(value: unknown): unknown {
    switch (typeof value) {
      case 'undefined':
        return { [TAG]: 'undefined' };
      case 'bigint':
        return { [TAG]: 'bigint', v: value.toString() };
      case 'number':
        return Number.isFinite(value) && !Object.is(value, -0) ? value : { [TAG]: 'number', v: Object.is(value, -0) ? '-0' : String(value) };
      case 'string':
        return encodeString(value);
      case 'boolean':
        return value;
      case 'function':
      case 'symbol':
        if (this.strict) this.refuse(`is a ${typeof value}, which no journal can give back`);
        return undefined;
    }
    if (value === null) return null;
    // A plain object or an array (nearly every node of an event) is none of the classes below.
    const prototype = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === Array.prototype || prototype === null) return this.nested(value as object);
    if (value instanceof Date) return { [TAG]: 'date', v: Number.isNaN(value.getTime()) ? null : value.toISOString() };
    if (value instanceof Uint8Array && (value.constructor === Uint8Array || Buffer.isBuffer(value))) {
      return { [TAG]: 'bytes', v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
    }
    if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
      const name = typedArrayName(value);
      if (name) return { [TAG]: 'typed', t: name, v: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
    }
    if (value instanceof RegExp) return { [TAG]: 'regexp', v: value.source, f: value.flags };
    if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt) return this.encode(value.valueOf());
    if (value instanceof Symbol) return this.encode(value.valueOf());
    if (value instanceof Error && typeof (value as { toJSON?: unknown }).toJSON !== 'function') {
      return { [TAG]: 'error', v: { name: encodeString(value.name), message: encodeString(value.message) } };
    }
    return this.nested(value as object);
  }

  /**
   * An object or array, its members encoded in loops that call encode directly: two frames a level
   * (encode, nested), so a value nested MAX_JSON_DEPTH levels deep encodes on a fresh process's stack
   * (deep-json.test.ts: on 900 KB, where Node gives 984; the encoder alone needs 600–700). Each member's key is on
   * `path` while it is encoded, for the error that names where a value was refused (an error ends the
   * whole encoding, so a key left on the path by one does not matter).
   */
  private nested(object: object): unknown {
    if (this.seen.has(object)) this.refuse('refers back to itself (a cycle)');
    if (this.seen.size >= MAX_JSON_DEPTH) this.refuse(`is nested deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)`);
    this.seen.add(object);
    const path = this.path;
    try {
      if (Array.isArray(object)) {
        const out = new Array<unknown>(object.length);
        for (let i = 0; i < object.length; i++) {
          const item: unknown = object[i];
          path.push(i);
          out[i] = this.dropped(item) ? null : this.encode(item);
          path.pop();
        }
        return out;
      }
      if (object instanceof Map) {
        const pairs: unknown[] = [];
        let i = 0;
        for (const [key, item] of object) {
          path.push(`<key ${i}>`);
          const k = this.dropped(key) ? null : this.encode(key);
          path.pop();
          path.push(i);
          pairs.push([k, this.dropped(item) ? null : this.encode(item)]);
          path.pop();
          i++;
        }
        return { [TAG]: 'map', v: pairs };
      }
      if (object instanceof Set) {
        const items: unknown[] = [];
        let i = 0;
        for (const item of object) {
          path.push(i++);
          items.push(this.dropped(item) ? null : this.encode(item));
          path.pop();
        }
        return { [TAG]: 'set', v: items };
      }
      if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return this.encode((object as { toJSON(): unknown }).toJSON());
      // The common case built in place: no entry pairs; a key jsonb cannot store sends it to the tagged form below.
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(object)) {
        const item = (object as Record<string, unknown>)[key];
        if (item === undefined || this.dropped(item)) continue;
        path.push(key);
        const encoded = this.encode(item);
        path.pop();
        if (encoded === undefined) continue;
        if (unstorable(key)) return this.entries(object);
        if (key === '__proto__') Object.defineProperty(out, key, { value: encoded, enumerable: true, writable: true, configurable: true });
        else out[key] = encoded;
      }
      return Object.hasOwn(out, TAG) ? { [TAG]: 'object', v: out } : out;
    } finally {
      this.seen.delete(object);
    }
  }

  /** An object with a key jsonb refuses (a NUL, a lone surrogate): its members as tagged entries. */
  private entries(object: object): unknown {
    const entries: [unknown, unknown][] = [];
    for (const [key, item] of Object.entries(object)) {
      if (item === undefined || this.dropped(item)) continue;
      this.path.push(key);
      const encoded = this.encode(item);
      this.path.pop();
      if (encoded !== undefined) entries.push([encodeString(key), encoded]);
    }
    return { [TAG]: 'entries', v: entries };
  }

  /** A function or symbol member, dropped when not strict (as JSON drops it: null in an array, left out of an object); strict, encode refuses it with its path. */
  private dropped(item: unknown): boolean {
    return !this.strict && (typeof item === 'function' || typeof item === 'symbol');
  }

  private refuse(what: string): never {
    throw new JournalDataError(`Value cannot be journaled: ${formatPath(this.path)} ${what}.`);
  }
}

/** A NUL or a lone surrogate: text jsonb refuses. isWellFormed (native, Node 20) is false exactly for a lone surrogate. */
function unstorable(value: string): boolean {
  return value.includes('\u0000') || !isWellFormed(value);
}

const isWellFormed: (value: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function'
    ? (value) => (value as string & { isWellFormed(): boolean }).isWellFormed()
    : (value) => !LONE_SURROGATE.test(value);

function encodeString(value: string): unknown {
  if (!unstorable(value)) return value;
  // A lone surrogate has no UTF-8 form: keep the UTF-16 code units. A NUL alone keeps the older UTF-8 tag.
  if (!isWellFormed(value)) return { [TAG]: 'utf16', v: Buffer.from(value, 'utf16le').toString('base64') };
  return { [TAG]: 'string', v: Buffer.from(value, 'utf8').toString('base64') };
}

function typedArrayName(view: ArrayBufferView): TypedArrayName | undefined {
  for (const [name, type] of Object.entries(TYPED_ARRAYS)) if (view.constructor === type) return name as TypedArrayName;
  return undefined;
}

function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return 'the value';
  const shown = path.length > 12 ? [...path.slice(0, 10), '…'] : path;
  const text = shown
    .map((key) => (typeof key === 'number' ? `[${key}]` : key === '…' || /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`))
    .join('');
  return `the value at ${text.replace(/^\./, '')}${path.length > 12 ? ` (${path.length} levels down)` : ''}`;
}

/** Like Object.fromEntries, but an own `__proto__` key stays a key instead of setting the prototype. */
function fromEntries(entries: Iterable<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

// Loops rather than entries and maps: a completed run's answer decodes some thousand nodes per call, and
// the pairs made per key were a tenth of that call's garbage.
function decode(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = decode(value[i]);
    return out;
  }
  if (Object.hasOwn(value, TAG)) return decodeTagged(value as Tagged);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = decode((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out;
}

function decodeOwned(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item !== null && typeof item === 'object') value[i] = decodeOwned(item);
    }
    return value;
  }
  if (Object.hasOwn(value, TAG)) return decodeTagged(value as Tagged);
  const record = value as Record<string, unknown>;
  // for…in with an own-key check: no key array per object (Object.keys made one, a seventh of an answer's garbage).
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = record[key];
    if (item === null || typeof item !== 'object') continue;
    const decoded = decodeOwned(item);
    if (decoded === item) continue;
    if (key === '__proto__') Object.defineProperty(record, key, { value: decoded, enumerable: true, writable: true, configurable: true });
    else record[key] = decoded;
  }
  return value;
}

function decodeTagged(tagged: Tagged): unknown {
  const { [TAG]: tag, v } = tagged;
  switch (tag) {
    case 'undefined':
      return undefined;
    case 'bigint':
      return BigInt(v as string);
    case 'number':
      return Number(v);
    case 'string':
      return Buffer.from(v as string, 'base64').toString('utf8');
    case 'utf16':
      return Buffer.from(v as string, 'base64').toString('utf16le');
    case 'date':
      return new Date(v === null ? Number.NaN : (v as string));
    case 'bytes':
      return new Uint8Array(Buffer.from(v as string, 'base64'));
    case 'typed': {
      const type = Object.hasOwn(TYPED_ARRAYS, tagged.t as string) ? TYPED_ARRAYS[tagged.t as TypedArrayName] : undefined;
      if (!type) throw new JournalDataError(`Unknown typed array "${tagged.t}" in the journal.`);
      const bytes = Buffer.from(v as string, 'base64');
      return new type(new Uint8Array(bytes).buffer);
    }
    case 'map':
      return new Map((v as [unknown, unknown][]).map(([key, item]) => [decode(key), decode(item)]));
    case 'set':
      return new Set((v as unknown[]).map(decode));
    case 'regexp':
      return new RegExp(v as string, tagged.f);
    case 'error': {
      const { name, message } = v as { name: unknown; message: unknown };
      return Object.assign(new Error(decode(message) as string), { name: decode(name) as string });
    }
    case 'object':
      return fromEntries(Object.entries(v as object).map(([key, item]) => [key, decode(item)]));
    case 'entries':
      return fromEntries((v as [unknown, unknown][]).map(([key, item]) => [decode(key) as string, decode(item)]));
    default:
      throw new JournalDataError(`Unknown journal value tag "${tag}".`);
  }
}
