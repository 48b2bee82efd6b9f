/**
 * Who is signed in: the session cookie (session-token.ts) names an operator account, which must still
 * exist and be enabled (lib/accounts getOperator), checked on every page, action and stream. Server-only.
 *
 * The cookie is HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it, so a
 * forged cross-site request arrives signed out; Next also refuses server actions whose Origin is not
 * this host), Secure except over plain http on loopback (session-cookie.ts).
 */
import 'server-only';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getOperator, type Operator } from '@/lib/accounts';
import { sessionCookieOptions, sessionCookieSecure } from './session-cookie';
import { SESSION_COOKIE, signSessionToken, verifySessionToken } from './session-token';

/** The signed-in operator, or undefined (no cookie, a bad or expired one, an account since disabled). */
export async function currentOperator(): Promise<Operator | undefined> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  const claims = verifySessionToken(token);
  if (!claims) return undefined;
  const operator = await getOperator(claims.operatorId);
  return operator && !operator.disabled ? operator : undefined;
}

/** Secure except over plain http on loopback (session-cookie.ts), decided from this request. */
async function secure(): Promise<boolean> {
  const request = await headers();
  return sessionCookieSecure({ proto: request.get('x-forwarded-proto'), host: request.get('host'), forwardedHost: request.get('x-forwarded-host') });
}

/** Signs `operator` in (in a server action or route handler). */
export async function startSession(operator: Operator): Promise<void> {
  (await cookies()).set(SESSION_COOKIE, signSessionToken({ operatorId: operator.id }), sessionCookieOptions(await secure()));
}

export async function endSession(): Promise<void> {
  (await cookies()).delete(SESSION_COOKIE);
}

/** For route handlers: the operator, or the 401 answer to send instead. */
export async function operatorOrRefusal(): Promise<{ operator: Operator } | { refusal: Response }> {
  const operator = await currentOperator();
  if (operator) return { operator };
  return { refusal: Response.json({ error: 'Sign in to the Studio first.' }, { status: 401, headers: { 'Cache-Control': 'no-store' } }) };
}

/** For pages: the operator, or a redirect to the sign-in page. */
export async function requireOperator(): Promise<Operator> {
  const operator = await currentOperator();
  if (!operator) redirect('/sign-in');
  return operator;
}
