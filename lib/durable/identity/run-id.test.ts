import { describe, expect, it } from 'vitest';
import { InvalidRunIdError } from '../errors';
import { assertValidRunId, MAX_RUN_ID_LENGTH, normalizeRunId, resolveRunId } from './run-id';

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

describe('the runId rule: one spelling per job (normalizeRunId)', () => {
  it('takes an id in NFC: the NFD spelling of a name is the same id', () => {
    expect(normalizeRunId('refund:cafe\u0301')).toBe('refund:caf\u00e9');
    expect(normalizeRunId('refund:caf\u00e9')).toBe('refund:caf\u00e9');
    for (const id of ['support:42', 'ünïcödé 🙂 "quotes" <tags> / \\ inner spaces', '❤️', 'sched:daily:2026-12-03T09:00:00.000Z']) {
      expect(normalizeRunId(id)).toBe(id.normalize('NFC'));
    }
    // The length is counted in NFC: 512 e + U+0301 are 512 characters once composed.
    expect(normalizeRunId('e\u0301'.repeat(MAX_RUN_ID_LENGTH))).toBe('\u00e9'.repeat(MAX_RUN_ID_LENGTH));
  });

  it('refuses invisible characters, naming each as U+XXXX with what it is and where', () => {
    const cases: [string, string][] = [
      ['job\u200b42', 'runId contains U+200B (a zero-width character) at character 4'],
      ['\ufeffjob-42', 'runId contains U+FEFF (a zero-width no-break space (BOM)) at character 1'],
      ['job-\u202e24', 'runId contains U+202E (a bidi control) at character 5'],
      ['job\u2066x\u2069', 'U+2066 (a bidi control)'],
      ['job\u200e', 'U+200E (a bidi control)'],
      ['job\u061c', 'U+061C (a bidi control)'],
      ['job\u200d', 'U+200D (a zero-width character)'],
      ['job\u2060', 'U+2060 (a zero-width character)'],
      ['job\u00ad42', 'U+00AD (an invisible format character)'],
      ['job\u{e0041}', 'U+E0041 (an invisible format character)'],
      ['job\u00a042', 'U+00A0 (a space other than U+0020)'],
      ['job\u3000', 'U+3000 (a space other than U+0020)'],
      ['job\u2028', 'U+2028 (a space other than U+0020)'],
      ['job\t42', 'U+0009 (a control character)'],
      ['🙂\u0000', 'U+0000 (a control character) at character 2'],
      ['lone \ud800 surrogate', 'U+D800 (a lone surrogate) at character 6'],
      ['job-42 ', 'runId must not start or end with a space (U+0020)'],
      [' job-42', 'runId must not start or end with a space (U+0020)'],
      ['   ', 'runId must not be only spaces'],
      ['', 'runId must not be empty'],
    ];
    for (const [id, message] of cases) {
      expect(() => normalizeRunId(id), JSON.stringify(id)).toThrow(InvalidRunIdError);
      expect(() => normalizeRunId(id), JSON.stringify(id)).toThrow(message);
    }
    expect(() => normalizeRunId(7)).toThrow('runId must be a string, got number');
  });

  it('resolveRunId: an id the rule changes or refuses is taken as given only when a run is recorded under it exactly', async () => {
    const recorded = new Set(['legacy:cafe\u0301', 'legacy:job\u200b']);
    const asked: string[] = [];
    const resolve = (id: unknown) =>
      resolveRunId(id, async (runId) => {
        asked.push(runId);
        return recorded.has(runId);
      });
    expect(await resolve('support:42')).toBe('support:42');
    expect(asked).toEqual([]); // an id in its one spelling costs no look-up
    expect(await resolve('new:cafe\u0301')).toBe('new:caf\u00e9');
    expect(await resolve('legacy:cafe\u0301')).toBe('legacy:cafe\u0301');
    expect(await resolve('legacy:job\u200b')).toBe('legacy:job\u200b');
    await expect(resolve('new:job\u200b')).rejects.toThrow('runId contains U+200B');
    await expect(resolve('nul\u0000')).rejects.toThrow(InvalidRunIdError);
    expect(asked).toEqual(['new:cafe\u0301', 'legacy:cafe\u0301', 'legacy:job\u200b', 'new:job\u200b']); // never for an id nothing can be recorded under
  });
});
