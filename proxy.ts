/**
 * Every request to the Studio passes here before anything renders:
 *
 * 1. The host: the Studio answers only the hosts it is configured for (loopback names, and
 *    GNL_STUDIO_ALLOWED_HOSTS), read from Host, or from X-Forwarded-Host only behind a proxy the operator
 *    declared (GNL_STUDIO_TRUST_PROXY=1): lib/studio/auth/request-host.ts. Another host is 421, which also
 *    closes DNS rebinding (a page of another name that resolves to this machine).
 * 2. The session: every page and API route requires a signed-in operator. The session cookie's
 *    signature and expiry are checked here (no database): a page request without a valid one is
 *    redirected to the sign-in page, anything else (API routes, the event streams, server action POSTs)
 *    gets 401 (except /api/health: up or down, for load balancers; and /api/metrics for a scraper with
 *    GNL_METRICS_TOKEN). Pages, actions and route handlers check again with the database (session.ts), which also
 *    ends revoked sessions and those of disabled accounts.
 * 3. The origin: a request that changes something (any method but GET and HEAD: server actions, the
 *    sign-in form) must come from this Studio's own pages: its Origin must name the host of step 1,
 *    else 403. Browsers always send Origin with such requests; Next makes the same check for server
 *    actions but lets a request without Origin through, and trusts X-Forwarded-Host; this does neither.
 *    /api/v1/ is the HTTP API for services: it takes API tokens only (lib/server), so it passes here
 *    after the host check, with neither the session nor the Origin check.
 * 4. The page's Content-Security-Policy, with a nonce made for this request (Next reads it from the
 *    request's header and puts it on its scripts): lib/studio/auth/security-headers.ts. The headers every
 *    response carries are set in next.config.ts; the answers made here carry them too.
 *
 * lib/studio/auth/security-routes.test.ts drives this with every page and route of app/.
 */
import { type NextRequest, NextResponse } from 'next/server';
import { bearerMatches } from '@/lib/studio/auth/metrics-token';
import { type HostPolicy, hostAllowed, hostPolicyFromEnv, originMatches, requestHost } from '@/lib/studio/auth/request-host';
import { newNonce, pagePolicy, SECURITY_HEADERS } from '@/lib/studio/auth/security-headers';
import { SESSION_COOKIE, verifySessionToken } from '@/lib/studio/auth/session-token';

/** Open without a session: signing in, the first account (its one-time link), and health (up or down only). */
const PUBLIC = ['/sign-in', '/setup', '/api/health'];

let policy: { key: string; value: HostPolicy } | undefined;
/** The host policy of the current environment (read again only when the variables change). */
function hostPolicy(): HostPolicy {
  const key = `${process.env.GNL_STUDIO_TRUST_PROXY ?? ''}\n${process.env.GNL_STUDIO_ALLOWED_HOSTS ?? ''}`;
  if (policy?.key !== key) policy = { key, value: hostPolicyFromEnv() };
  return policy.value;
}

function withSecurityHeaders<T extends Response>(response: T): T {
  for (const { key, value } of SECURITY_HEADERS) response.headers.set(key, value);
  return response;
}

/**
 * The largest server action body the Studio takes: a longer one is refused here with 413. Next's own limit
 * is 1 MiB, but React's decoder of the arguments stops at a million array slots (a string counts its
 * length) and Next answers that with a 500: a body between the two was a 500 (security.spec.ts). No
 * JSON body under a million bytes holds a million slots.
 */
const ACTION_BODY_LIMIT = 1_000_000;

function refuse(status: 401 | 403 | 413 | 421 | 500, error: string): NextResponse {
  return withSecurityHeaders(NextResponse.json({ error }, { status, headers: { 'Cache-Control': 'no-store' } }));
}

export function proxy(request: NextRequest) {
  let hosts: HostPolicy;
  try {
    hosts = hostPolicy();
  } catch (error) {
    return refuse(500, (error as Error).message);
  }
  const host = requestHost({ host: request.headers.get('host') ?? request.nextUrl.host, forwardedHost: request.headers.get('x-forwarded-host') }, hosts);
  if (!hostAllowed(host, hosts)) {
    return refuse(
      421,
      `This Studio does not answer the host ${JSON.stringify(host ?? '')}: it answers loopback names and those in GNL_STUDIO_ALLOWED_HOSTS (docs/security.md).`,
    );
  }

  const { pathname, search } = request.nextUrl;
  // The HTTP API for services (docs/api.md) takes API tokens, never the session cookie, so neither the
  // session nor the Origin check applies: a browser never sends a bearer token on its own. The API
  // checks the token on every request (lib/server/api-handler.ts).
  if (pathname === '/api/v1' || pathname.startsWith('/api/v1/')) return withSecurityHeaders(NextResponse.next());
  // A Prometheus scraper holding GNL_METRICS_TOKEN reads /api/metrics without a session (the route checks again).
  let scraper: boolean;
  try {
    scraper = pathname === '/api/metrics' && request.method === 'GET' && bearerMatches(request.headers.get('authorization'));
  } catch (error) {
    return refuse(500, (error as Error).message);
  }
  const isPublic = scraper || PUBLIC.some((path) => pathname === path || pathname.startsWith(`${path}/`));
  const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
  // A server action's body over the limit: 413 with a reason, not Next's 500 or its 200 with an error digest.
  const declaredLength = Number(request.headers.get('content-length') ?? '0');
  if (unsafe && request.headers.has('next-action') && declaredLength > ACTION_BODY_LIMIT)
    return refuse(413, `The request body is ${declaredLength} bytes; a Studio action takes at most ${ACTION_BODY_LIMIT}.`);
  if (!isPublic && !verifySessionToken(request.cookies.get(SESSION_COOKIE)?.value)) {
    if (pathname.startsWith('/api/') || unsafe) return refuse(401, 'Sign in to the Studio first.');
    const signIn = request.nextUrl.clone();
    signIn.pathname = '/sign-in';
    signIn.search = '';
    if (pathname !== '/') signIn.searchParams.set('next', `${pathname}${search}`);
    return withSecurityHeaders(NextResponse.redirect(signIn));
  }
  if (unsafe && !originMatches(request.headers.get('origin'), host))
    return refuse(403, 'Refused: this request did not come from the Studio’s own pages (its Origin is missing or another site).');

  const csp = pagePolicy(newNonce(), { development: process.env.NODE_ENV === 'development' });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('content-security-policy', csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  withSecurityHeaders(response);
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
