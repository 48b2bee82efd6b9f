/**
 * Signing in and the first account. Server-only.
 *
 * On a fresh machine there is no operator yet. At start (boot.ts) the Studio then either creates one
 * from GNL_STUDIO_OPERATOR_LOGIN / _NAME / _PASSWORD, or makes a one-time setup token and prints the
 * link /setup?token=… (as Jupyter does): whoever has the server's console creates the first account
 * there. The token lives in this process only and stops working once any account exists.
 */
import 'server-only';
import { randomBytes } from 'node:crypto';
import { addOperator, countOperators, type Operator, OperatorExistsError, OperatorInputError, verifyOperator } from '@/lib/accounts';
import { secretsEqual } from './security-compare';
import { startSession } from './session';
import { limitMessage, signInLimiter } from './sign-in-rate-limit';

const tokenKey = Symbol.for('gnl.studio.setupToken');
const global = globalThis as Record<symbol, string | undefined>;

export type SignInResult = { ok: true; operator: Operator } | { ok: false; message: string; retryAfterSeconds?: number };

/**
 * Checks a login and password and starts the session. Rate-limited (sign-in-rate-limit.ts): past the
 * limit for the login or the client address, refused with the wait, before any password is checked.
 */
export async function signIn(args: { login: string; password: string; address?: string | undefined }): Promise<SignInResult> {
  const limiter = signInLimiter();
  const attempt = { login: args.login, address: args.address };
  // Counted as a failure before the password is checked, so attempts sent at once cannot all slip in.
  const allowed = await limiter.admit(attempt, Date.now());
  if (!allowed.ok) return { ok: false, message: limitMessage(allowed), retryAfterSeconds: allowed.retryAfterSeconds };
  const verified = await verifyOperator(args.login, args.password);
  if (!verified.ok) return { ok: false, message: verified.message };
  await limiter.recordSuccess(attempt, allowed.counted);
  await startSession(verified.operator);
  return { ok: true, operator: verified.operator };
}

/** A new setup token (boot.ts prints the link); replaces any earlier one. */
export function newSetupToken(): string {
  global[tokenKey] = randomBytes(24).toString('base64url');
  return global[tokenKey];
}

export function setupTokenValid(token: string | undefined): boolean {
  const expected = global[tokenKey];
  return expected !== undefined && secretsEqual(token, expected);
}

export async function needsFirstOperator(): Promise<boolean> {
  return (await countOperators()) === 0;
}

/** Creates the first operator with the setup token, and signs them in. Refused once any account exists. */
export async function createFirstOperator(args: { token: string; login: string; name: string; password: string }): Promise<SignInResult> {
  if (!setupTokenValid(args.token)) return { ok: false, message: 'This setup link is not valid: use the one the Studio printed when it started.' };
  if (!(await needsFirstOperator()))
    return { ok: false, message: 'The first operator exists already: sign in, or ask an operator to add you (npx gnl operators add).' };
  try {
    const operator = await addOperator({ login: args.login, name: args.name, password: args.password, by: 'studio setup link' });
    global[tokenKey] = undefined;
    await startSession(operator);
    return { ok: true, operator };
  } catch (error) {
    if (OperatorInputError.isInstance(error) || OperatorExistsError.isInstance(error)) return { ok: false, message: error.message };
    throw error;
  }
}
