/**
 * No page, route handler or server action of the Studio works without a session, and none can be added
 * without this test noticing: the app's surface is enumerated from app/ (tests/support/app-routes.ts),
 * then
 *   - the proxy (proxy.ts, run by Next before anything renders) is driven with every enumerated path:
 *     its matcher covers it, and without a valid session cookie (none, forged, expired, malformed) a page
 *     is redirected to sign-in and a route handler or an action POST gets 401; only the sign-in and setup
 *     pages are public;
 *   - every page, route handler and exported server action checks the session itself, first (read with
 *     Next's own parser, SWC), because the proxy checks the signature only, not the account.
 * The same lists drive the e2e (e2e/studio/security.spec.ts) against the built Studio.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@/lib/accounts/authorize';
import nextConfig from '@/next.config';
import { config, proxy } from '@/proxy';
import { appRoutes, inlineServerActionFiles, metadataRouteFiles, pathOf, serverActionModules } from '@/tests/support/app-routes';
import { repoRoot } from '@/tests/support/source-imports';
import { SESSION_COOKIE, SESSION_MAX_AGE_SECONDS, signSessionToken } from './session-token';

/** Pages anyone may open: signing in, and creating the first account with the one-time setup link. */
const PUBLIC_PAGES = ['/sign-in', '/setup'];
/** Route handlers anyone may call: health, which answers up or down and nothing else (app/api/health/route.ts). */
const PUBLIC_ROUTES = ['/api/health'];
/** Route handlers a scraper's bearer token also opens: they check it first, then the session as every route does. */
const TOKEN_ROUTES = ['/api/metrics'];
/**
 * The HTTP API for services (lib/server): API tokens only, never the cookie. The proxy lets it through
 * after the host check; its handler checks the bearer token before anything else (lib/server/api-handler.test.ts
 * drives every token state, scope and route).
 */
const API_ROUTES = ['/api/v1/[...path]'];
/** Server actions anyone may call: signing in, the first account (needs the setup token), signing out. */
const PUBLIC_ACTIONS = ['app/(auth)/actions.ts#signInAction', 'app/(auth)/actions.ts#setupAction', 'app/(auth)/actions.ts#signOutAction'];

const SECRET = 'security-routes-test-secret-0123456789abcdef';
const SAMPLE: Record<string, string> = {
  runId: 'support~3Ao_18',
  chunk: '0',
  conversationId: '6f1c2b9e-3d4a-4b5c-9d8e-7f6a5b4c3d2e',
  resource: 'customer:c_42',
  path: 'runs/support~3Ao_18',
};

// ---- Next's parser (SWC), as Next itself reads these files ----

type Node = any;

let parseSource: (source: string, filename: string) => Promise<Node>;

beforeAll(async () => {
  process.env.GNL_SESSION_SECRET = SECRET;
  const swc = (await import('next/dist/build/swc/index.js')) as unknown as {
    loadBindings(): Promise<unknown>;
    parse(source: string, options: object): Promise<Node>;
  };
  await swc.loadBindings();
  parseSource = (source, filename) => swc.parse(source, { isModule: true, filename, parser: { syntax: 'typescript', tsx: filename.endsWith('.tsx') } });
});

async function parseFile(relative: string): Promise<Node> {
  return parseSource(readFileSync(path.join(repoRoot, relative), 'utf8'), relative);
}

/** The module's top-level functions by name (declarations and `const f = async () => …`). */
function localFunctions(module: Node): Map<string, Node> {
  const functions = new Map<string, Node>();
  const add = (statement: Node) => {
    if (statement?.type === 'FunctionDeclaration') functions.set(statement.identifier.value, statement);
    if (statement?.type === 'VariableDeclaration')
      for (const d of statement.declarations)
        if (d.id?.type === 'Identifier' && /FunctionExpression$/.test(d.init?.type ?? '')) functions.set(d.id.value, d.init);
  };
  for (const item of module.body) add(item.type === 'ExportDeclaration' ? item.declaration : item);
  return functions;
}

interface Exported {
  name: string;
  /** The function, or undefined when the export is not a function defined in this module. */
  fn: Node | undefined;
  /** What the export is when it is not a function (a constant, a re-export). */
  other?: string;
}

function exportsOf(module: Node): Exported[] {
  const locals = localFunctions(module);
  const out: Exported[] = [];
  for (const item of module.body) {
    if (item.type === 'ExportDeclaration') {
      const d = item.declaration;
      if (d.type === 'FunctionDeclaration') out.push({ name: d.identifier.value, fn: d });
      else if (d.type === 'VariableDeclaration')
        for (const v of d.declarations) {
          const fn = /FunctionExpression$/.test(v.init?.type ?? '') ? v.init : undefined;
          out.push({ name: v.id?.value ?? '?', fn, ...(fn ? {} : { other: `a ${v.init?.type ?? 'value'}` }) });
        }
      else if (!/^Ts(TypeAlias|Interface)Declaration$/.test(d.type)) out.push({ name: d.identifier?.value ?? d.type, fn: undefined, other: d.type });
    } else if (item.type === 'ExportNamedDeclaration') {
      if (item.typeOnly) continue;
      for (const s of item.specifiers) {
        if (s.isTypeOnly) continue;
        const name = (s.exported ?? s.orig)?.value ?? '?';
        out.push(
          item.source
            ? { name, fn: undefined, other: `a re-export from ${item.source.value}` }
            : { name, fn: locals.get(s.orig.value), other: 'not a local function' },
        );
      }
    } else if (item.type === 'ExportDefaultDeclaration') out.push({ name: 'default', fn: item.decl });
    else if (item.type === 'ExportDefaultExpression')
      out.push({ name: 'default', fn: item.expression.type === 'Identifier' ? locals.get(item.expression.value) : undefined, other: item.expression.type });
    else if (item.type === 'ExportAllDeclaration') out.push({ name: '*', fn: undefined, other: `a re-export of ${item.source.value}` });
  }
  return out;
}

function statements(fn: Node): Node[] | undefined {
  return fn?.body?.type === 'FunctionBody' || fn?.body?.type === 'BlockStatement' ? fn.body.stmts : undefined;
}

/** `await name(…)` → name. */
function awaitedCall(expression: Node): string | undefined {
  if (expression?.type !== 'AwaitExpression' || expression.argument?.type !== 'CallExpression') return undefined;
  return expression.argument.callee?.type === 'Identifier' ? expression.argument.callee.value : undefined;
}

function isAwaitOf(statement: Node, name: string): boolean {
  return statement?.type === 'ExpressionStatement' && awaitedCall(statement.expression) === name;
}

/** `const x = await guard(…)` → { variable: x, guard }. */
function guardedBinding(statement: Node): { variable: string; guard: string } | undefined {
  if (statement?.type !== 'VariableDeclaration' || statement.declarations.length !== 1) return undefined;
  const [d] = statement.declarations;
  const guard = awaitedCall(d.init);
  return d.id?.type === 'Identifier' && guard ? { variable: d.id.value, guard } : undefined;
}

function mentions(node: Node, identifier: string): boolean {
  if (!node || typeof node !== 'object') return false;
  if (node.type === 'Identifier' && node.value === identifier) return true;
  return Object.values(node).some((child) => (Array.isArray(child) ? child.some((c) => mentions(c, identifier)) : mentions(child, identifier)));
}

/** `if (<test on variable>) return …;` (or a block that only returns). */
function returnsWhenRefused(statement: Node, variable: string): boolean {
  if (statement?.type !== 'IfStatement' || !mentions(statement.test, variable)) return false;
  const consequent = statement.consequent?.type === 'BlockStatement' ? statement.consequent.stmts : [statement.consequent];
  return consequent.length >= 1 && consequent.at(-1)?.type === 'ReturnStatement';
}

/** The statements before the guard may only be `await connection()` (which reads nothing). */
function afterPreamble(body: Node[]): Node[] {
  let i = 0;
  while (isAwaitOf(body[i], 'connection')) i++;
  return body.slice(i);
}

/** Why `fn` does not check the session first, or undefined when it does. */
function pageGuardProblem(fn: Node): string | undefined {
  const body = statements(fn);
  if (!body) return 'not a function with a body';
  const [first] = afterPreamble(body);
  const ok = isAwaitOf(first, 'requireOperator') || guardedBinding(first)?.guard === 'requireOperator';
  return ok ? undefined : 'does not start with `await requireOperator()`';
}

function routeGuardProblem(fn: Node, method: string): string | undefined {
  const body = statements(fn);
  if (!body) return 'not a function with a body';
  const [first, second] = afterPreamble(body);
  const binding = guardedBinding(first);
  if (binding?.guard !== 'operatorOrRefusal') return 'does not start with `const auth = await operatorOrRefusal()`';
  // A method that changes something names the permission it needs, checked against the role (a viewer only reads).
  if (!SAFE_METHODS.includes(method)) {
    const permission = guardPermission(first);
    if (!permission || !(PERMISSIONS as readonly string[]).includes(permission) || permission === 'read')
      return `changes something but does not name the permission it needs (operatorOrRefusal('start' | 'decide' | 'admin' …)), got ${permission ?? 'none'}`;
  }
  return returnsWhenRefused(second, binding.variable) ? undefined : `does not return the refusal right after (if ('refusal' in ${binding.variable}) return …)`;
}

const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS'];

/** The string literal given to the guard of `const x = await guard('…')`, if any. */
function guardPermission(statement: Node): string | undefined {
  const call = statement?.declarations?.[0]?.init?.argument;
  const argument = call?.arguments?.[0]?.expression;
  return argument?.type === 'StringLiteral' ? argument.value : undefined;
}

/** `guards`: functions known to check the session and say so in their result (currentOperator, or a local one checked first). */
function actionGuardProblem(fn: Node, guards: Set<string>): string | undefined {
  const body = statements(fn);
  if (!body) return 'not a function with a body';
  const [first, second] = body;
  const binding = guardedBinding(first);
  if (!binding || !guards.has(binding.guard)) return `does not start with \`await\` of a session check (${[...guards].join(', ')})`;
  return returnsWhenRefused(second, binding.variable) ? undefined : `does not return right after when ${binding.variable} says no session`;
}

// ---- the proxy ----

function request(pathname: string, init: { method?: string; cookie?: string; headers?: Record<string, string> } = {}): NextRequest {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set('cookie', `${SESSION_COOKIE}=${init.cookie}`);
  return new NextRequest(new URL(pathname, 'http://127.0.0.1:3000'), { method: init.method ?? 'GET', headers });
}

const BAD_COOKIES: Record<string, () => string | undefined> = {
  none: () => undefined,
  forged: () => {
    const payload = Buffer.from(JSON.stringify({ v: 1, sub: 'mallory', exp: 9_999_999_999 })).toString('base64url');
    return `${payload}.${'A'.repeat(43)}`;
  },
  'signed with another secret': () =>
    signSessionToken({ operatorId: 'mallory', sessionId: 'session-id', secret: Buffer.from('another-secret-another-secret-another') }),
  expired: () => signSessionToken({ operatorId: 'alice-id', sessionId: 'session-id', now: new Date(Date.now() - (SESSION_MAX_AGE_SECONDS + 60) * 1000) }),
  malformed: () => 'not-a-session',
};

it('the setup form says which limit a field is over, never “fill in every field”, and keeps the login typed', async () => {
  const { setupAction } = await import('@/app/(auth)/actions');
  const form = new FormData();
  const fields: [string, string][] = [
    ['token', 'setup-token'],
    ['login', 'ada@example.com'],
    ['name', 'x'.repeat(101)],
    ['password', 'p'.repeat(1025)],
  ];
  for (const [field, value] of fields) form.set(field, value);
  expect(await setupAction({}, form)).toEqual({
    message: 'A name is at most 100 characters. A password is at most 1,024 characters.',
    login: 'ada@example.com',
  });
});

describe('the Studio surface, enumerated from app/', () => {
  const routes = appRoutes();
  const pages = routes.filter((r) => r.kind === 'page');
  const handlers = routes.filter((r) => r.kind === 'route');

  it('is found: every page and route handler the Studio serves today (so the checks below walk something)', () => {
    expect(pages.map((r) => r.pattern)).toEqual(
      expect.arrayContaining(['/', '/inbox', '/demo', '/runs/[runId]', '/conversations/[conversationId]', '/sign-in', '/setup']),
    );
    expect(handlers.map((r) => r.pattern)).toEqual(
      expect.arrayContaining([
        '/api/events',
        '/api/health',
        '/api/inbox',
        '/api/demo/stats',
        '/api/runs',
        '/api/runs/[runId]',
        '/api/runs/[runId]/events',
        '/api/runs/[runId]/chunks/[chunk]',
      ]),
    );
    expect(serverActionModules()).toEqual(expect.arrayContaining(['app/(auth)/actions.ts', 'app/(studio)/actions.ts']));
    // Kinds of route this test does not check: none may appear unnoticed.
    expect(metadataRouteFiles()).toEqual([]);
    expect(inlineServerActionFiles()).toEqual([]);
  });

  it("every enumerated path is covered by the proxy's matcher", async () => {
    const { getMiddlewareMatchers } = (await import('next/dist/build/analysis/get-page-static-info.js')) as unknown as {
      getMiddlewareMatchers(matcher: unknown, config: object): { regexp: string }[];
    };
    const matchers = getMiddlewareMatchers(config.matcher, nextConfig).map((m) => new RegExp(m.regexp));
    const uncovered = routes.map((r) => pathOf(r, SAMPLE)).filter((p) => !matchers.some((m) => m.test(p)));
    expect(uncovered).toEqual([]);
    // The matcher's exclusions are Next's static assets only.
    expect(matchers.some((m) => m.test('/_next/static/chunks/app.js'))).toBe(false);
  });

  it('without a valid session the proxy sends each page to sign-in and refuses each route handler and action POST; only sign-in, setup, health and the token-only API pass it', () => {
    const problems: string[] = [];
    for (const route of routes) {
      const pathname = pathOf(route, SAMPLE);
      const isPublic = (route.kind === 'page' ? PUBLIC_PAGES : [...PUBLIC_ROUTES, ...API_ROUTES]).includes(route.pattern);
      for (const [label, cookie] of Object.entries(BAD_COOKIES)) {
        const get = proxy(request(pathname, { cookie: cookie() }));
        const passed = get.headers.get('x-middleware-next') === '1';
        if (isPublic) {
          if (!passed) problems.push(`${pathname} (public) GET with ${label} cookie: ${get.status}`);
          continue;
        }
        if (route.kind === 'page') {
          const location = get.headers.get('location') ?? '';
          if (passed || get.status !== 307 || new URL(location).pathname !== '/sign-in')
            problems.push(`${pathname} GET with ${label} cookie: ${get.status} ${location}`);
        } else if (passed || get.status !== 401) problems.push(`${pathname} GET with ${label} cookie: ${get.status}`);
        // A server action is a POST to a page's path with a Next-Action header.
        const post = proxy(request(pathname, { method: 'POST', cookie: cookie(), headers: { 'next-action': 'f'.repeat(42) } }));
        if (post.headers.get('x-middleware-next') === '1' || post.status !== 401) problems.push(`${pathname} POST with ${label} cookie: ${post.status}`);
      }
      // A valid session passes the proxy (the page or handler then checks the account itself).
      const valid = proxy(request(pathname, { cookie: signSessionToken({ operatorId: 'alice-id', sessionId: 'session-id' }) }));
      if (valid.headers.get('x-middleware-next') !== '1') problems.push(`${pathname} GET with a valid cookie: ${valid.status}`);
    }
    expect(problems).toEqual([]);
    expect(
      routes
        .filter((r) => r.kind === 'page' && PUBLIC_PAGES.includes(r.pattern))
        .map((r) => r.pattern)
        .sort(),
    ).toEqual([...PUBLIC_PAGES].sort());
  });

  it('a POST (server action, sign-in form) with a valid session or to a public page must carry this host as its Origin, else 403', () => {
    const session = signSessionToken({ operatorId: 'alice-id', sessionId: 'session-id' });
    const action = { 'next-action': 'f'.repeat(42) };
    const passes = (pathname: string, headers: Record<string, string>, cookie?: string) =>
      proxy(request(pathname, { method: 'POST', cookie, headers: { ...action, ...headers } }));
    const problems: string[] = [];
    for (const route of routes.filter((r) => r.kind === 'page')) {
      const pathname = pathOf(route, SAMPLE);
      const cookie = PUBLIC_PAGES.includes(route.pattern) ? undefined : session;
      const ok = passes(pathname, { origin: 'http://127.0.0.1:3000', host: '127.0.0.1:3000' }, cookie);
      if (ok.headers.get('x-middleware-next') !== '1') problems.push(`${pathname} same origin: ${ok.status}`);
      const variants: Record<string, Record<string, string>> = {
        'no Origin': { host: '127.0.0.1:3000' },
        'Origin null': { origin: 'null', host: '127.0.0.1:3000' },
        'another site': { origin: 'http://evil.example', host: '127.0.0.1:3000' },
        'another port': { origin: 'http://127.0.0.1:3001', host: '127.0.0.1:3000' },
        'not a URL': { origin: 'evil', host: '127.0.0.1:3000' },
      };
      for (const [label, headers] of Object.entries(variants)) {
        const refused = passes(pathname, headers, cookie);
        if (refused.status !== 403) problems.push(`${pathname} with ${label}: ${refused.status}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('a server action POST whose body is over 1,000,000 bytes is refused with 413 and its size, before anything runs (issue 34)', async () => {
    const session = signSessionToken({ operatorId: 'alice-id', sessionId: 'session-id' });
    const post = (length: number) =>
      proxy(
        request('/demo', {
          method: 'POST',
          cookie: session,
          headers: { 'next-action': 'f'.repeat(42), origin: 'http://127.0.0.1:3000', host: '127.0.0.1:3000', 'content-length': String(length) },
        }),
      );
    // Under Next's own 1 MiB but over React's million slots (proxy.ts): refused here, not a 500 from Next.
    const over = post(1_000_001);
    expect(over.status).toBe(413);
    expect(((await over.json()) as { error: string }).error).toMatch(/1000001 bytes; a Studio action takes at most 1000000\./);
    expect(post(1024 * 1024 + 1).status).toBe(413);
    expect(post(1_000_000).headers.get('x-middleware-next')).toBe('1');
    expect(post(1024).headers.get('x-middleware-next')).toBe('1');
  });

  it('X-Forwarded-Host counts only behind a declared proxy, and only hosts the Studio is configured for are answered', async () => {
    const session = signSessionToken({ operatorId: 'alice-id', sessionId: 'session-id' });
    const post = (headers: Record<string, string>) =>
      proxy(request('/inbox', { method: 'POST', cookie: session, headers: { 'next-action': 'f'.repeat(42), ...headers } }));
    const saved = { trust: process.env.GNL_STUDIO_TRUST_PROXY, allowed: process.env.GNL_STUDIO_ALLOWED_HOSTS };
    try {
      delete process.env.GNL_STUDIO_TRUST_PROXY;
      delete process.env.GNL_STUDIO_ALLOWED_HOSTS;
      // The review's request: a foreign Origin that names the host it claims in X-Forwarded-Host, with a valid cookie.
      expect(post({ origin: 'http://evil.example', host: '127.0.0.1:3000', 'x-forwarded-host': 'evil.example' }).status).toBe(403);
      // A page of another name that resolves here (DNS rebinding), or any name not configured: 421 before anything runs.
      expect(proxy(request('/inbox', { cookie: session, headers: { host: 'evil.example:3000' } })).status).toBe(421);
      expect(post({ origin: 'http://evil.example:3000', host: 'evil.example:3000' }).status).toBe(421);
      expect(proxy(request('/sign-in', { headers: { host: 'studio.example.com' } })).status).toBe(421);
      for (const host of ['localhost:3000', '[::1]:3000', '127.0.0.2:3000'])
        expect(post({ origin: `http://${host}`, host }).headers.get('x-middleware-next'), host).toBe('1');

      // Behind a reverse proxy the operator declared: the public host it forwards, if configured.
      process.env.GNL_STUDIO_TRUST_PROXY = '1';
      process.env.GNL_STUDIO_ALLOWED_HOSTS = 'studio.example.com, ops.example.com:8443';
      const behind = { host: '127.0.0.1:3000', 'x-forwarded-host': 'studio.example.com' };
      expect(post({ ...behind, origin: 'https://studio.example.com' }).headers.get('x-middleware-next')).toBe('1');
      expect(post({ ...behind, origin: 'http://evil.example' }).status).toBe(403);
      expect(post({ host: '127.0.0.1:3000', 'x-forwarded-host': 'evil.example', origin: 'http://evil.example' }).status).toBe(421);
      // A client's own X-Forwarded-Host before the proxy's entry does not count: the last entry is the proxy's.
      expect(post({ host: '127.0.0.1:3000', 'x-forwarded-host': 'studio.example.com, evil.example', origin: 'https://studio.example.com' }).status).toBe(421);
      expect(
        post({ host: '127.0.0.1:3000', 'x-forwarded-host': 'ops.example.com:8443', origin: 'https://ops.example.com:8443' }).headers.get('x-middleware-next'),
      ).toBe('1');
      expect(post({ host: '127.0.0.1:3000', 'x-forwarded-host': 'ops.example.com:9000', origin: 'https://ops.example.com:9000' }).status).toBe(421);

      process.env.GNL_STUDIO_ALLOWED_HOSTS = 'studio.example.com/evil';
      const misconfigured = proxy(request('/sign-in'));
      expect(misconfigured.status).toBe(500);
      expect(await misconfigured.text()).toContain('GNL_STUDIO_ALLOWED_HOSTS: \\"studio.example.com/evil\\" is not a host name');
    } finally {
      for (const [name, value] of [
        ['GNL_STUDIO_TRUST_PROXY', saved.trust],
        ['GNL_STUDIO_ALLOWED_HOSTS', saved.allowed],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
  });

  it('every answer forbids framing and sniffing; a page also gets a nonce policy of its own', () => {
    const session = signSessionToken({ operatorId: 'alice-id', sessionId: 'session-id' });
    const answers = {
      page: proxy(request('/inbox', { cookie: session })),
      'redirect to sign-in': proxy(request('/inbox')),
      refusal: proxy(request('/api/inbox')),
      'foreign host': proxy(request('/inbox', { headers: { host: 'evil.example' } })),
    };
    for (const [label, answer] of Object.entries(answers)) {
      expect(answer.headers.get('x-frame-options'), label).toBe('DENY');
      expect(answer.headers.get('content-security-policy'), label).toContain("frame-ancestors 'none'");
      expect(answer.headers.get('x-content-type-options'), label).toBe('nosniff');
      expect(answer.headers.get('referrer-policy'), label).toBe('same-origin');
      expect(answer.headers.get('permissions-policy'), label).toContain('camera=()');
    }
    const nonceOf = (response: Response) => /'nonce-([^']+)'/.exec(response.headers.get('content-security-policy') ?? '')?.[1];
    const first = nonceOf(answers.page);
    const second = nonceOf(proxy(request('/inbox', { cookie: session })));
    expect(first).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(second).not.toBe(first);
    expect(answers.page.headers.get('content-security-policy')).not.toContain('unsafe-eval');
    // Next reads the nonce from the request's policy header, which the proxy passes on with the request.
    expect(answers.page.headers.get('x-middleware-request-content-security-policy')).toBe(answers.page.headers.get('content-security-policy'));
  });

  it('next.config.ts sets the same headers on every response (static files included) and drops X-Powered-By', async () => {
    expect(nextConfig.poweredByHeader).toBe(false);
    const rules = (await nextConfig.headers?.()) ?? [];
    const all = rules.find((rule) => rule.source === '/:path*');
    expect(Object.fromEntries((all?.headers ?? []).map((h) => [h.key.toLowerCase(), h.value]))).toMatchObject({
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
    });
  });

  it('a scraper with GNL_METRICS_TOKEN as its bearer token reads /api/metrics without a session, and nothing else; a wrong or short token opens nothing', () => {
    const saved = process.env.GNL_METRICS_TOKEN;
    const passes = (pathname: string, authorization: string, method = 'GET') =>
      proxy(request(pathname, { method, headers: { authorization } })).headers.get('x-middleware-next') === '1';
    try {
      process.env.GNL_METRICS_TOKEN = 'scrape-token-0123456789';
      expect(passes('/api/metrics', 'Bearer scrape-token-0123456789')).toBe(true);
      expect(passes('/api/metrics', 'Bearer scrape-token-012345678')).toBe(false);
      expect(passes('/api/metrics', 'scrape-token-0123456789')).toBe(false);
      expect(passes('/api/metrics', 'Bearer scrape-token-0123456789', 'POST')).toBe(false);
      for (const other of ['/api/runs', '/api/inbox', '/api/metrics/x', '/inbox']) expect(passes(other, 'Bearer scrape-token-0123456789'), other).toBe(false);
      delete process.env.GNL_METRICS_TOKEN;
      expect(passes('/api/metrics', 'Bearer scrape-token-0123456789')).toBe(false);
      process.env.GNL_METRICS_TOKEN = 'short';
      const misconfigured = proxy(request('/api/metrics', { headers: { authorization: 'Bearer short' } }));
      expect(misconfigured.status).toBe(500);
    } finally {
      if (saved === undefined) delete process.env.GNL_METRICS_TOKEN;
      else process.env.GNL_METRICS_TOKEN = saved;
    }
  });

  it('the proxy does not open a path that merely starts like a public one', () => {
    for (const pathname of ['/sign-in-admin', '/setupx', '/api/sign-in', '/sign-in/../inbox'])
      expect(proxy(request(pathname)).headers.get('x-middleware-next'), pathname).toBeNull();
  });

  it('every page checks the signed-in operator first (await requireOperator()), except sign-in and setup', async () => {
    const problems: string[] = [];
    for (const page of pages) {
      if (PUBLIC_PAGES.includes(page.pattern)) continue;
      const defaults = exportsOf(await parseFile(page.file)).filter((e) => e.name === 'default');
      if (defaults.length !== 1) problems.push(`${page.file}: no default export function`);
      for (const e of defaults) {
        const problem = pageGuardProblem(e.fn);
        if (problem) problems.push(`${page.file}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every route handler that streams a run’s answer serves it through followAnswer with the session re-checked (lib/studio/live/run-stream.ts), never followRunStream bare', () => {
    const problems: string[] = [];
    let streaming = 0;
    for (const handler of handlers) {
      const text = readFileSync(path.join(repoRoot, handler.file), 'utf8');
      if (/\bfollowRunStream\b/.test(text)) problems.push(`${handler.file}: follows a run's stream without the session re-check`);
      if (!/\bfollowAnswer\(|\brunStreamResponse\(/.test(text)) continue;
      streaming += 1;
      if (!/stillAuthorized: \(\) => sessionStillOn\(auth\.session\)/.test(text)) problems.push(`${handler.file}: streams an answer without stillAuthorized`);
    }
    expect(problems).toEqual([]);
    // The run page's live step, a chat turn's answer and the chat's reconnect.
    expect(streaming).toBe(3);
  });

  it('every route handler checks the session first and returns the refusal (operatorOrRefusal); one that changes something names its permission', async () => {
    const problems: string[] = [];
    for (const handler of handlers) {
      if (PUBLIC_ROUTES.includes(handler.pattern)) continue;
      if (API_ROUTES.includes(handler.pattern)) {
        // Every method is the API's handler, which refuses a request without a valid bearer token first.
        const text = readFileSync(path.join(repoRoot, handler.file), 'utf8');
        if (!/const handle = \(request: Request\) => studioApi\(\)\.handle\(request\);/.test(text) || /cookies\(|operatorOrRefusal/.test(text))
          problems.push(`${handler.file}: does not hand every request to the API's token check`);
        continue;
      }
      if (TOKEN_ROUTES.includes(handler.pattern)) {
        // `if (!bearerMatches(…)) { const auth = await operatorOrRefusal(); if ('refusal' in auth) return auth.refusal; }`
        const text = readFileSync(path.join(repoRoot, handler.file), 'utf8');
        if (
          !/if \(!bearerMatches\(request\.headers\.get\('authorization'\)\)\) \{\s*const auth = await operatorOrRefusal\(\);\s*if \('refusal' in auth\) return auth\.refusal;/.test(
            text,
          )
        )
          problems.push(`${handler.file}: does not check the bearer token, then the session, before anything else`);
        continue;
      }
      const exported = exportsOf(await parseFile(handler.file));
      const methods = exported.filter((e) => /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(e.name));
      if (methods.length === 0) problems.push(`${handler.file}: no HTTP method exported`);
      for (const e of methods) {
        const problem = e.fn ? routeGuardProblem(e.fn, e.name) : `${e.name} is ${e.other}`;
        if (problem) problems.push(`${handler.file} ${e.name}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every Studio action names the permission it needs, checked against the operator’s role (lib/accounts/authorize.ts)', () => {
    const source = readFileSync(path.join(repoRoot, 'app/(studio)/actions.ts'), 'utf8');
    const actions = [...source.matchAll(/^export async function (\w+)\(/gm)].map((m) => m[1]);
    const checks = [...source.matchAll(/^export async function (\w+)\([\s\S]*?await authenticate\('(\w+)', /gm)].map((m) => [m[1], m[2]]);
    expect(checks.map(([name]) => name)).toEqual(actions);
    const needs = Object.fromEntries(checks);
    for (const permission of Object.values(needs)) expect(PERMISSIONS).toContain(permission);
    // What a viewer may do is read; deciding about money and messages needs an approver; erasing data and editing memory an admin.
    expect(
      Object.entries(needs)
        .filter(([, p]) => p === 'read')
        .map(([n]) => n),
    ).toEqual(['previewBulkAction', 'signOutEverywhereAction']);
    // Signing out everywhere: anyone for themselves, and only an admin for another person (checked inside).
    expect(source).toMatch(
      /if \(parsed\.data\.login\.toLowerCase\(\) !== operator\.login\) \{\s*const allowed = authorize\([^)]*\}, 'admin'\);\s*if \(!allowed\.ok\) return/,
    );
    expect(needs).toMatchObject({
      approveAction: 'decide',
      resolveSideEffectAction: 'decide',
      eraseRunAction: 'admin',
      editWorkingMemoryAction: 'admin',
      setRoleAction: 'admin',
      createTokenAction: 'admin',
      revokeTokenAction: 'admin',
    });
    // The check itself: the role's permissions, before the input is parsed.
    expect(source).toMatch(
      /const allowed = authorize\(\{ kind: 'operator', login: operator\.login, role: operator\.role \}, permission\);\s*if \(!allowed\.ok\) return/,
    );
  });

  it('every exported server action checks the session first and returns when there is none, except sign-in, setup and sign-out', async () => {
    const problems: string[] = [];
    const checked: string[] = [];
    for (const file of serverActionModules()) {
      const module = await parseFile(file);
      // A local helper counts as a session check when it itself starts with currentOperator() and returns without one.
      const guards = new Set(['currentOperator']);
      for (const [name, fn] of localFunctions(module)) if (!actionGuardProblem(fn, new Set(['currentOperator']))) guards.add(name);
      for (const e of exportsOf(module)) {
        const id = `${file}#${e.name}`;
        if (PUBLIC_ACTIONS.includes(id)) continue;
        checked.push(id);
        const problem = e.fn ? actionGuardProblem(e.fn, guards) : `exports ${e.other} (a 'use server' module exports only actions)`;
        if (problem) problems.push(`${id}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toEqual(expect.arrayContaining(['app/(studio)/actions.ts#approveAction', 'app/(studio)/actions.ts#cancelRunAction']));
  });

  it('the checks above catch a page, a route handler and an action that skip the session, and a changing route that names no permission', async () => {
    const page = await parseSource(
      'export default async function P() { await connection(); const runs = await listRuns(); await requireOperator(); }',
      'p.tsx',
    );
    expect(pageGuardProblem(exportsOf(page)[0]?.fn)).toMatch(/requireOperator/);
    const route = await parseSource('export async function GET() { const auth = await operatorOrRefusal(); return Response.json(await loadInbox()); }', 'r.ts');
    expect(routeGuardProblem(exportsOf(route)[0]?.fn, 'GET')).toMatch(/refusal/);
    // A POST that changes something with only the session checked (a viewer could start runs), or only 'read'.
    for (const given of ['', "'read'", "'starts'"]) {
      const post = await parseSource(
        `export async function POST() { const auth = await operatorOrRefusal(${given}); if ('refusal' in auth) return auth.refusal; await startRun(); }`,
        'r.ts',
      );
      expect(routeGuardProblem(exportsOf(post)[0]?.fn, 'POST')).toMatch(/does not name the permission it needs/);
    }
    const guarded = await parseSource(
      "export async function POST() { const auth = await operatorOrRefusal('start'); if ('refusal' in auth) return auth.refusal; await startRun(); }",
      'r.ts',
    );
    expect(routeGuardProblem(exportsOf(guarded)[0]?.fn, 'POST')).toBeUndefined();
    const action = await parseSource(
      "'use server';\nasync function authenticate() { const operator = await currentOperator(); return operator; }\nexport async function a() { const p = await authenticate(); if (!p) return p; }\nexport const b = async () => { await cancel(); };",
      'a.ts',
    );
    const guards = new Set(['currentOperator']);
    for (const [name, fn] of localFunctions(action)) if (!actionGuardProblem(fn, guards)) guards.add(name);
    expect(guards.has('authenticate')).toBe(false);
    expect(exportsOf(action).map((e) => actionGuardProblem(e.fn, guards))).toEqual([
      expect.stringMatching(/session check/),
      expect.stringMatching(/session check/),
    ]);
  });
});
