import { describe, expect, it } from 'vitest';
import { jsonText, MAX_TYPED_JSON_BYTES } from './json-text';

describe('JSON text typed in the Studio', () => {
  it('parses JSON, names what is wrong with text that is not, and refuses more than 256 KB with its size', () => {
    expect(jsonText.parse('{"a":1}')).toEqual({ a: 1 });
    expect(jsonText.safeParse('{a:1}').error?.issues[0]?.message).toMatch(/^This is not valid JSON: /);
    const big = JSON.stringify({ text: 'x'.repeat(920 * 1024) });
    expect(jsonText.safeParse(big).error?.issues[0]?.message).toBe(
      'This is 921 KB; the Studio takes at most 256 KB typed or pasted. Give the model a summary or a link instead. Nothing was recorded.',
    );
    expect(jsonText.safeParse(JSON.stringify('y'.repeat(MAX_TYPED_JSON_BYTES - 2))).success).toBe(true);
  });
});
