/**
 * The demo agent's tools carry output schemas, found through the agent registry: an output an operator
 * gives for a side effect marked done is checked against them, and a wrong one is refused with a reason
 * that names the fields.
 */
import { describe, expect, it } from 'vitest';
import { checkToolOutput, toolOutputJsonSchema } from './tool-output';

const refund = { refundId: 'r_1', customerId: 'c_42', orderId: 'o_17', amount: 40, currency: 'EUR', createdAt: '2026-11-29T22:00:00.000Z' };

describe('demo tool output schemas through the registry', () => {
  it('accepts what issueRefund returns, performed or refused', async () => {
    // The value to record is the parsed one: a key the schema does not know is dropped.
    expect(await checkToolOutput({ agentName: 'support', toolName: 'issueRefund', output: { ok: true, refund, injected: 1 } })).toEqual({
      ok: true,
      value: { ok: true, refund },
    });
    expect(await checkToolOutput({ agentName: 'support', toolName: 'issueRefund', output: { ok: false, refused: 'over the order total' } })).toEqual({
      ok: true,
      value: { ok: false, refused: 'over the order total' },
    });
  });

  it('refuses a wrong output and says which fields are wrong', async () => {
    const result = await checkToolOutput({ agentName: 'support', toolName: 'issueRefund', output: { ok: true, refund: { ...refund, amount: '40' } } });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/^The output does not match issueRefund's output schema: .*amount/);
    // The words the Studio's browser tests look for (e2e/studio/crash.spec.ts, postgres.spec.ts).
    const amount = await checkToolOutput({ agentName: 'support', toolName: 'issueRefund', output: { ok: true, refund: { ...refund, amount: '40 EUR' } } });
    expect(!amount.ok && amount.message).toContain("does not match issueRefund's output schema: refund.amount");
    const orderId = await checkToolOutput({ agentName: 'support', toolName: 'issueRefund', output: { ok: true, refund: { ...refund, orderId: 17 } } });
    expect(!orderId.ok && orderId.message).toContain("does not match issueRefund's output schema: refund.orderId");
    const email = await checkToolOutput({ agentName: 'support', toolName: 'sendEmail', output: { sent: true } });
    expect(email.ok).toBe(false);
  });

  it('shows the JSON Schema beside the form; a run of no registered agent accepts any JSON', async () => {
    expect(JSON.stringify(await toolOutputJsonSchema('support', 'issueRefund'))).toContain('refundId');
    expect(await toolOutputJsonSchema(undefined, 'issueRefund')).toBeUndefined();
    expect(await checkToolOutput({ agentName: undefined, toolName: 'issueRefund', output: 'anything' })).toEqual({ ok: true, value: 'anything' });
  });
});
