/**
 * Serves the HTTP API (api-routes.ts) for any host that hands it a web Request: the Studio's Next route
 * (app/api/v1/[...path]/route.ts) and `gnl serve` (serve.ts). In order, for every request:
 *
 * 1. the route (404, 405 with Allow);
 * 2. no token in the URL: a `token`, `access_token` or `api_key` parameter is refused (400), never used
 *    (URLs end up in logs and browser history);
 * 3. the bearer token (401 when missing, malformed, unknown, revoked or expired: each says which);
 * 4. the token's rate limit (429, Retry-After);
 * 5. its scope (403) and, for a route that names a run, the run (404) and the token's agents (403);
 * 6. the query and the body: JSON only (415), at most 256 KiB (413), every field checked by the route's
 *    zod schema, unknown fields refused (400, each problem named);
 * 7. the route; the journal's refusals become problems (409 for conflicts, 400 for bad ids and input);
 * 8. the call is audited under the token's name (gnl.api_token_audit), with its status.
 * Errors are RFC 9457 problems (problem.ts). An unexpected error is logged here and answered 500 with
 * no detail of it: the server's log has it.
 */
import type { z } from 'zod';
import { auditApiCall, authenticateApiToken, authorize, actorOf } from '@/lib/accounts';
import { AgentInputError } from '@/lib/agents';
import {
  ApprovalRuleError,
  DecisionConflictError,
  EventRefusedError,
  InvalidRunIdError,
  JournalDataError,
  RunDivergedError,
  RunErasedError,
  RunRetiredError,
  type RunSummary,
  WorkflowInputError,
} from '@/lib/durable';
import { RunNotResumableError } from '@/lib/executor';
import type { ApiContext } from './api-context';
import { API_ROUTES, type ApiRoute } from './api-routes';
import { openApiDocument } from './openapi';
import { problem } from './problem';
import { rateLimitFromEnv } from './rate-limit';
import { runName } from './run-resource';

export const API_PREFIX = '/api/v1';
/** The largest request body the API reads. */
export const API_BODY_LIMIT = 256 * 1024;
const URL_TOKEN_PARAMS = ['token', 'access_token', 'api_key', 'apikey', 'bearer'];

export interface Api {
  handle(request: Request): Promise<Response>;
}

type Match = { route: ApiRoute; params: Record<string, string> } | { allow: string[] } | undefined;

function match(method: string, segments: string[]): Match {
  const allow: string[] = [];
  for (const route of API_ROUTES) {
    const parts = route.path.split('/').slice(1);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = parts.every((part, i) => {
      const segment = segments[i] as string;
      if (part.startsWith('{')) {
        params[part.slice(1, -1)] = segment;
        return segment.length > 0;
      }
      return part === segment;
    });
    if (!fits) continue;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
    allow.push(route.method);
  }
  return allow.length > 0 ? { allow } : undefined;
}

function issuesOf(error: z.ZodError, prefix: string): { path: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || prefix,
    message: issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message,
  }));
}

async function readBody(request: Request): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json')
    return { ok: false, response: problem({ kind: 'unsupported-media-type', status: 415, detail: 'Send the body as JSON (Content-Type: application/json).' }) };
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > API_BODY_LIMIT) return { ok: false, response: tooLarge(declared) };
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > API_BODY_LIMIT) {
        await reader.cancel();
        return { ok: false, response: tooLarge(size) };
      }
      chunks.push(value);
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, response: problem({ kind: 'invalid-request', status: 400, detail: `The body is not JSON: ${(error as Error).message}` }) };
  }
}

function tooLarge(size: number): Response {
  return problem({ kind: 'body-too-large', status: 413, detail: `The request body is at least ${size} bytes; the API takes at most ${API_BODY_LIMIT}.` });
}

/** A refusal of the layers below as a problem; undefined for what is not a refusal (a bug: 500). */
function refusalOf(error: unknown): Response | undefined {
  if (DecisionConflictError.isInstance(error))
    return problem({
      kind: 'decision-conflict',
      status: 409,
      detail: error.message,
      extra: {
        reason: error.reason,
        ...(error.decidedBy ? { decidedBy: error.decidedBy } : {}),
        ...(error.decidedAt ? { decidedAt: error.decidedAt.toISOString() } : {}),
      },
    });
  // The call's approval rule (its tool's `approvers`): the role, four eyes, the same person twice, an edit.
  if (ApprovalRuleError.isInstance(error)) return problem({ kind: 'approval-rule', status: 403, detail: error.message, extra: { reason: error.reason } });
  if (RunDivergedError.isInstance(error))
    return problem({ kind: 'run-input-conflict', status: 409, detail: error.message, extra: { fields: error.differences.map((d) => d.field) } });
  if (RunNotResumableError.isInstance(error) || RunErasedError.isInstance(error) || RunRetiredError.isInstance(error))
    return problem({ kind: 'not-resumable', status: 409, detail: error.message });
  if (EventRefusedError.isInstance(error))
    return problem({
      kind: 'event-refused',
      status: error.reason === 'invalid-payload' ? 400 : error.reason === 'unknown-run' ? 404 : 409,
      detail: error.message,
      extra: { reason: error.reason },
    });
  if (InvalidRunIdError.isInstance(error) || AgentInputError.isInstance(error)) return problem({ kind: 'invalid-request', status: 400, detail: error.message });
  // A workflow's input its schema refuses (each problem named): the client's to fix, never a 500 it would retry.
  if (WorkflowInputError.isInstance(error))
    return problem({ kind: 'invalid-request', status: 400, detail: error.message, errors: error.problems.map((message) => ({ path: 'body.input', message })) });
  if (JournalDataError.isInstance(error)) {
    const issues = error.inputMismatch?.issues ?? error.outputMismatch?.issues;
    return problem({
      kind: 'invalid-request',
      status: 400,
      detail: error.message,
      ...(issues ? { errors: issues.map((i) => ({ path: i.path || '(value)', message: i.message })) } : {}),
    });
  }
  return undefined;
}

export function createApi(context: ApiContext): Api {
  const limits = context.rateLimit ?? rateLimitFromEnv();
  let document: unknown;

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(`${API_PREFIX}/`)) return problem({ kind: 'not-found', status: 404, detail: `The API is under ${API_PREFIX}/.` });
    let segments: string[];
    try {
      segments = url.pathname
        .slice(API_PREFIX.length + 1)
        .split('/')
        .map(decodeURIComponent);
    } catch {
      return problem({ kind: 'invalid-request', status: 400, detail: 'The path is not valid percent-encoding.' });
    }
    if (request.method === 'GET' && segments.join('/') === 'openapi.json') {
      document ??= openApiDocument();
      return Response.json(document, { headers: { 'Cache-Control': 'no-cache' } });
    }
    const found = match(request.method, segments);
    if (!found)
      return problem({ kind: 'not-found', status: 404, detail: `No API route ${request.method} ${url.pathname} (the routes: ${API_PREFIX}/openapi.json).` });
    if ('allow' in found)
      return problem({
        kind: 'method-not-allowed',
        status: 405,
        detail: `${url.pathname} takes ${found.allow.join(', ')}.`,
        headers: { Allow: found.allow.join(', ') },
      });
    const { route, params } = found;
    const inUrl = URL_TOKEN_PARAMS.filter((name) => url.searchParams.has(name));
    if (inUrl.length > 0)
      return problem({
        kind: 'token-in-url',
        status: 400,
        detail: `A token is never taken from the URL (${inUrl.join(', ')}): URLs are logged. Send it as Authorization: Bearer <token>, and revoke the one you sent.`,
      });
    const header = request.headers.get('authorization');
    if (!header)
      return problem({
        kind: 'unauthenticated',
        status: 401,
        detail: 'Send an API token: Authorization: Bearer <token> (gnl token create).',
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
    if (!bearer)
      return problem({
        kind: 'unauthenticated',
        status: 401,
        detail: 'The Authorization header must be "Bearer <token>".',
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    const check = await authenticateApiToken(bearer, { storage: context.storage });
    if (!check.ok)
      return problem({
        kind: 'unauthenticated',
        status: 401,
        detail: check.message,
        extra: { reason: check.reason },
        headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      });
    const principal = check.principal;
    const wait = limits.take(principal.id);
    if (wait > 0)
      return problem({
        kind: 'rate-limited',
        status: 429,
        detail: `The token "${principal.name}" made too many calls: wait ${wait} s.`,
        headers: { 'Retry-After': String(wait) },
      });

    let runId: string | undefined;
    const response = await (async () => {
      const allowed = authorize(principal, route.permission);
      if (!allowed.ok) return problem({ kind: 'forbidden', status: 403, detail: allowed.message });
      let run: RunSummary | undefined;
      if (route.run) {
        const given = params.runId as string;
        let id: string;
        try {
          id = await context.storage.runs.runIdOf(given);
        } catch (error) {
          return refusalOf(error) ?? Promise.reject(error);
        }
        run = await context.storage.runs.getRun(id);
        if (!run) return problem({ kind: 'not-found', status: 404, detail: `No run "${given}" in this journal.` });
        runId = run.runId;
        const inScope = authorize(principal, route.permission, { agent: runName(run) });
        if (!inScope.ok) return problem({ kind: 'out-of-scope', status: 403, detail: inScope.message });
      }
      if (route.query) {
        const parsed = route.query.safeParse(Object.fromEntries(url.searchParams));
        if (!parsed.success)
          return problem({ kind: 'invalid-request', status: 400, detail: 'The query was refused.', errors: issuesOf(parsed.error, 'query') });
      } else if ([...url.searchParams.keys()].length > 0) {
        return problem({ kind: 'invalid-request', status: 400, detail: `${route.path} takes no query parameters.` });
      }
      let body: unknown;
      if (route.body) {
        const read = await readBody(request);
        if (!read.ok) return read.response;
        const parsed = route.body.safeParse(read.value);
        if (!parsed.success) return problem({ kind: 'invalid-request', status: 400, detail: 'The body was refused.', errors: issuesOf(parsed.error, 'body') });
        body = parsed.data;
      }
      try {
        const made = (id: string) => {
          runId = id;
        };
        return await route.handle({ principal, by: actorOf(principal), params, query: url.searchParams, body, request, context, run: run as RunSummary, made });
      } catch (error) {
        const refusal = refusalOf(error);
        if (refusal) return refusal;
        throw error;
      }
    })().catch((error: unknown) => {
      // Failed anywhere past the token's check (its run read, its body, its work): a 500, and still audited below.
      console.error(`gnl api: ${route.id} failed:`, error);
      return problem({ kind: 'internal', status: 500, detail: 'The server could not do this; its log says why.' });
    });
    const call = {
      tokenId: principal.id,
      name: principal.name,
      method: request.method,
      route: route.path,
      status: response.status,
      ...(runId ? { runId } : {}),
    };
    try {
      await auditApiCall({ storage: context.storage, ...call });
    } catch (error) {
      // The work is done (a run started, a decision recorded, each in the journal with the token's name): a 500
      // now would have the client try again, and a retried start without a runId would start a second run. The
      // call is logged in full instead, and its answer stands.
      console.error(`gnl api: the audit of a call could not be written: ${JSON.stringify(call)}:`, error);
    }
    return response;
  }

  return {
    async handle(request) {
      try {
        return await handle(request);
      } catch (error) {
        console.error('gnl api: a request failed:', error);
        return problem({ kind: 'internal', status: 500, detail: 'The server could not answer this; its log says why.' });
      }
    },
  };
}
