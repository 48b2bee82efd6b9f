import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../identity/idempotency-key';
import { ENVELOPE_KEY, isEnvelope, looksLikeApiKey, REDACTED, redactSecrets, SecretFields, secretFieldsFromEnv } from './secret-fields';

const fields = new SecretFields();

describe('secret-fields.ts', () => {
  it("is browser-safe: it imports nothing (the Studio's wire, bundled for the browser, uses it)", () => {
    const source = readFileSync(new URL('./secret-fields.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^\s*import\s/m);
    expect(source).not.toMatch(/\brequire\(/);
  });
});

describe('secret field names', () => {
  it('match the default list case-insensitively, ignoring _ and -, and as a suffix for names of 5+ characters', () => {
    for (const name of [
      'password',
      'PASSWORD',
      'apiKey',
      'api_key',
      'API-KEY',
      'x-api-key',
      'clientSecret',
      'accessToken',
      'Authorization',
      'cardNumber',
      'card_number',
      'cvv',
      'pin',
    ]) {
      expect(fields.isSecretField(name), name).toBe(true);
    }
  });

  it("leave GNL's and the AI SDK's own fields alone", () => {
    for (const name of [
      'idempotencyKey',
      'toolCallId',
      'inputTokens',
      'outputTokens',
      'maxTokens',
      'requestHash',
      'amount',
      'orderId',
      'spin',
      'secretName',
      'tokenizer',
      'key',
      'by',
    ]) {
      expect(fields.isSecretField(name), name).toBe(false);
    }
  });

  it('are configurable: extra names, or a list of its own', () => {
    expect(secretFieldsFromEnv({ GNL_SECRET_FIELDS: 'iban, taxId' }).isSecretField('tax_id')).toBe(true);
    expect(secretFieldsFromEnv({}).isSecretField('iban')).toBe(false);
    const own = new SecretFields({ fields: ['iban'] });
    expect(own.isSecretField('IBAN')).toBe(true);
    expect(own.isSecretField('password')).toBe(false);
  });

  it('are found in JSON text by the pre-check, also escaped inside a JSON string', () => {
    expect(fields.namePattern.test(JSON.stringify({ a: { api_key: 1 } }))).toBe(true);
    expect(fields.namePattern.test(JSON.stringify({ input: JSON.stringify({ apiKey: 'x' }) }))).toBe(true);
    expect(fields.namePattern.test(JSON.stringify({ usage: { inputTokens: 3 }, text: 'my password is long' }))).toBe(false);
  });
});

describe('credential-looking values', () => {
  it('are known shapes', () => {
    const keys = [
      'sk-proj-abcdefghijklmnopqrstuvwxyz012345',
      'sk-ant-api03-abcdefghijklmnopqrstuvwxyz',
      'sk_live_51Habcdefghijklmnopqrstu',
      'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
      'xoxb-123456789012-1234567890123-abcdefghijklmnop',
      'AKIAIOSFODNN7EXAMPLE',
      'AIzaSyA-abcdefghijklmnopqrstuvwxyz01234',
      'glpat-abcdefghijklmnopqrst',
      'Bearer abcdefghijklmnopqrstuvwxyz0123456789',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIE...',
    ];
    for (const key of keys) expect(looksLikeApiKey(key), key).toBe(true);
  });

  it('are not ids, hashes, idempotency keys, prose or short strings', () => {
    const others = [
      'call_8f2JkQ0aZx9YbLmN3pQrStUv',
      'toolu_01A09q90qw90lq917835lq9',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      idempotencyKey({ kind: 'args', runId: 'r', toolName: 't', input: { a: 1 } }),
      '550e8400-e29b-41d4-a716-446655440000',
      'sk-short',
      'Please ask for the sk- prefix of your key',
      'Bearer token',
      'skeleton-crew-of-the-ship-and-more',
      'o_17',
    ];
    for (const value of others) expect(looksLikeApiKey(value), value).toBe(false);
  });
});

describe('redactSecrets', () => {
  it('replaces secret fields at any depth, key-looking values, envelopes, and secrets inside a string holding JSON', () => {
    const value = {
      input: { apiKey: 'plain-secret-1', amount: 40, nested: [{ password: { any: 'shape' } }], note: 'sk-proj-abcdefghijklmnopqrstuvwxyz012345' },
      sealed: { '$gnl:enc': 'v1:0000:AAAA' },
      result: { content: [{ type: 'tool-call', input: JSON.stringify({ token: 'xyz', orderId: 'o_17' }) }] },
      idempotencyKey: 'gnl1a_abc',
    };
    const redacted = redactSecrets(value, fields);
    expect(redacted).toEqual({
      input: { apiKey: REDACTED, amount: 40, nested: [{ password: REDACTED }], note: REDACTED },
      sealed: REDACTED,
      result: { content: [{ type: 'tool-call', input: JSON.stringify({ token: REDACTED, orderId: 'o_17' }) }] },
      idempotencyKey: 'gnl1a_abc',
    });
    expect(JSON.stringify(redacted)).not.toMatch(/plain-secret-1|xyz|sk-proj/);
  });

  it('tells an envelope (one own key, a string) from everything that only resembles one', () => {
    expect(isEnvelope({ [ENVELOPE_KEY]: 'v1.abc' })).toBe(true);
    expect(isEnvelope(Object.assign(Object.create(null), { [ENVELOPE_KEY]: 'v1.abc' }))).toBe(true);
    expect(isEnvelope(JSON.parse(`{"${ENVELOPE_KEY}": "v1.abc"}`))).toBe(true);
    expect(isEnvelope({ [ENVELOPE_KEY]: 'v1.abc', other: 1 })).toBe(false);
    expect(isEnvelope({ other: 1, [ENVELOPE_KEY]: 'v1.abc' })).toBe(false);
    expect(isEnvelope({ [ENVELOPE_KEY]: 1 })).toBe(false);
    expect(isEnvelope(Object.create({ [ENVELOPE_KEY]: 'v1.abc' }))).toBe(false);
    expect(isEnvelope([ENVELOPE_KEY])).toBe(false);
    expect(isEnvelope({})).toBe(false);
    expect(isEnvelope(null)).toBe(false);
    expect(isEnvelope('v1.abc')).toBe(false);
  });
});
