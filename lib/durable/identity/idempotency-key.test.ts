import { describe, expect, it } from 'vitest';
import { DEFAULT_KEY_SCHEME, idempotencyKey } from './idempotency-key';

describe('idempotencyKey', () => {
  it('scheme 1 is a fixed function of the run and the call (changing it would change every recorded key)', () => {
    expect(idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1' }, 1)).toBe(
      idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1' }, 1),
    );
    expect(idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1' }, 1)).toMatchInlineSnapshot(
      `"gnl1c_Qgf6T7EOLeH-POYd64n_G0l-qoqML3Bhb78W_QOdVN0"`,
    );
    expect(idempotencyKey({ kind: 'args', runId: 'support:42', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }, 1)).toMatchInlineSnapshot(
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
      idempotencyKey({ kind: 'call', runId: 'r1', toolCallId: 'c', toolName: 't' }),
      idempotencyKey({ kind: 'call', runId: 'r2', toolCallId: 'c', toolName: 't' }),
      idempotencyKey({ kind: 'call', runId: 'r1', toolCallId: 'd', toolName: 't' }),
      idempotencyKey({ kind: 'args', runId: 'r1', toolName: 'refund', input: { amount: 40 } }),
      idempotencyKey({ kind: 'args', runId: 'r1', toolName: 'refund', input: { amount: 41 } }),
      idempotencyKey({ kind: 'args', runId: 'r1', toolName: 'email', input: { amount: 40 } }),
      // The parts are joined unambiguously: moving a character between runId and toolCallId changes the key.
      idempotencyKey({ kind: 'call', runId: 'ab', toolCallId: 'c', toolName: 't' }),
      idempotencyKey({ kind: 'call', runId: 'a', toolCallId: 'bc', toolName: 't' }),
    ]);
    expect(keys.size).toBe(8);
  });

  it('is safe for an HTTP header whatever the runId contains', () => {
    const nasty = `support:42\r\nX-Injected: 1 "quoted" 🙂 ünïcödé ${'x'.repeat(400)}`;
    for (const key of [
      idempotencyKey({ kind: 'call', runId: nasty, toolCallId: 'call\n1', toolName: 'refund' }),
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

  it("scheme 3 (the default) is another fixed function, prefixed gnl3: scheme 2's parts, and 'args' text in NFC", () => {
    expect(DEFAULT_KEY_SCHEME).toBe(3);
    expect(idempotencyKey({ kind: 'call', runId: 'support:42', toolCallId: 'call-1', toolName: 'refund' }, 3)).toMatchInlineSnapshot(
      `"gnl3c_omu5Il_WGWObYfc2vYYa9cZiINysgebsB1D4NncIXsk"`,
    );
    expect(idempotencyKey({ kind: 'args', runId: 'support:42', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }, 3)).toMatchInlineSnapshot(
      `"gnl3a_Do42JgJE3LufuAOe77xYzKev0Kw32mwMj3775ZyeiuE"`,
    );
    expect(idempotencyKey({ kind: 'args', runId: 'r', toolName: 'refund', input: { note: 'Café' } })).toBe(
      idempotencyKey({ kind: 'args', runId: 'r', toolName: 'refund', input: { note: 'Café' } }, 3),
    );
    expect(() => idempotencyKey({ kind: 'call', runId: 'r', toolCallId: 'c' }, 3)).toThrow('Key scheme 3 names the tool in a call key');
  });

  it('scheme 3: arguments that differ only in NFC and NFD are one key; under 1 and 2 they stay two, as recorded', () => {
    const nfc = { customer: 'Zo\u00eb', items: [{ 'caf\u00e9': 'cr\u00e8me br\u00fbl\u00e9e' }] };
    const nfd = { customer: 'Zoe\u0308', items: [{ 'cafe\u0301': 'cre\u0300me bru\u0302le\u0301e' }] };
    expect(JSON.stringify(nfc)).not.toBe(JSON.stringify(nfd));
    const key = (input: unknown, scheme: 1 | 2 | 3) => idempotencyKey({ kind: 'args', runId: 'r', toolName: 'refund', input }, scheme);
    expect(key(nfd, 3)).toBe(key(nfc, 3));
    expect(key(nfd, 1)).not.toBe(key(nfc, 1));
    expect(key(nfd, 2)).not.toBe(key(nfc, 2));
    // Other differences still count.
    expect(key({ note: 'cafe' }, 3)).not.toBe(key({ note: 'caf\u00e9' }, 3));
    expect(key({ note: 'caf\u00e9 ' }, 3)).not.toBe(key({ note: 'caf\u00e9' }, 3));
  });
});
