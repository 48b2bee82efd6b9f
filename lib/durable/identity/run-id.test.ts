import { describe, expect, it } from 'vitest';
import { InvalidRunIdError } from '../errors';
import { assertValidRunId, MAX_RUN_ID_LENGTH } from './run-id';

describe('runId validation', () => {
  it(`accepts any printable characters up to ${MAX_RUN_ID_LENGTH}`, () => {
    expect(MAX_RUN_ID_LENGTH).toBeGreaterThanOrEqual(255);
    for (const id of ['support:42', 'a', 'ünïcödé 🙂 "quotes" \' <tags> / \\ spaces', '🙂'.repeat(MAX_RUN_ID_LENGTH), 'x'.repeat(MAX_RUN_ID_LENGTH)]) {
      expect(() => assertValidRunId(id)).not.toThrow();
    }
  });

  it('rejects empty, too long, non-string and unprintable ids with a clear error', () => {
    const cases: [unknown, RegExp][] = [
      ['', /must not be empty/],
      ['x'.repeat(MAX_RUN_ID_LENGTH + 1), new RegExp(`${MAX_RUN_ID_LENGTH + 1} characters long; the limit is ${MAX_RUN_ID_LENGTH}`)],
      [42, /must be a string/],
      [undefined, /must be a string/],
      ['line\nbreak', /printable/],
      ['nul\u0000', /printable/],
      ['lone \ud800 surrogate', /printable/],
    ];
    for (const [id, message] of cases) {
      expect(() => assertValidRunId(id)).toThrow(InvalidRunIdError);
      expect(() => assertValidRunId(id)).toThrow(message);
    }
  });
});
