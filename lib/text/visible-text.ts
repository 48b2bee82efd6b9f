/**
 * Characters a person cannot see, made visible. Tool arguments, model text, goals and run ids are
 * untrusted, and some code points change what a person reads without showing themselves: a
 * right-to-left override (U+202E) turns `DE89 3704 0044 <RLO>1234 5678 90<PDF>` into
 * `DE89 3704 0044 09 8765 4321` on screen, a zero-width space splits a word that looks whole, a C0
 * control drives a terminal. An operator approves what executes, so every such character is shown
 * as its code point instead: `⟨U+202E⟩` in the Studio (the part a component styles), `\u202e` in
 * the CLI (ASCII, so any terminal shows it, and a valid JS and JSON escape).
 *
 * Hidden: every control (Cc) but newline and tab, every format character (Cf: the bidi embeddings,
 * overrides, isolates and marks, zero-width spaces and joiners, the invisible operators, the BOM,
 * the soft hyphen, tag characters), lone surrogates (Cs), and the invisible letters and marks Unicode
 * files elsewhere: line and paragraph separators, the combining grapheme joiner, the Hangul and
 * Khmer fillers, variation selectors. Emoji that use a ZWJ or VS16 are shown marked too: in an
 * approval console a false alarm costs less than a hidden character.
 *
 * Pure, no DOM or Node: the Studio's components and the CLI's formatter both read this one table.
 */

/** What a hidden character does to the reader: reorders text, hides itself, or is a control. */
export type HiddenKind = 'direction' | 'invisible' | 'control';

export interface HiddenChar {
  codePoint: number;
  /** `U+202E` */
  label: string;
  /** `RIGHT-TO-LEFT OVERRIDE`; a class name (`format character`) when the table names none. */
  name: string;
  kind: HiddenKind;
}

export type VisiblePart = { kind: 'text'; text: string } | { kind: 'mark'; mark: string; char: HiddenChar };

/** The characters named one by one; ranges and Unicode categories below cover the rest. */
const NAMED: Record<number, readonly [HiddenKind, string]> = {
  1564: ['direction', 'ARABIC LETTER MARK'],
  8206: ['direction', 'LEFT-TO-RIGHT MARK'],
  8207: ['direction', 'RIGHT-TO-LEFT MARK'],
  8234: ['direction', 'LEFT-TO-RIGHT EMBEDDING'],
  8235: ['direction', 'RIGHT-TO-LEFT EMBEDDING'],
  8236: ['direction', 'POP DIRECTIONAL FORMATTING'],
  8237: ['direction', 'LEFT-TO-RIGHT OVERRIDE'],
  8238: ['direction', 'RIGHT-TO-LEFT OVERRIDE'],
  8294: ['direction', 'LEFT-TO-RIGHT ISOLATE'],
  8295: ['direction', 'RIGHT-TO-LEFT ISOLATE'],
  8296: ['direction', 'FIRST STRONG ISOLATE'],
  8297: ['direction', 'POP DIRECTIONAL ISOLATE'],
  173: ['invisible', 'SOFT HYPHEN'],
  847: ['invisible', 'COMBINING GRAPHEME JOINER'],
  4447: ['invisible', 'HANGUL CHOSEONG FILLER'],
  4448: ['invisible', 'HANGUL JUNGSEONG FILLER'],
  6068: ['invisible', 'KHMER VOWEL INHERENT AQ'],
  6069: ['invisible', 'KHMER VOWEL INHERENT AA'],
  6158: ['invisible', 'MONGOLIAN VOWEL SEPARATOR'],
  8203: ['invisible', 'ZERO WIDTH SPACE'],
  8204: ['invisible', 'ZERO WIDTH NON-JOINER'],
  8205: ['invisible', 'ZERO WIDTH JOINER'],
  8232: ['invisible', 'LINE SEPARATOR'],
  8233: ['invisible', 'PARAGRAPH SEPARATOR'],
  8288: ['invisible', 'WORD JOINER'],
  8289: ['invisible', 'FUNCTION APPLICATION'],
  8290: ['invisible', 'INVISIBLE TIMES'],
  8291: ['invisible', 'INVISIBLE SEPARATOR'],
  8292: ['invisible', 'INVISIBLE PLUS'],
  12644: ['invisible', 'HANGUL FILLER'],
  65279: ['invisible', 'ZERO WIDTH NO-BREAK SPACE'],
  65440: ['invisible', 'HALFWIDTH HANGUL FILLER'],
  0: ['control', 'NULL'],
  7: ['control', 'BELL'],
  8: ['control', 'BACKSPACE'],
  13: ['control', 'CARRIAGE RETURN'],
  27: ['control', 'ESCAPE'],
  127: ['control', 'DELETE'],
  155: ['control', 'CONTROL SEQUENCE INTRODUCER'],
};

/** One hidden character (newline and tab are text). `u` mode: astral ones and lone surrogates are one match each. */
const HIDDEN =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: each joiner, selector and combining mark is matched alone, on purpose
  /(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2028\u2029\u3164\ufe00-\ufe0f\uffa0\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;
const ANY_HIDDEN = new RegExp(HIDDEN.source, 'u');

const label = (codePoint: number) => `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;

/** What a hidden code point is (the caller found it with the table; anything else is named as a format character). */
export function describeHidden(codePoint: number): HiddenChar {
  const named = NAMED[codePoint];
  const [kind, name] =
    named ??
    (codePoint >= 0xfe00 && codePoint <= 0xfe0f
      ? ['invisible', `VARIATION SELECTOR-${codePoint - 0xfe00 + 1}`]
      : codePoint >= 0xe0100 && codePoint <= 0xe01ef
        ? ['invisible', `VARIATION SELECTOR-${codePoint - 0xe0100 + 17}`]
        : codePoint >= 0x180b && codePoint <= 0x180f
          ? ['invisible', 'MONGOLIAN FREE VARIATION SELECTOR']
          : codePoint >= 0xe0000 && codePoint <= 0xe007f
            ? ['invisible', 'TAG CHARACTER']
            : codePoint >= 0xd800 && codePoint <= 0xdfff
              ? ['invisible', 'LONE SURROGATE']
              : codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f)
                ? ['control', 'CONTROL CHARACTER']
                : ['invisible', 'FORMAT CHARACTER']);
  return { codePoint, label: label(codePoint), name, kind };
}

/** Whether the text holds any character this module marks. */
export function hasHidden(text: string): boolean {
  return ANY_HIDDEN.test(text);
}

/** `⟨U+202E⟩`: how the Studio shows a hidden character. */
export function markOf(codePoint: number): string {
  return `⟨${label(codePoint)}⟩`;
}

/** The text as plain runs and marked characters, in order, for a component to render (React text, never HTML). */
export function visibleParts(text: string): VisiblePart[] {
  if (!hasHidden(text)) return [{ kind: 'text', text }];
  const parts: VisiblePart[] = [];
  let at = 0;
  for (const match of text.matchAll(HIDDEN)) {
    if (match.index > at) parts.push({ kind: 'text', text: text.slice(at, match.index) });
    const codePoint = match[0].codePointAt(0) as number;
    parts.push({ kind: 'mark', mark: markOf(codePoint), char: describeHidden(codePoint) });
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push({ kind: 'text', text: text.slice(at) });
  return parts;
}

/** The text with each hidden character as `⟨U+202E⟩`: for places that hold only a string (the page title, an attribute). */
export function markedText(text: string): string {
  return hasHidden(text) ? text.replace(HIDDEN, (c) => markOf(c.codePointAt(0) as number)) : text;
}

/**
 * The text for a terminal: each hidden character as a `\u202e` escape (`\u{e0041}` past the BMP), and
 * newline and tab as `\n` and `\t` too, so one value stays on one line.
 */
export function terminalText(text: string): string {
  return text
    .replace(/[\n\t]/g, (c) => (c === '\n' ? '\\n' : '\\t'))
    .replace(HIDDEN, (c) => {
      const codePoint = c.codePointAt(0) as number;
      return codePoint > 0xffff ? `\\u{${codePoint.toString(16)}}` : `\\u${codePoint.toString(16).padStart(4, '0')}`;
    });
}

/**
 * JSON text with each hidden character as a JSON `\u` escape (UTF-16 units: JSON has no `\u{…}`): the
 * same JSON value, safe to print. Hidden characters can only stand inside JSON strings, so this never
 * changes the JSON's structure.
 */
export function jsonEscaped(json: string): string {
  const unit = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
  return hasHidden(json) ? json.replace(HIDDEN, (c) => unit(c.charCodeAt(0)) + (c.length > 1 ? unit(c.charCodeAt(1)) : '')) : json;
}

export interface HiddenFound {
  /** Every occurrence. */
  count: number;
  /** Each distinct character once, in the order first found. */
  chars: HiddenChar[];
}

/** How many hidden characters the text holds, and which. */
export function findHidden(text: string): HiddenFound {
  if (!hasHidden(text)) return { count: 0, chars: [] };
  const seen = new Map<number, HiddenChar>();
  let count = 0;
  for (const match of text.matchAll(HIDDEN)) {
    const codePoint = match[0].codePointAt(0) as number;
    count++;
    if (!seen.has(codePoint)) seen.set(codePoint, describeHidden(codePoint));
  }
  return { count, chars: [...seen.values()] };
}

/** Distinct characters a warning names before it says "and N more". */
const NAMED_IN_WARNING = 8;

/**
 * A warning for a person about to decide: `These arguments hold 2 invisible or direction-changing
 * characters (U+202E, U+202C): shown marked below.` Undefined when there are none.
 */
export function hiddenWarning(
  found: HiddenFound,
  {
    what = 'These arguments',
    shown = 'shown marked below',
  }: {
    /** Whose text it is (default `These arguments`). */
    what?: string;
    /** Where and how they are shown (default `shown marked below`; the CLI's: `shown as \u escapes above`). */
    shown?: string;
  } = {},
): string | undefined {
  if (found.count === 0) return undefined;
  const labels = found.chars.slice(0, NAMED_IN_WARNING).map((c) => c.label);
  const more = found.chars.length > NAMED_IN_WARNING ? `, and ${found.chars.length - NAMED_IN_WARNING} more` : '';
  const noun = found.count === 1 ? 'character' : 'characters';
  return `${what} hold ${found.count === 1 ? 'an' : found.count} invisible or direction-changing ${noun} (${labels.join(', ')}${more}): ${shown}.`;
}
