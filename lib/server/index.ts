/**
 * The HTTP API (docs/api.md): for services, with API tokens. Hosted by the Studio's Next app
 * (app/api/v1/[...path]/route.ts) and by `gnl serve` without the UI (serve.ts). Its rooms:
 * api-routes.ts (the one table of routes: permission, schemas, what each does), api-handler.ts (auth,
 * limits, parsing, problems, audit), openapi.ts (the document, from the table), run-follow.ts (SSE),
 * problem.ts (RFC 9457), rate-limit.ts. The wire's schemas and the typed client are the core's
 * (lib/durable/client), so a service needs only the package.
 */
export { createApi, API_PREFIX, API_BODY_LIMIT, type Api } from './api-handler';
export type { ApiContext } from './api-context';
export { API_ROUTES, type ApiRoute } from './api-routes';
export { openApiDocument } from './openapi';
export { serveApi, type ServedApi } from './serve';
