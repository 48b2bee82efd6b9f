import { describe, expect, it } from 'vitest';
import { secretsEqual } from './security-compare';

describe('secretsEqual', () => {
  it('is true only for the same secret', () => {
    expect(secretsEqual('s3cret-token', 's3cret-token')).toBe(true);
    expect(secretsEqual(Buffer.from('s3cret-token'), 's3cret-token')).toBe(true);
    expect(secretsEqual('s3cret-tokem', 's3cret-token')).toBe(false);
    expect(secretsEqual('S3cret-token', 's3cret-token')).toBe(false);
  });

  it('compares secrets of different lengths without throwing (timingSafeEqual alone would throw)', () => {
    expect(secretsEqual('s3cret', 's3cret-token')).toBe(false);
    expect(secretsEqual('s3cret-token-and-more', 's3cret-token')).toBe(false);
    expect(secretsEqual('', 's3cret-token')).toBe(false);
    expect(secretsEqual('x'.repeat(100_000), 's3cret-token')).toBe(false);
  });

  it('refuses what is not a secret at all', () => {
    for (const given of [undefined, null, 42, {}, ['s3cret-token']]) expect(secretsEqual(given, 's3cret-token')).toBe(false);
  });

  it('is built on timingSafeEqual over equal-length digests (read from its source)', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(new URL('./security-compare.ts', import.meta.url), 'utf8');
    expect(source).toMatch(/timingSafeEqual\(a, b\)/);
    expect(source).toMatch(/createHash\('sha256'\)/);
    expect(source).not.toMatch(/===\s*expected|expected\s*===/);
  });
});
