/**
 * The request header that carries the client's address as the Studio's own server determined it
 * (scripts/client-address.mjs, applied by scripts/studio-server.mjs to every request, which drops
 * whatever a client sent under this name). Read by the sign-in rate limit's per-address count.
 */
export const CLIENT_ADDRESS_HEADER = 'x-gnl-client-address';

/**
 * Set by scripts/studio-server.mjs in its own process, before Next starts: the header above is its stamp.
 * Under a bare `next start` or `next dev` nothing stamps requests, so the header is whatever the client
 * sent, and it is never read (the sign-in limit then counts per login only).
 */
export const CLIENT_ADDRESS_STAMPED_ENV = 'GNL_CLIENT_ADDRESS_STAMPED';

/** The client's address as the Studio's server stamped it, or undefined when no server of ours stamps requests. */
export function stampedClientAddress(headers: Pick<Headers, 'get'>, env: Record<string, string | undefined> = process.env): string | undefined {
  if (env[CLIENT_ADDRESS_STAMPED_ENV] !== '1') return undefined;
  return headers.get(CLIENT_ADDRESS_HEADER) ?? undefined;
}
