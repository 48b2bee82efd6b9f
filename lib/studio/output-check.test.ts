import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkOutput } from './output-check';

const refundOutput = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), refund: z.object({ refundId: z.string(), amount: z.number() }) }),
  z.object({ ok: z.literal(false), refused: z.string() }),
]);

describe("an operator's output for a side effect", () => {
  it('is accepted as any JSON when the tool has no output schema', async () => {
    expect(await checkOutput({ schema: undefined, toolName: 'refund', output: { anything: [1, 'two'] } })).toEqual({ ok: true });
  });

  it('is checked against a zod output schema, naming the fields that do not fit', async () => {
    expect(await checkOutput({ schema: refundOutput, toolName: 'issueRefund', output: { ok: true, refund: { refundId: 'r_1', amount: 40 } } })).toEqual({
      ok: true,
    });
    const refused = await checkOutput({ schema: refundOutput, toolName: 'issueRefund', output: { ok: true, refund: { refundId: 7 } } });
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.message).toMatch(/^The output does not match issueRefund's output schema: refund\.refundId: .*; refund\.amount: /);
  });
});
