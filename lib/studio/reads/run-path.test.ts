import { describe, expect, it } from 'vitest';
import { decodeRunSegment, encodeRunSegment, runHref } from './run-path';

const ids = ['support:o_18', 'support:o_17/lookup?x#1 50% é', 'a~b', '~41', '.', '..', 'order.17', 'σ🙂', '%3A', 'x'.repeat(255), '<img src=x>'];

describe('run URL segments', () => {
  it.each(ids)('round-trips %j, whether or not the segment is percent-decoded on the way', (id) => {
    const segment = encodeRunSegment(id);
    expect(decodeRunSegment(segment)).toBe(id);
    expect(segment).not.toContain('%');
    expect(decodeURIComponent(segment)).toBe(segment);
    expect(decodeRunSegment(encodeURIComponent(segment))).toBe(id);
  });

  it('keeps plain ids readable and escapes the rest as ~XX', () => {
    expect(runHref('support:o_18')).toBe('/runs/support:o_18');
    expect(encodeRunSegment('a/b c~')).toBe('a~2Fb~20c~7E');
    expect(encodeRunSegment('..')).toBe('~2E~2E');
  });

  it('rejects segments it did not make', () => {
    expect(decodeRunSegment('a~4')).toBeUndefined();
    expect(decodeRunSegment('a b')).toBeUndefined();
    expect(decodeRunSegment('~FF')).toBeUndefined();
    expect(decodeRunSegment('a%2')).toBeUndefined();
    expect(decodeRunSegment('a%20b')).toBeUndefined();
  });
});
