import { describe, expect, it } from 'vitest';
import { asTerminalEscapes, SPOOFED } from '@/tests/support/spoofed-text';
import { describeHidden, findHidden, hasHidden, hiddenWarning, jsonEscaped, markedText, terminalText, visibleParts } from './visible-text';

const rendered = (text: string) => visibleParts(text).map((part) => (part.kind === 'text' ? part.text : part.mark));

describe('visible text', () => {
  it.each(SPOOFED)('shows every hidden character of $key as its code point, and keeps the rest as it is', ({ text, marked, codes }) => {
    expect(hasHidden(text)).toBe(true);
    expect(rendered(text).join('')).toBe(marked);
    expect(markedText(text)).toBe(marked);
    expect(
      visibleParts(text)
        .filter((part) => part.kind === 'mark')
        .map((part) => part.char.label),
    ).toEqual(codes);
    const found = findHidden(text);
    expect(found.count).toBe(codes.length);
    expect(found.chars.map((c) => c.label)).toEqual([...new Set(codes)]);
    // Nothing hidden is left in what is shown: marked text run through the module again is unchanged.
    expect(hasHidden(marked)).toBe(false);
  });

  it.each(SPOOFED)('escapes every hidden character of $key for a terminal, as the table says', ({ text, marked }) => {
    const escaped = terminalText(text);
    expect(escaped).toBe(asTerminalEscapes(marked));
    expect(hasHidden(escaped)).toBe(false);
  });

  it.each(SPOOFED)('escapes every hidden character of $key in JSON text, keeping the same JSON value', ({ key, text }) => {
    const json = JSON.stringify({ [key]: text, nested: [text] }, null, 2);
    const escaped = jsonEscaped(json);
    expect(hasHidden(escaped)).toBe(false);
    expect(JSON.parse(escaped)).toEqual({ [key]: text, nested: [text] });
  });

  it('splits text into plain runs and marks in order, naming each mark', () => {
    expect(visibleParts('DE89 \u202E12\u202C')).toEqual([
      { kind: 'text', text: 'DE89 ' },
      { kind: 'mark', mark: '⟨U+202E⟩', char: { codePoint: 0x202e, label: 'U+202E', name: 'RIGHT-TO-LEFT OVERRIDE', kind: 'direction' } },
      { kind: 'text', text: '12' },
      { kind: 'mark', mark: '⟨U+202C⟩', char: { codePoint: 0x202c, label: 'U+202C', name: 'POP DIRECTIONAL FORMATTING', kind: 'direction' } },
    ]);
    expect(visibleParts('plain')).toEqual([{ kind: 'text', text: 'plain' }]);
    expect(visibleParts('')).toEqual([{ kind: 'text', text: '' }]);
  });

  it('leaves newline, tab, ordinary spaces, letters of any script and plain emoji alone', () => {
    const ordinary = 'line one\n\tline two: שלום مرحبا 東京 naïve 🙂 €10';
    expect(hasHidden(ordinary)).toBe(false);
    expect(markedText(ordinary)).toBe(ordinary);
    expect(findHidden(ordinary)).toEqual({ count: 0, chars: [] });
    expect(terminalText('a\nb\tc')).toBe('a\\nb\\tc');
  });

  it('marks what cannot be journaled as well: NUL and a lone surrogate', () => {
    expect(markedText('a\u0000b\ud800c\udfff')).toBe('a⟨U+0000⟩b⟨U+D800⟩c⟨U+DFFF⟩');
    expect(terminalText('a\u0000b\ud800')).toBe('a\\u0000b\\ud800');
    // A well-formed pair is one character, not two surrogates.
    expect(markedText('\u{1F600}')).toBe('\u{1F600}');
  });

  it('names the characters it knows, and the class of the rest', () => {
    expect(describeHidden(0x200b).name).toBe('ZERO WIDTH SPACE');
    expect(describeHidden(0xfe0f).name).toBe('VARIATION SELECTOR-16');
    expect(describeHidden(0xe0100).name).toBe('VARIATION SELECTOR-17');
    expect(describeHidden(0xe0041)).toMatchObject({ label: 'U+E0041', name: 'TAG CHARACTER', kind: 'invisible' });
    expect(describeHidden(0x0085)).toMatchObject({ name: 'CONTROL CHARACTER', kind: 'control' });
    expect(describeHidden(0xfff9)).toMatchObject({ name: 'FORMAT CHARACTER', kind: 'invisible' });
  });

  it('counts every occurrence and lists each character once for the warning', () => {
    const iban = SPOOFED[0]?.text as string;
    const found = findHidden(`${iban} ${iban}`);
    expect(found.count).toBe(4);
    expect(hiddenWarning(found)).toBe('These arguments hold 4 invisible or direction-changing characters (U+202E, U+202C): shown marked below.');
    expect(hiddenWarning(findHidden('x\u200B'))).toBe('These arguments hold an invisible or direction-changing character (U+200B): shown marked below.');
    expect(hiddenWarning(findHidden('clean'))).toBeUndefined();
    const all = findHidden(SPOOFED.map((entry) => entry.text).join(''));
    expect(all.count).toBe(SPOOFED.reduce((n, entry) => n + entry.codes.length, 0));
    expect(hiddenWarning(all)).toMatch(
      /^These arguments hold \d+ invisible or direction-changing characters \(U\+202E, U\+202C, .*, and \d+ more\): shown marked below\.$/,
    );
  });
});
