import { describe, expect, it } from 'vitest';
import { JournalDataError } from '../errors';
import { decodeJson, decodeOwnedJson, encodeJson, MAX_JSON_DEPTH } from './json-codec';

// Every case both ways: decodeJson copies, decodeOwnedJson (the load's, for a fresh parse) decodes in place.
for (const [name, decode] of [
  ['decodeJson', decodeJson],
  ['decodeOwnedJson', decodeOwnedJson],
] as const) {
  const roundTrip = (value: unknown) => decode(JSON.parse(JSON.stringify(encodeJson(value))));

  describe(`json-codec (${name})`, () => {
    it('revives what JSON alone loses: Dates, bytes, bigints, undefined, non-finite numbers', () => {
      const value = {
        at: new Date('2026-11-29T10:00:00.123Z'),
        bytes: new Uint8Array([0, 1, 255]),
        big: 12345678901234567890n,
        list: [undefined, 1, Number.POSITIVE_INFINITY, Number.NaN],
        nested: { when: [new Date(0)] },
      };
      const back = roundTrip(value) as typeof value;
      expect(back.at).toBeInstanceOf(Date);
      expect(back.at.toISOString()).toBe('2026-11-29T10:00:00.123Z');
      expect(back.bytes).toEqual(new Uint8Array([0, 1, 255]));
      expect(back.big).toBe(12345678901234567890n);
      expect(back.list).toEqual([undefined, 1, Number.POSITIVE_INFINITY, Number.NaN]);
      expect(back.nested.when[0]).toEqual(new Date(0));
    });

    it('keeps an invalid Date invalid', () => {
      const back = roundTrip({ when: new Date(Number.NaN) }) as { when: Date };
      expect(back.when).toBeInstanceOf(Date);
      expect(Number.isNaN(back.when.getTime())).toBe(true);
    });

    it('keeps a tool that returns nothing distinct from one that returns null', () => {
      expect(roundTrip(undefined)).toBeUndefined();
      expect(roundTrip(null)).toBeNull();
    });

    it('escapes NUL characters, which Postgres jsonb refuses', () => {
      const encoded = JSON.stringify(encodeJson({ s: 'a\u0000b' }));
      expect(encoded).not.toContain('\\u0000');
      expect(roundTrip({ s: 'a\u0000b' })).toEqual({ s: 'a\u0000b' });
    });

    it('does not mistake a user object with a $gnl key for a tag', () => {
      const value = { $gnl: 'date', v: 'not a date', other: 1 };
      expect(roundTrip(value)).toEqual(value);
    });

    it('drops undefined properties and (for hashing, not strict) functions as JSON does, and uses toJSON', () => {
      expect(roundTrip({ a: undefined, f: () => 1, u: new URL('https://example.com/x') })).toEqual({ u: 'https://example.com/x' });
    });

    it('strict (the journal) refuses functions and symbols, naming where they are', () => {
      expect(() => encodeJson({ a: [1, { f: () => 1 }] }, { strict: true })).toThrow(/the value at a\[1\]\.f is a function/);
      expect(() => encodeJson([Symbol('s')], { strict: true })).toThrow(/the value at \[0\] is a symbol/);
      expect(() => encodeJson(() => 1, { strict: true })).toThrow(JournalDataError);
    });

    it('keeps what jsonb refuses or JSON changes: lone surrogates, NUL and odd keys, -0, __proto__, holes', () => {
      const value = { lone: 'a\ud800b', low: '\udc00', pair: '🙂', 'k\u0000': 1, 'k\udfff': 2, zero: -0, list: Object.assign(new Array(3), { 0: 1, 2: 3 }) };
      const encoded = JSON.stringify(encodeJson(value));
      expect(encoded).not.toMatch(/\\u0000|\\ud[89a-f]/);
      expect(roundTrip(value)).toEqual({ ...value, list: [1, undefined, 3] });
      expect(Object.is((roundTrip(value) as { zero: number }).zero, -0)).toBe(true);
      const proto = JSON.parse('{"__proto__": {"x": 1}, "y": 2}');
      const back = roundTrip(proto) as object;
      expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(back, '__proto__')?.value).toEqual({ x: 1 });
    });

    it('keeps Maps, Sets, typed arrays and RegExps; an Error as its name and message', () => {
      const value = {
        map: new Map<unknown, unknown>([
          [1, 'a'],
          [{ k: 1 }, new Set([1n])],
        ]),
        floats: new Float64Array([1.5, Number.NaN, -0]),
        words: new Uint16Array([65535]),
        re: /a.b/giu,
        bytes: Buffer.from('hi'),
      };
      const back = roundTrip(value) as typeof value;
      expect(back.map).toEqual(value.map);
      expect(back.floats).toBeInstanceOf(Float64Array);
      expect(back.floats).toEqual(value.floats);
      expect(back.words).toEqual(value.words);
      expect(back.re).toEqual(/a.b/giu);
      expect(back.bytes).toEqual(new Uint8Array(Buffer.from('hi')));
      const error = roundTrip(Object.assign(new TypeError('bad'), { code: 1 })) as Error;
      expect(error).toBeInstanceOf(Error);
      expect([error.name, error.message]).toEqual(['TypeError', 'bad']);
    });

    it(`refuses nesting deeper than ${MAX_JSON_DEPTH} levels with a clear error, not a stack overflow`, () => {
      const nest = (depth: number) => {
        let value: unknown = 1;
        for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
        return value;
      };
      expect(roundTrip(nest(MAX_JSON_DEPTH))).toEqual(nest(MAX_JSON_DEPTH));
      expect(() => encodeJson(nest(MAX_JSON_DEPTH + 1))).toThrow(JournalDataError);
      expect(() => encodeJson(nest(100_000))).toThrow(/nested deeper than 1000 levels \(MAX_JSON_DEPTH\)/);
    });

    it('refuses a cycle with a clear error instead of truncating', () => {
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      expect(() => encodeJson(cyclic)).toThrow(JournalDataError);
    });

    it('allows the same object twice when it is not a cycle', () => {
      const shared = { x: 1 };
      expect(roundTrip({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
    });
  });
}

describe('decodeOwnedJson', () => {
  it('keeps the parsed objects and arrays, replacing only tagged values in them, and decodes as decodeJson does', () => {
    const value = { at: new Date(0), steps: [{ n: 1n, bytes: new Uint8Array([7]), text: 'a\u0000b' }, { nothing: undefined }], plain: { x: [1, 2] } };
    const json = JSON.stringify(encodeJson(value));
    const parsed = JSON.parse(json);
    const { steps, plain } = parsed;
    const decoded = decodeOwnedJson<typeof value>(parsed);
    expect(decoded).toEqual(decodeJson(JSON.parse(json)));
    expect(decoded).toEqual(value);
    expect(decoded).toBe(parsed);
    expect(decoded.steps).toBe(steps);
    expect(decoded.plain).toBe(plain);
    expect(decoded.steps[0]?.n).toBe(1n);
    expect(decodeOwnedJson(JSON.parse(JSON.stringify(encodeJson(new Date(5)))))).toEqual(new Date(5));
  });
});
