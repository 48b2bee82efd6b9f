import { describe, expect, it } from 'vitest';
import { JournalDataError } from './errors';
import { decodeJson, encodeJson } from './json-codec';

const roundTrip = (value: unknown) => decodeJson(JSON.parse(JSON.stringify(encodeJson(value))));

describe('json-codec', () => {
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

  it('drops undefined properties and functions as JSON does, and uses toJSON', () => {
    expect(roundTrip({ a: undefined, f: () => 1, u: new URL('https://example.com/x') })).toEqual({ u: 'https://example.com/x' });
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
