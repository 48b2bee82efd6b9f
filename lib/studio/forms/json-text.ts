/**
 * JSON text a person typed or pasted in the Studio (an answer for the model, a tool's output, changed
 * arguments), parsed at the edge. Bigger than MAX_TYPED_JSON_BYTES is refused with its size: a person
 * pasting a megabyte into an answer most likely pasted the wrong thing, and the model would read all
 * of it on every later step. Larger values belong to code (journal.provideToolResult), which the
 * journal's own event limit bounds.
 */
import { z } from 'zod';

export const MAX_TYPED_JSON_BYTES = 256 * 1024;

const kb = (bytes: number) => `${Math.ceil(bytes / 1024).toLocaleString('en-US')} KB`;

export const jsonText = z.string().transform((text, ctx) => {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_TYPED_JSON_BYTES) {
    ctx.addIssue({
      code: 'custom',
      message: `This is ${kb(bytes)}; the Studio takes at most ${kb(MAX_TYPED_JSON_BYTES)} typed or pasted. Give the model a summary or a link instead. Nothing was recorded.`,
    });
    return z.NEVER;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `This is not valid JSON: ${(error as Error).message}` });
    return z.NEVER;
  }
});
