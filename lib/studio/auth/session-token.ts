/**
 * The Studio's session token: `<payload>.<mac>`, both base64url, where the payload is
 * `{ v: 2, sub: <operator id>, sid: <session id>, exp: <unix seconds> }` and the mac is HMAC-SHA256 over
 * it with the session secret. It names an operator account, a session and an expiry, nothing else;
 * whether the session is still on (not signed out, the account not disabled) is checked against the
 * database on every request that acts (session.ts, lib/accounts/sessions.ts). The proxy checks only the
 * signature and expiry (no database there). Version 1 tokens (no session) are refused: they could not
 * be signed out.
 *
 * The secret: GNL_SESSION_SECRET (at least 32 characters) when set; otherwise 32 random bytes
 * generated on first use and kept in a file beside the embedded journal's folder
 * (`<GNL_DATA_DIR or .gnl/data>.session-secret`, mode 0600), so sessions survive a restart. Several
 * Studio processes behind one address (Postgres) must share GNL_SESSION_SECRET.
 *
 * Plain node:crypto and node:fs, no server-only import: the proxy and the tests use it too.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { secretsEqual } from './security-compare';

export const SESSION_COOKIE = 'gnl_session';
/** A session lasts 12 hours; then the operator signs in again. */
export const SESSION_MAX_AGE_SECONDS = 12 * 60 * 60;
export const SECRET_ENV = 'GNL_SESSION_SECRET';

type Env = Record<string, string | undefined>;

const cacheKey = Symbol.for('gnl.studio.sessionSecret');

/** Where the generated secret is kept when GNL_SESSION_SECRET is not set. */
export function secretFilePath(env: Env = process.env): string {
  // The journal's folder as the storage reads it (lib/durable/storage/data-dir.ts: unset or empty, .gnl/data),
  // without loading the storage here: the proxy reads this module.
  const dataDir = env.GNL_DATA_DIR?.trim() || path.join(process.cwd(), '.gnl', 'data');
  return `${path.resolve(/*turbopackIgnore: true*/ dataDir)}.session-secret`;
}

export function sessionSecret(env: Env = process.env): Buffer {
  const global = globalThis as Record<symbol, Buffer | undefined>;
  const given = env[SECRET_ENV];
  if (given !== undefined && given !== '') {
    if (given.length < 32) throw new Error(`${SECRET_ENV} must be at least 32 characters (it signs the Studio's sessions).`);
    return Buffer.from(given, 'utf8');
  }
  global[cacheKey] ??= readOrCreateSecret(secretFilePath(env));
  return global[cacheKey];
}

/** A secret file another user owns is refused; one others may read is made 0600, and that is said (anyone who read it can mint sessions). */
export function checkSecretFile(file: string, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): void {
  const stat = statSync(file);
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  if (uid !== undefined && stat.uid !== uid)
    throw new Error(`The session secret ${file} belongs to another user (uid ${stat.uid}); this process runs as uid ${uid}. Remove it, or set ${SECRET_ENV}.`);
  if ((stat.mode & 0o077) !== 0) {
    chmodSync(file, 0o600);
    log(
      `studio: the session secret ${file} was readable by others (mode ${(stat.mode & 0o777).toString(8)}): made 0600. Anyone who read it could sign sessions: delete the file to make a new one (everyone signs in again).`,
    );
  }
  const parent = statSync(path.dirname(file));
  // World-writable without the sticky bit: anyone can replace the file with a secret they know.
  if ((parent.mode & 0o002) !== 0 && (parent.mode & 0o1000) === 0)
    log(
      `studio: ${path.dirname(file)}, the folder of the session secret, is writable by everyone: anyone could replace the secret. Use a folder of your own (GNL_DATA_DIR).`,
    );
}

function readOrCreateSecret(file: string): Buffer {
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (text.length >= 32) {
      checkSecretFile(file);
      return Buffer.from(text, 'utf8');
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 }); // .gnl: GNL's own, private (private-folder.ts)
  try {
    // 'wx': two processes starting at once agree on the first one's secret.
    writeFileSync(file, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}

function mac(payload: string, secret: Buffer): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

/** When a session started now ends (the cookie's expiry, and its row's). */
export function sessionExpiry(now: Date = new Date()): Date {
  return new Date((Math.floor(now.getTime() / 1000) + SESSION_MAX_AGE_SECONDS) * 1000);
}

export function signSessionToken(args: { operatorId: string; sessionId: string; now?: Date; secret?: Buffer }): string {
  const exp = sessionExpiry(args.now).getTime() / 1000;
  const payload = Buffer.from(JSON.stringify({ v: 2, sub: args.operatorId, sid: args.sessionId, exp })).toString('base64url');
  return `${payload}.${mac(payload, args.secret ?? sessionSecret()).toString('base64url')}`;
}

export interface SessionClaims {
  operatorId: string;
  sessionId: string;
  expiresAt: Date;
}

/** The operator and session of a valid, unexpired token; undefined for anything else (never throws on input). */
export function verifySessionToken(token: string | undefined, options: { now?: Date; secret?: Buffer } = {}): SessionClaims | undefined {
  if (typeof token !== 'string' || token.length > 1000) return undefined;
  const [payload, given, extra] = token.split('.');
  if (!payload || !given || extra !== undefined) return undefined;
  // The signature as sent, compared in constant time with the one this secret gives (security-compare.ts).
  if (!secretsEqual(given, mac(payload, options.secret ?? sessionSecret()).toString('base64url'))) return undefined;
  let claims: { v?: unknown; sub?: unknown; sid?: unknown; exp?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (claims.v !== 2 || typeof claims.sub !== 'string' || typeof claims.sid !== 'string' || typeof claims.exp !== 'number' || claims.exp <= now)
    return undefined;
  return { operatorId: claims.sub, sessionId: claims.sid, expiresAt: new Date(claims.exp * 1000) };
}
