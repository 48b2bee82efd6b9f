import { describe, expect, it } from 'vitest';
import { idempotencyKey } from './idempotency-key';

describe('idempotencyKey', () => {
  it('is a fixed function of the run and the call (changing it would change every recorded key)', () => {
    expect(idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1' })).toBe(
      idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1' }),
    );
    expect(idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1' })).toMatchInlineSnapshot(
      `"gnl1c_Qgf6T7EOLeH-POYd64n_G0l-qoqML3Bhb78W_QOdVN0"`,
    );
    expect(idempotencyKey({ kind: 'args', runId: 'support:42', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } })).toMatchInlineSnapshot(
      `"gnl1a_H87juEzr_ATwHwQg3Exoo-r9xvznbfE7D0JqA--D4Ro"`,
    );
  });

  it("with 'args', equal arguments give the same key whatever their key order", () => {
    const a = idempotencyKey({ kind: 'args', runId: 'r', toolName: 'refund', input: { orderId: 'o_17', amount: 40, meta: { b: 1, a: 2 } } });
    const b = idempotencyKey({ kind: 'args', runId: 'r', toolName: 'refund', input: { meta: { a: 2, b: 1 }, amount: 40, orderId: 'o_17' } });
    expect(a).toBe(b);
  });

  it('differs by run, call, tool and arguments', () => {
    const keys = new Set([
      idempotencyKey({ kind: 'call', runId: 'r1', toolCallId: 'c' }),
      idempotencyKey({ kind: 'call', runId: 'r2', toolCallId: 'c' }),
      idempotencyKey({ kind: 'call', runId: 'r1', toolCallId: 'd' }),
      idempotencyKey({ kind: 'args', runId: 'r1', toolName: 'refund', input: { amount: 40 } }),
      idempotencyKey({ kind: 'args', runId: 'r1', toolName: 'refund', input: { amount: 41 } }),
      idempotencyKey({ kind: 'args', runId: 'r1', toolName: 'email', input: { amount: 40 } }),
      // The parts are joined unambiguously: moving a character between runId and toolCallId changes the key.
      idempotencyKey({ kind: 'call', runId: 'ab', toolCallId: 'c' }),
      idempotencyKey({ kind: 'call', runId: 'a', toolCallId: 'bc' }),
    ]);
    expect(keys.size).toBe(8);
  });

  it('is safe for an HTTP header whatever the runId contains', () => {
    const nasty = `support:42\r\nX-Injected: 1 "quoted" 🙂 ünïcödé ${'x'.repeat(400)}`;
    for (const key of [
      idempotencyKey({ kind: 'call', runId: nasty, toolCallId: 'call\n1' }),
      idempotencyKey({ kind: 'args', runId: nasty, toolName: 'refund', input: { note: '\u0000' } }),
    ]) {
      expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(key.length).toBe(49);
      expect(() => new Headers({ 'Idempotency-Key': key })).not.toThrow();
    }
  });

  it('scheme 2 is another fixed function, prefixed gnl2, whose call keys also name the tool', () => {
    expect(idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1', toolName: 'refund' }, 2)).toMatchInlineSnapshot(
      `"gnl2c_UUIVdtQfsNo-eaRySxdrq21pTjkh85_FCPb8TEHGsq4"`,
    );
    expect(idempotencyKey({ kind: 'args', runId: 'support:42', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }, 2)).toMatchInlineSnapshot(
      `"gnl2a_5Rcljf0MD_RIIyVgQO9QXyvje0WpkMSYJ_9PbtzPnso"`,
    );
    const call = { kind: 'call', runId: 'r', toolCallId: 'c' } as const;
    // Scheme 1 ignores the tool in a call key; scheme 2 does not.
    expect(idempotencyKey({ ...call, toolName: 'refund' }, 1)).toBe(idempotencyKey(call, 1));
    expect(idempotencyKey({ ...call, toolName: 'refund' }, 2)).not.toBe(idempotencyKey({ ...call, toolName: 'email' }, 2));
    expect(idempotencyKey({ ...call, toolName: 'refund' }, 2)).not.toBe(idempotencyKey({ ...call, toolName: 'refund' }, 1));
    expect(() => idempotencyKey(call, 2)).toThrow('Key scheme 2 names the tool in a call key');
    expect(idempotencyKey({ ...call, toolName: 'refund' }, 2)).toMatch(/^gnl2c_[A-Za-z0-9_-]{43}$/);
  });
});
