/**
 * Every Studio page and API route requires a signed-in operator. Here, before anything renders, the
 * session cookie's signature and expiry are checked (no database): a page request without a valid one
 * is redirected to the sign-in page, anything else (API routes, the event streams, server action POSTs)
 * gets 401. Pages, actions and route handlers check again with the database (session.ts), which also
 * ends the sessions of disabled accounts.
 *
 * A request that changes something (any method but GET and HEAD: server actions, the sign-in form) must
 * also come from this site: its Origin must name the host it was sent to (Host, or X-Forwarded-Host
 * behind a proxy), else 403. Browsers always send Origin with such requests; Next makes the same check
 * for server actions but lets a request without Origin through, this does not.
 *
 * lib/studio/security-routes.test.ts drives this with every page and route of app/.
 */
import { type NextRequest, NextResponse } from 'next/server';
import { SESSION_COOKIE, verifySessionToken } from '@/lib/studio/session-token';

const PUBLIC = ['/sign-in', '/setup'];

function refuse(status: 401 | 403, error: string): NextResponse {
  return NextResponse.json({ error }, { status, headers: { 'Cache-Control': 'no-store' } });
}

/** Whether the request's Origin names the host it was sent to. */
function sameOrigin(request: NextRequest): boolean {
  const origin = request.headers.get('origin');
  if (!origin || origin === 'null') return false;
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return false;
  }
  const hosts = [request.headers.get('x-forwarded-host')?.split(',')[0], request.headers.get('host'), request.nextUrl.host];
  return hosts.some((host) => typeof host === 'string' && host.trim().toLowerCase() === originHost);
}

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const isPublic = PUBLIC.some((path) => pathname === path || pathname.startsWith(`${path}/`));
  const unsafe = request.method !== 'GET' && request.method !== 'HEAD';
  if (!isPublic && !verifySessionToken(request.cookies.get(SESSION_COOKIE)?.value)) {
    if (pathname.startsWith('/api/') || unsafe) return refuse(401, 'Sign in to the Studio first.');
    const signIn = new URL('/sign-in', request.url);
    if (pathname !== '/') signIn.searchParams.set('next', `${pathname}${search}`);
    return NextResponse.redirect(signIn);
  }
  if (unsafe && !sameOrigin(request))
    return refuse(403, 'Refused: this request did not come from the Studio’s own pages (its Origin is missing or another site).');
  return NextResponse.next();
}

export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
