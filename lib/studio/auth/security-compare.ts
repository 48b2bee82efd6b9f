/**
 * Comparing secrets (the setup token, a session token's signature) without telling an attacker, by the
 * time it takes, how much of a guess was right: both sides are hashed to SHA-256 digests, always 32
 * bytes, and the digests are compared with crypto.timingSafeEqual (which needs equal lengths and takes
 * the same time wherever they differ). Hashing first also hides the expected secret's length.
 *
 * Plain node:crypto: the proxy, the server and the tests use it.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

function digest(value: string | Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Whether `given` equals `expected`, in constant time; false for anything that is not a string or a Buffer. */
export function secretsEqual(given: unknown, expected: string | Buffer): boolean {
  if (typeof given !== 'string' && !Buffer.isBuffer(given)) return false;
  // Both digests are computed before comparing, whatever `given` is, and timingSafeEqual always sees 32 bytes.
  const a = digest(given);
  const b = digest(expected);
  return timingSafeEqual(a, b);
}
