import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { jsonSchema } from 'ai';
import { JournalDataError } from '../errors';
import { assertOutputMatchesSchema, checkOutputSchema } from './output-check';

const refundOutput = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), refund: z.object({ refundId: z.string(), amount: z.number() }) }),
  z.object({ ok: z.literal(false), refused: z.string() }),
]);

describe("an operator's output for a side effect", () => {
  it('is accepted as any JSON when the tool has no output schema', async () => {
    expect(await checkOutputSchema({ schema: undefined, toolName: 'refund', output: { anything: [1, 'two'] } })).toEqual({
      ok: true,
      value: { anything: [1, 'two'] },
    });
  });

  it('is checked against a zod output schema, naming the fields that do not fit', async () => {
    expect(await checkOutputSchema({ schema: refundOutput, toolName: 'issueRefund', output: { ok: true, refund: { refundId: 'r_1', amount: 40 } } })).toEqual({
      ok: true,
      value: { ok: true, refund: { refundId: 'r_1', amount: 40 } },
    });
    // What is recorded is the parsed value: keys the schema does not know are dropped, "__proto__" too.
    const hostile = JSON.parse('{"ok":true,"refund":{"refundId":"r_1","amount":40,"injected":1},"__proto__":{"admin":true},"constructor":"x"}');
    const parsed = await checkOutputSchema({ schema: refundOutput, toolName: 'issueRefund', output: hostile });
    expect(parsed).toEqual({ ok: true, value: { ok: true, refund: { refundId: 'r_1', amount: 40 } } });
    expect(Object.keys((parsed as { value: object }).value)).toEqual(['ok', 'refund']);
    const refused = await checkOutputSchema({ schema: refundOutput, toolName: 'issueRefund', output: { ok: true, refund: { refundId: 7 } } });
    if (refused.ok) throw new Error('expected a refusal');
    expect(refused.issues.map((i) => i.path)).toEqual(['refund.refundId', 'refund.amount']);
    expect(refused.message).toMatch(/^The output does not match issueRefund's output schema: refund\.refundId: .*; refund\.amount: .*\.$/);
  });

  it('names a whole value that does not fit without a path, and a tool it is not told as "the tool"', async () => {
    const refused = await checkOutputSchema({ schema: z.number(), output: 'forty' });
    if (refused.ok) throw new Error('expected a refusal');
    expect(refused.issues).toEqual([{ path: '', message: expect.any(String) }]);
    expect(refused.message).toBe("The output does not match the tool's output schema: must be a number, not a string.");
  });

  it('is checked against a JSON Schema (jsonSchema()) by its validate function; without one the AI SDK trusts the value', async () => {
    const shape = { type: 'object', properties: { sent: { type: 'boolean' } }, required: ['sent'] } as const;
    const validate = (value: unknown) =>
      typeof (value as { sent?: unknown })?.sent === 'boolean'
        ? { success: true as const, value: value as { sent: boolean } }
        : { success: false as const, error: new Error('sent: expected a boolean') };
    const checked = jsonSchema<{ sent: boolean }>(shape, { validate });
    expect(await checkOutputSchema({ schema: checked, output: { sent: true } })).toEqual({ ok: true, value: { sent: true } });
    expect(await checkOutputSchema({ schema: checked, output: { sent: 'yes' } })).toMatchObject({
      ok: false,
      message: "The output does not match the tool's output schema: sent: expected a boolean.",
    });
    expect((await checkOutputSchema({ schema: jsonSchema<{ sent: boolean }>(shape), output: { sent: 'yes' } })).ok).toBe(true);
  });

  it('the journal refuses with the same reasons: a JournalDataError naming the call and each field', async () => {
    const error = await assertOutputMatchesSchema({
      schema: refundOutput,
      toolCallId: 'call-1',
      output: { ok: true, refund: { refundId: 'r', amount: '40' } },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(JournalDataError.isInstance(error)).toBe(true);
    const refused = error as JournalDataError;
    expect(refused.outputMismatch).toEqual({ toolCallId: 'call-1', issues: [{ path: 'refund.amount', message: expect.any(String) }] });
    expect(refused.message).toMatch(
      /^resolveSideEffect: the output for call call-1 does not match the tool's output schema: refund\.amount: .*\. Nothing was recorded\.$/,
    );
    expect(refused.cause).toBeDefined();
    await expect(assertOutputMatchesSchema({ schema: refundOutput, toolCallId: 'c', output: { ok: false, refused: 'no', extra: 1 } })).resolves.toEqual({
      ok: false,
      refused: 'no',
    });
  });
});

describe('plain issue messages', () => {
  it("says zod's common defaults plainly and keeps a schema's own words", async () => {
    const schema = z.object({
      refundId: z.string().min(1),
      note: z.string().max(3),
      amount: z.number().positive(),
      count: z.number().min(2),
      tags: z.array(z.string()).min(1),
      custom: z.string().min(1, 'say which order'),
    });
    const refused = await checkOutputSchema({ schema, output: { refundId: '', note: 'long', amount: 0, count: 1, tags: [], custom: '' } });
    if (refused.ok) throw new Error('expected a refusal');
    expect(Object.fromEntries(refused.issues.map((i) => [i.path, i.message]))).toEqual({
      refundId: 'is empty: write something',
      note: 'is too long: at most 3 characters',
      amount: 'must be greater than 0',
      count: 'must be at least 2',
      tags: 'needs at least 1 item',
      custom: 'say which order',
    });
    const missing = await checkOutputSchema({ schema: z.object({ id: z.string() }), output: {} });
    expect(missing.ok === false && missing.issues[0]?.message).toBe('is missing: give a string');
  });
});
