/**
 * JSON with object keys sorted at every depth, so equal values give equal strings (hashing, comparison).
 * `nfc`: every string, value or key, in Unicode NFC first, so text a person cannot tell apart ("café" as
 * U+00E9 or as e + U+0301) is one spelling (key scheme 3). Two keys of one object that are one key in
 * NFC: the value of the one sorted last (by its own spelling) is kept.
 */
export function canonicalJson(value: unknown, options: { nfc?: boolean } = {}): string {
  return JSON.stringify(sortKeys(value, options.nfc === true)) ?? 'undefined';
}

// A loop, not map: one frame a level, so a value at the journal's deepest nesting (MAX_JSON_DEPTH, and more
// once encoded: a Map's level is three) sorts on a fresh process's stack (deep-json.test.ts).
function sortKeys(value: unknown, nfc: boolean): unknown {
  if (typeof value === 'string') return nfc ? value.normalize('NFC') : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = sortKeys(value[i], nfc);
    return out;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return sortKeys((value as { toJSON(): unknown }).toJSON(), nfc);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[nfc ? key.normalize('NFC') : key] = sortKeys((value as Record<string, unknown>)[key], nfc);
  return nfc ? sortedCopy(out) : out;
}

function sortedCopy(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(object).sort()) out[key] = object[key];
  return out;
}
