/**
 * Password hashes: scrypt (node:crypto) with a random 16-byte salt per hash, stored self-describing as
 * `$scrypt$ln=15,r=8,p=3$<salt>$<hash>` (base64url), so the cost can be raised later without losing
 * the accounts hashed before. Verification recomputes the hash with the stored parameters and compares
 * with timingSafeEqual. scrypt runs on libuv's thread pool (async), never blocking the Studio's server.
 *
 * Cost: N = 2^15, r = 8, p = 3, one of the equivalent minimums OWASP's password storage cheat sheet
 * lists (with N = 2^17, p = 1): 32 MiB per hash instead of 128 MiB, about 165 ms on a 2-core machine.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface ScryptCost {
  /** log2 of N. */
  ln: number;
  r: number;
  p: number;
}

export const DEFAULT_COST: ScryptCost = { ln: 15, r: 8, p: 3 };

const KEY_LENGTH = 32;
const SALT_BYTES = 16;
// Bounds for parameters read back from the database: a tampered row must not make a sign-in allocate gigabytes.
const LIMITS = { ln: [10, 20], r: [1, 32], p: [1, 16] } as const;

/** The same password typed on two systems may arrive in two Unicode forms: hash one form. */
function passwordBytes(password: string): Buffer {
  return Buffer.from(password.normalize('NFC'), 'utf8');
}

function derive(password: string, salt: Buffer, cost: ScryptCost, keyLength: number): Promise<Buffer> {
  const N = 2 ** cost.ln;
  return new Promise((resolve, reject) =>
    scrypt(passwordBytes(password), salt, keyLength, { N, r: cost.r, p: cost.p, maxmem: 256 * N * cost.r }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string, cost: ScryptCost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost, KEY_LENGTH);
  return `$scrypt$ln=${cost.ln},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

interface ParsedHash {
  cost: ScryptCost;
  salt: Buffer;
  key: Buffer;
}

export function parsePasswordHash(stored: string): ParsedHash | undefined {
  const match = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{16,})$/.exec(stored);
  if (!match) return undefined;
  const cost = { ln: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
  for (const name of ['ln', 'r', 'p'] as const) {
    const [min, max] = LIMITS[name];
    if (cost[name] < min || cost[name] > max) return undefined;
  }
  return { cost, salt: Buffer.from(match[4] as string, 'base64url'), key: Buffer.from(match[5] as string, 'base64url') };
}

/**
 * True when `password` hashes to `stored`. The comparison takes the same time wherever the first
 * differing byte is. A stored value that is not a hash this module wrote is an error, not a mismatch:
 * it means the account's row is damaged, which an operator must hear about.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parsePasswordHash(stored);
  if (!parsed) throw new Error('The stored password hash is not in the $scrypt$ format lib/accounts writes: the account row is damaged.');
  const key = await derive(password, parsed.salt, parsed.cost, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

let dummy: Promise<string> | undefined;

/**
 * Burns the time of one verification for a login that does not exist, so that the answer's timing does
 * not tell an unknown login from a wrong password.
 */
export async function verifyAgainstNothing(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(18).toString('base64url'));
  await verifyPassword(password, await dummy);
  return false;
}
