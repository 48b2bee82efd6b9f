/**
 * Errors as RFC 9457 problem details (`application/problem+json`): a `type` (a URN per kind of problem,
 * listed in docs/api.md), a `title` that names the kind, the `status`, and a `detail` written for the
 * person reading the client's log. `errors` lists each refused field of a request.
 */
export type ProblemKind =
  | 'unauthenticated'
  | 'token-in-url'
  | 'forbidden'
  | 'out-of-scope'
  | 'rate-limited'
  | 'not-found'
  | 'method-not-allowed'
  | 'unsupported-media-type'
  | 'body-too-large'
  | 'invalid-request'
  | 'unknown-agent'
  | 'run-input-conflict'
  | 'decision-conflict'
  | 'approval-rule'
  | 'not-resumable'
  | 'event-refused'
  | 'too-many-streams'
  | 'internal';

const TITLES: Record<ProblemKind, string> = {
  unauthenticated: 'Unauthenticated',
  'token-in-url': 'Token in the URL',
  forbidden: 'Forbidden',
  'out-of-scope': 'Out of the token’s scope',
  'rate-limited': 'Too many requests',
  'not-found': 'Not found',
  'method-not-allowed': 'Method not allowed',
  'unsupported-media-type': 'Unsupported media type',
  'body-too-large': 'Request body too large',
  'invalid-request': 'Invalid request',
  'unknown-agent': 'Unknown agent or workflow',
  'run-input-conflict': 'The run exists with another input',
  'decision-conflict': 'Decision conflict',
  'approval-rule': 'Refused by the call’s approval rule',
  'not-resumable': 'Not resumable',
  'event-refused': 'Event refused',
  'too-many-streams': 'Too many live streams',
  internal: 'Internal error',
};

export interface ProblemOptions {
  kind: ProblemKind;
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
  /** More members (RFC 9457 extensions): `reason`, `decidedBy`, … */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function problemType(kind: ProblemKind): string {
  return `urn:gnl:problem:${kind}`;
}

export function problem(options: ProblemOptions): Response {
  const body = {
    type: problemType(options.kind),
    title: TITLES[options.kind],
    status: options.status,
    detail: options.detail,
    ...(options.errors ? { errors: options.errors } : {}),
    ...options.extra,
  };
  return new Response(JSON.stringify(body), {
    status: options.status,
    headers: { 'Content-Type': 'application/problem+json', 'Cache-Control': 'no-store', ...options.headers },
  });
}
