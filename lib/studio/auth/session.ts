/**
 * Who is signed in: the session cookie (session-token.ts) names an operator and a session, which must
 * still be on (a row of gnl.operator_sessions, not revoked, its account enabled: lib/accounts
 * sessionOperator, ONE statement), checked on every page, action and route. The event streams, which
 * outlive the request that opened them, re-check on each heartbeat through a per-process cache
 * (session-liveness.ts). Signing out revokes the session in the database, so the old cookie is refused
 * everywhere from then on, not only forgotten by this browser. Server-only.
 *
 * The cookie is HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it, so a
 * forged cross-site request arrives signed out; Next also refuses server actions whose Origin is not
 * this host), Secure except over plain http on loopback (session-cookie.ts).
 */
import 'server-only';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { authorize, endOperatorSession, type Operator, type Permission, sessionOperator, startOperatorSession } from '@/lib/accounts';
import { sessionCookieOptions, sessionCookieSecure } from './session-cookie';
import { SessionLiveness } from './session-liveness';
import { SESSION_COOKIE, type SessionClaims, sessionExpiry, signSessionToken, verifySessionToken } from './session-token';

export interface StudioSession extends SessionClaims {
  operator: Operator;
}

const livenessKey = Symbol.for('gnl.studio.sessionLiveness');

/** This process's cache of which sessions are still on (one per Studio server, shared by every bundle). */
function liveness(): SessionLiveness {
  const global = globalThis as Record<symbol, SessionLiveness | undefined>;
  global[livenessKey] ??= new SessionLiveness({ lookup: async (session) => (await sessionOperator(session)) !== undefined });
  return global[livenessKey];
}

/** The signed-in session, or undefined (no cookie, a bad or expired one, signed out, an account since disabled). */
export async function currentSession(): Promise<StudioSession | undefined> {
  const claims = verifySessionToken((await cookies()).get(SESSION_COOKIE)?.value);
  if (!claims) return undefined;
  const operator = await sessionOperator(claims);
  if (!operator) {
    liveness().revoked(claims.sessionId);
    return undefined;
  }
  return { ...claims, operator };
}

/** The signed-in operator, or undefined (see currentSession). */
export async function currentOperator(): Promise<Operator | undefined> {
  return (await currentSession())?.operator;
}

/** For a stream that outlives its request: whether its session is still on (cached, session-liveness.ts). */
export function sessionStillOn(session: SessionClaims): Promise<boolean> {
  return liveness().isLive(session);
}

/** Secure except over plain http on loopback (session-cookie.ts), decided from this request. */
async function secure(): Promise<boolean> {
  const request = await headers();
  return sessionCookieSecure({ proto: request.get('x-forwarded-proto'), host: request.get('host'), forwardedHost: request.get('x-forwarded-host') });
}

/** Signs `operator` in (in a server action or route handler). */
export async function startSession(operator: Operator): Promise<void> {
  const now = new Date();
  const { sessionId } = await startOperatorSession({ operatorId: operator.id, expiresAt: sessionExpiry(now) });
  (await cookies()).set(SESSION_COOKIE, signSessionToken({ operatorId: operator.id, sessionId, now }), sessionCookieOptions(await secure()));
}

/** Signs this browser's session out: revoked in the database (audited), then the cookie is dropped. Other sessions go on. */
export async function endSession(): Promise<void> {
  const session = await currentSession();
  if (session) {
    await endOperatorSession({ sessionId: session.sessionId, operator: session.operator });
    liveness().revoked(session.sessionId);
  }
  (await cookies()).delete(SESSION_COOKIE);
}

/**
 * For route handlers: the session, or the 401 answer to send instead. A handler that changes something
 * names the permission it needs (as every server action does): an operator whose role lacks it gets 403.
 */
export async function operatorOrRefusal(permission?: Permission): Promise<{ operator: Operator; session: StudioSession } | { refusal: Response }> {
  const session = await currentSession();
  if (!session) return { refusal: Response.json({ error: 'Sign in to the Studio first.' }, { status: 401, headers: { 'Cache-Control': 'no-store' } }) };
  if (permission) {
    const { operator } = session;
    const allowed = authorize({ kind: 'operator', login: operator.login, role: operator.role }, permission);
    if (!allowed.ok)
      return {
        refusal: Response.json({ error: `${allowed.message} An admin can change your role.` }, { status: 403, headers: { 'Cache-Control': 'no-store' } }),
      };
  }
  return { operator: session.operator, session };
}

/** For pages: the operator, or a redirect to the sign-in page. */
export async function requireOperator(): Promise<Operator> {
  const operator = await currentOperator();
  if (!operator) redirect('/sign-in');
  return operator;
}
