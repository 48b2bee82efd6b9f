/**
 * The request header that carries the client's address as the Studio's own server determined it
 * (scripts/client-address.mjs, applied by scripts/studio-server.mjs to every request, which drops
 * whatever a client sent under this name). Read by the sign-in rate limit's per-address count.
 */
export const CLIENT_ADDRESS_HEADER = 'x-gnl-client-address';
