/**
 * Turns values into what a jsonb column keeps, and back, without losing what plain JSON drops.
 *
 * A replayed model response must give the loop exactly what the model returned (Dates as Dates,
 * bytes as bytes), and a tool's recorded output must come back as the tool returned it. Tagged
 * objects `{ $gnl: tag, v }` carry: Date, Uint8Array, bigint, undefined (as a whole value or an
 * array item), non-finite numbers, strings containing NUL (jsonb refuses \u0000), and user objects
 * that happen to have a `$gnl` key. Object properties whose value is undefined are dropped, as JSON
 * does. Functions and symbols are dropped too. A cycle is an error, never a silent truncation.
 */
import { JournalDataError } from './errors';

const TAG = '$gnl';
type Tagged = { [TAG]: string; v?: unknown };

export function encodeJson(value: unknown): unknown {
  return encode(value, new Set());
}

export function decodeJson<T = unknown>(value: unknown): T {
  return decode(value) as T;
}

function encode(value: unknown, seen: Set<object>): unknown {
  switch (typeof value) {
    case 'undefined':
      return { [TAG]: 'undefined' };
    case 'bigint':
      return { [TAG]: 'bigint', v: value.toString() };
    case 'number':
      return Number.isFinite(value) ? value : { [TAG]: 'number', v: String(value) };
    case 'string':
      return value.includes('\u0000') ? { [TAG]: 'string', v: Buffer.from(value, 'utf8').toString('base64') } : value;
    case 'boolean':
      return value;
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  if (value instanceof Date) return { [TAG]: 'date', v: Number.isNaN(value.getTime()) ? null : value.toISOString() };
  if (value instanceof Uint8Array) return { [TAG]: 'bytes', v: Buffer.from(value).toString('base64') };
  const object = value as object;
  if (seen.has(object)) throw new JournalDataError('Value cannot be journaled: it contains a cycle.');
  seen.add(object);
  try {
    if (Array.isArray(object)) return object.map((item) => (typeof item === 'function' || typeof item === 'symbol' ? null : encode(item, seen)));
    if (typeof (object as { toJSON?: unknown }).toJSON === 'function') return encode((object as { toJSON(): unknown }).toJSON(), seen);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(object)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      out[key] = encode(item, seen);
    }
    return Object.hasOwn(out, TAG) ? { [TAG]: 'object', v: out } : out;
  } finally {
    seen.delete(object);
  }
}

function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode);
  if (value === null || typeof value !== 'object') return value;
  if (Object.hasOwn(value, TAG)) return decodeTagged(value as Tagged);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = decode(item);
  return out;
}

function decodeTagged({ [TAG]: tag, v }: Tagged): unknown {
  switch (tag) {
    case 'undefined':
      return undefined;
    case 'bigint':
      return BigInt(v as string);
    case 'number':
      return Number(v);
    case 'string':
      return Buffer.from(v as string, 'base64').toString('utf8');
    case 'date':
      return new Date(v === null ? Number.NaN : (v as string));
    case 'bytes':
      return new Uint8Array(Buffer.from(v as string, 'base64'));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(v as object)) out[key] = decode(item);
      return out;
    }
    default:
      throw new JournalDataError(`Unknown journal value tag "${tag}".`);
  }
}
