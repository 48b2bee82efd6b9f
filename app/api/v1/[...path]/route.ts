import { studioApi } from '@/lib/studio/api-host';

/**
 * The HTTP API for services (lib/server, docs/api.md): API tokens, never the Studio's cookie. proxy.ts
 * lets /api/v1/ through without a session (the host check still applies); the API checks the token.
 */
const handle = (request: Request) => studioApi().handle(request);

export const dynamic = 'force-dynamic';
export { handle as GET, handle as POST, handle as PUT, handle as PATCH, handle as DELETE };
