/**
 * Who is on the other end of a Studio request, for the sign-in rate limit's per-address count.
 *
 * `next start` keeps an X-Forwarded-For the client sent, so a client reaching the Studio directly
 * could name any address it likes. The Studio's server (studio-server.mjs) therefore writes the
 * address itself into CLIENT_ADDRESS_HEADER on every request, and nothing else sets it:
 * - by default, the socket's peer (the client itself, or a proxy in front of the Studio);
 * - with GNL_STUDIO_TRUST_PROXY=1 (the Studio behind one reverse proxy that appends the client's
 *   address to X-Forwarded-For), the LAST X-Forwarded-For entry: the one that proxy added. Entries
 *   before it came from the client and are not believed.
 */
export const CLIENT_ADDRESS_HEADER = 'x-gnl-client-address';

/**
 * @param {{ socketAddress: string | undefined; forwardedFor: string | string[] | undefined; trustProxy: boolean }} request
 * @returns {string | undefined}
 */
export function clientAddress({ socketAddress, forwardedFor, trustProxy }) {
  if (trustProxy && forwardedFor !== undefined) {
    const entries = [forwardedFor]
      .flat()
      .join(',')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    const last = entries.at(-1);
    if (last) return last;
  }
  return socketAddress || undefined;
}

/**
 * Rewrites the request's headers in place: CLIENT_ADDRESS_HEADER is the address clientAddress() finds,
 * or absent; whatever the client sent under that name is dropped.
 * @param {import('node:http').IncomingMessage} request
 * @param {{ trustProxy: boolean }} options
 */
export function stampClientAddress(request, { trustProxy }) {
  delete request.headers[CLIENT_ADDRESS_HEADER];
  const address = clientAddress({ socketAddress: request.socket.remoteAddress, forwardedFor: request.headers['x-forwarded-for'], trustProxy });
  if (address) request.headers[CLIENT_ADDRESS_HEADER] = address;
}

/** GNL_STUDIO_TRUST_PROXY: '1' or 'true' trusts one proxy's X-Forwarded-For entry. */
export function trustProxyFromEnv(env = process.env) {
  const value = (env.GNL_STUDIO_TRUST_PROXY ?? '').trim().toLowerCase();
  return value === '1' || value === 'true';
}
