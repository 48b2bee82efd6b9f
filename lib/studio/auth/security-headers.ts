/**
 * The security headers on every Studio response. Pure.
 *
 * - Every response (pages, route handlers, the event streams, static files): no framing
 *   (X-Frame-Options DENY and CSP frame-ancestors 'none', so another page, even one on another port of
 *   this machine, cannot put an approval under a visitor's click), no MIME sniffing, referrers only to
 *   the Studio itself (`same-origin`, not `no-referrer`: a browser sends `Origin: null` on a POST under
 *   no-referrer, and the Studio's Origin check would refuse its own forms), the browser features the
 *   Studio never uses denied, and an opener of another origin cut off. next.config.ts sets them.
 * - Pages also get a strict Content-Security-Policy with a nonce made for each request (proxy.ts):
 *   scripts only with that nonce (Next puts it on its own scripts) and what they load ('strict-dynamic'),
 *   never eval outside development, no plugins, no <base>, forms and connections (fetch, the event
 *   streams) to the Studio only. Styles may be inline (React style attributes, Next's critical CSS):
 *   a style cannot run code.
 */

const PERMISSIONS_DENIED = [
  'accelerometer',
  'autoplay',
  'bluetooth',
  'camera',
  'display-capture',
  'encrypted-media',
  'geolocation',
  'gyroscope',
  'hid',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'usb',
  'xr-spatial-tracking',
] as const;

export const PERMISSIONS_POLICY = [...PERMISSIONS_DENIED.map((feature) => `${feature}=()`), 'clipboard-write=(self)'].join(', ');

/** For every response (next.config.ts headers()). */
export const SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Content-Security-Policy', value: "frame-ancestors 'none'; object-src 'none'; base-uri 'none'" },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'Permissions-Policy', value: PERMISSIONS_POLICY },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
  { key: 'Cross-Origin-Resource-Policy', value: 'same-origin' },
];

/** A nonce for one response: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** The Content-Security-Policy of a page rendered with `nonce`. */
export function pagePolicy(nonce: string, { development = false }: { development?: boolean } = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "worker-src 'self'",
    "manifest-src 'self'",
  ].join('; ');
}
