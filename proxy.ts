/**
 * Every Studio page and API route requires a signed-in operator. Here, before anything renders, the
 * session cookie's signature and expiry are checked (no database): a page request without a valid one
 * is redirected to the sign-in page, anything else (API routes, the event streams, server action POSTs)
 * gets 401. Pages, actions and route handlers check again with the database (session.ts), which also
 * ends the sessions of disabled accounts.
 */
import { type NextRequest, NextResponse } from 'next/server';
import { SESSION_COOKIE, verifySessionToken } from '@/lib/studio/session-token';

const PUBLIC = ['/sign-in', '/setup'];

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (PUBLIC.some((path) => pathname === path || pathname.startsWith(`${path}/`))) return NextResponse.next();
  if (verifySessionToken(request.cookies.get(SESSION_COOKIE)?.value)) return NextResponse.next();
  if (pathname.startsWith('/api/') || (request.method !== 'GET' && request.method !== 'HEAD')) {
    return NextResponse.json({ error: 'Sign in to the Studio first.' }, { status: 401, headers: { 'Cache-Control': 'no-store' } });
  }
  const signIn = new URL('/sign-in', request.url);
  if (pathname !== '/') signIn.searchParams.set('next', `${pathname}${search}`);
  return NextResponse.redirect(signIn);
}

export const config = {
  matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'],
};
