/**
 * The HTTP API's client side (docs/api.md): its wire as zod schemas (api-schemas.ts, which the server
 * parses with and its OpenAPI document is made from) and the typed client (gnl-client.ts). fetch only:
 * it runs in Node, a worker of another service, or a browser.
 */
export * from './api-schemas';
export { createGnlClient, GnlApiError, type GnlClient, type GnlClientOptions, type FollowOptions } from './gnl-client';
