import { describe, expect, it } from 'vitest';
import { isLoopbackHost, sessionCookieOptions, sessionCookieSecure } from './session-cookie';
import { SESSION_MAX_AGE_SECONDS } from './session-token';

const noEnv = {};

describe('the session cookie', () => {
  it('is HttpOnly, SameSite=Strict, for the whole site, for 12 hours', () => {
    expect(sessionCookieOptions(true)).toEqual({ httpOnly: true, sameSite: 'strict', secure: true, path: '/', maxAge: SESSION_MAX_AGE_SECONDS });
    expect(SESSION_MAX_AGE_SECONDS).toBe(12 * 60 * 60);
  });

  it('is Secure over https, whatever the host', () => {
    for (const host of ['127.0.0.1:3000', 'localhost', 'studio.example.com'])
      expect(sessionCookieSecure({ proto: 'https', host, forwardedHost: host }, noEnv), host).toBe(true);
  });

  it('is Secure over plain http at any name other than loopback (the browser then keeps it only over https)', () => {
    for (const host of [
      'studio.example.com',
      '192.168.1.20:3000',
      '10.0.0.1',
      '[2001:db8::1]:3000',
      '0.0.0.0:3000',
      'localhost.example.com',
      '127.0.0.1.nip.io',
    ])
      expect(sessionCookieSecure({ proto: 'http', host, forwardedHost: host }, noEnv), host).toBe(true);
    // Reached through a proxy that names the public host: Secure, even if Host is the loopback the Studio listens on.
    expect(sessionCookieSecure({ proto: 'http', host: '127.0.0.1:3000', forwardedHost: 'studio.example.com' }, noEnv)).toBe(true);
    // No host at all, or no protocol: Secure.
    expect(sessionCookieSecure({ proto: 'http' }, noEnv)).toBe(true);
    expect(sessionCookieSecure({ host: 'localhost:3000' }, noEnv)).toBe(true);
  });

  it('is not Secure over plain http on loopback (http://127.0.0.1:3000, http://localhost:3000)', () => {
    for (const host of ['127.0.0.1:3000', '127.0.0.1', 'localhost:3000', 'LOCALHOST', 'studio.localhost:3000', '[::1]:3000', '127.1.2.3'])
      expect(sessionCookieSecure({ proto: 'http', host, forwardedHost: host }, noEnv), host).toBe(false);
  });

  it('GNL_STUDIO_SECURE_COOKIE=1 or 0 decides; anything else is refused', () => {
    expect(sessionCookieSecure({ proto: 'http', host: 'localhost' }, { GNL_STUDIO_SECURE_COOKIE: '1' })).toBe(true);
    expect(sessionCookieSecure({ proto: 'http', host: 'studio.example.com' }, { GNL_STUDIO_SECURE_COOKIE: '0' })).toBe(false);
    expect(() => sessionCookieSecure({ proto: 'http', host: 'localhost' }, { GNL_STUDIO_SECURE_COOKIE: 'yes' })).toThrow(/must be 1 or 0/);
  });

  it('knows loopback names from others', () => {
    expect(isLoopbackHost('127.0.0.1:3210')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('localhost.')).toBe(true);
    expect(isLoopbackHost('128.0.0.1')).toBe(false);
    expect(isLoopbackHost('evil-localhost')).toBe(false);
    expect(isLoopbackHost('::2')).toBe(false);
  });
});
