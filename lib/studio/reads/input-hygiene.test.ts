/**
 * Text that enters the Studio from a request (issue 34, findings 1 and 2): a run id with a NUL or
 * another control character names no run (every route answers 404, never a 500 from the database); a
 * filter's text with one is refused by the JSON routes (400) and cleaned by the pages; a chat message's
 * parts are text and nothing else, unknown keys dropped before anything reaches a run.
 */
import { describe, expect, it } from 'vitest';
import { chatRequestSchema } from '../chat/chat-request';
import { decodeRunSegment, encodeRunSegment } from './run-path';
import { filterTextProblem, parseFilterText } from './runs';
import { logText } from '../log-text';

describe('input hygiene at the Studio’s edges', () => {
  it('a run segment that decodes to an id with a control character, an empty one or one too long names no run', () => {
    for (const id of ['support:\u0000x', 'a\nb', 'tab\there', '\u007f', 'x'.repeat(513)]) expect(decodeRunSegment(encodeRunSegment(id))).toBeUndefined();
    expect(decodeRunSegment('support:%00x')).toBeUndefined();
    expect(decodeRunSegment('')).toBeUndefined();
    // Printable ids still round-trip, invisible characters included (they are marked, not refused: docs/limits.md).
    for (const id of ['support:o_18', 'a\u200bb', 'x'.repeat(512)]) expect(decodeRunSegment(encodeRunSegment(id))).toBe(id);
  });

  it('a filter with a NUL or a line break: refused by the routes with a reason, cleaned by the pages', () => {
    expect(filterTextProblem('q', '\u0000\nforged log line')).toBe('q must not contain control characters (a NUL, a line break).');
    expect(filterTextProblem('agent', 'support')).toBeUndefined();
    expect(filterTextProblem('q', null)).toBeUndefined();
    expect(parseFilterText('ref\u0000und\n')).toBe('refund');
    expect(parseFilterText('\u0000\n')).toBeUndefined();
  });

  it('a chat message keeps only what a text part is: providerMetadata and other keys are dropped', () => {
    const parsed = chatRequestSchema.parse({
      id: '6f1c2b9e-3d4a-4b5c-9d8e-7f6a5b4c3d2e',
      message: { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hello', providerMetadata: { openai: { x: 1 } }, injected: true }] },
    });
    expect(parsed.message.parts).toEqual([{ type: 'text', text: 'hello' }]);
    // One spelling per conversation: the upper-case one is the same conversation.
    expect(
      chatRequestSchema.parse({ ...{ id: '6F1C2B9E-3D4A-4B5C-9D8E-7F6A5B4C3D2E' }, message: { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'x' }] } })
        .id,
    ).toBe('6f1c2b9e-3d4a-4b5c-9d8e-7f6a5b4c3d2e');
    expect(
      chatRequestSchema.safeParse({ id: '6f1c2b9e-3d4a-4b5c-9d8e-7f6a5b4c3d2e', message: { id: 'm1', role: 'user', parts: [{ type: 'file', url: 'x' }] } })
        .success,
    ).toBe(false);
  });
});

describe('a log line holds outside text as escapes', () => {
  it('a newline, a NUL or a line separator cannot end the line', () => {
    expect(logText('bad\nstudio: forged line\u0000\u2028')).toBe('bad\\nstudio: forged line\\u0000\\u2028');
    expect(logText(new Error('tool said\r\nno'))).toBe('tool said\\r\\nno');
    expect(logText('plain: ünïcode ok')).toBe('plain: ünïcode ok');
  });
});
