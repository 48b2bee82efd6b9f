/**
 * The session cookie's attributes. HttpOnly (no script reads it), SameSite=Strict (no other site's page
 * sends it, so a forged cross-site request arrives signed out), path `/`, 12 hours, and Secure (sent over
 * https only) everywhere except plain http on the machine itself:
 *
 * - GNL_STUDIO_SECURE_COOKIE=1 always sets Secure, =0 never does (a Studio on a trusted network over
 *   plain http, knowingly; a browser does not keep a Secure cookie sent over http).
 * - Otherwise Secure unless the request came over http (X-Forwarded-Proto, which Next sets from the
 *   connection when no proxy did) AND names a loopback host (localhost, 127.x.x.x, [::1]) in both Host
 *   and X-Forwarded-Host: a Studio reached by any other name is served to other machines.
 *
 * Pure: session.ts passes the request's headers; the tests pass their own.
 */
import { SESSION_MAX_AGE_SECONDS } from './session-token';

type Env = Record<string, string | undefined>;

/** Whether `host` (a Host header: name or address, maybe with a port) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\](:\d+)?$/, '$1')
    .replace(/^([^:]*)(:\d+)?$/, '$1')
    .replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name) || name === '::1';
}

export function sessionCookieSecure(request: { proto?: string | null; host?: string | null; forwardedHost?: string | null }, env: Env = process.env): boolean {
  const forced = env.GNL_STUDIO_SECURE_COOKIE;
  if (forced === '1') return true;
  if (forced === '0') return false;
  if (forced !== undefined && forced !== '') throw new Error(`GNL_STUDIO_SECURE_COOKIE must be 1 or 0 (got ${JSON.stringify(forced)}).`);
  const proto = request.proto?.split(',')[0]?.trim().toLowerCase();
  if (proto !== 'http') return true;
  const hosts = [request.host, request.forwardedHost?.split(',')[0]].filter((h): h is string => typeof h === 'string' && h.trim() !== '');
  return hosts.length === 0 || !hosts.every(isLoopbackHost);
}

export interface SessionCookieOptions {
  httpOnly: true;
  sameSite: 'strict';
  secure: boolean;
  path: '/';
  maxAge: number;
}

export function sessionCookieOptions(secure: boolean): SessionCookieOptions {
  return { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: SESSION_MAX_AGE_SECONDS };
}
