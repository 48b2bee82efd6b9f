/**
 * The Studio lets no one in where they don't belong, checked against the built app (project `long`: the
 * second Studio, whose journal also holds the untrusted payloads of seed-hostile.ts and whose operator,
 * carol, came from GNL_STUDIO_OPERATOR_* at first start).
 *
 * - Every page and route handler enumerated from app/ (tests/support/app-routes.ts), and every server
 *   action of the build (.next's server-reference-manifest), refuses a request without a cookie, with a
 *   forged one, with an expired one and with a validly signed one for an account that does not exist.
 * - A server action POST with carol's session but a foreign Origin is refused before it runs (the same
 *   POST from this origin reaches the action: it answers "invalid" to the empty input).
 * - Live event streams are bounded per operator (24): the next is a 429 with the reason; closed ones give their places back.
 * - The session cookie is HttpOnly, SameSite=Strict, not Secure on loopback http, Secure over https or
 *   at another host name.
 * - Sign-in is rate-limited per login and per address. This Studio runs as behind a reverse proxy
 *   (GNL_STUDIO_TRUST_PROXY=1), so the address is the last X-Forwarded-For entry, which the test writes
 *   as that proxy would: each test uses addresses of its own, so the suite's own sign-ins from 127.0.0.1
 *   are not counted. That a client reaching the Studio directly cannot choose its address is
 *   lib/studio/auth/client-address.test.ts.
 * - Untrusted tool arguments, outputs, model text, prompts and run ids are shown as text: no script runs
 *   (no dialog, window.__gnlPwned stays undefined), no javascript: URL or event-handler attribute is in
 *   the DOM, and the pages still answer the keyboard and clicks after 2.6 MB of huge strings and a 900-level JSON.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, type Request, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { SESSION_COOKIE, SESSION_MAX_AGE_SECONDS, secretFilePath, signSessionToken } from '@/lib/studio/auth/session-token';
import { appRoutes, pathOf } from '@/tests/support/app-routes';
import { repoRoot } from '@/tests/support/source-imports';
import { HOSTILE } from './hostile-data';
import { LONG } from './seed-data';
import { SignInPage } from './studio-pages';

const PUBLIC_PAGES = ['/sign-in', '/setup'];
const PUBLIC_ACTIONS = ['signInAction', 'setupAction', 'signOutAction'];

/** The long project's Studio keeps its generated session secret beside its data folder (playwright.config.ts). */
function studioSecret(): Buffer {
  const dataDir = process.env.GNL_E2E_DATA_DIR;
  if (!dataDir) throw new Error('GNL_E2E_DATA_DIR is set by playwright.config.ts');
  const file = secretFilePath({ GNL_DATA_DIR: path.join(path.dirname(dataDir), 'long-data') });
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'utf8');
}

const BAD_SESSIONS: Record<string, () => string | undefined> = {
  'no cookie': () => undefined,
  'a forged cookie': () => `${Buffer.from(JSON.stringify({ v: 1, sub: 'mallory', exp: 9_999_999_999 })).toString('base64url')}.${'A'.repeat(43)}`,
  'an expired cookie': () =>
    signSessionToken({
      operatorId: randomUUID(),
      sessionId: randomUUID(),
      now: new Date(Date.now() - (SESSION_MAX_AGE_SECONDS + 60) * 1000),
      secret: studioSecret(),
    }),
  // Valid signature and expiry (the proxy lets it through): the page, handler or action itself refuses it.
  'a cookie for no account': () => signSessionToken({ operatorId: randomUUID(), sessionId: randomUUID(), secret: studioSecret() }),
};

function cookieHeader(token: string | undefined): Record<string, string> {
  return token ? { cookie: `${SESSION_COOKIE}=${token}` } : {};
}

/** A server action of the build: its id, its name and the page that serves it. */
interface BuiltAction {
  id: string;
  name: string;
  page: string;
}

function builtActions(): BuiltAction[] {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, '.next/server/server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { workers: Record<string, unknown>; exportedName?: string; filename?: string }>;
  };
  return Object.entries(manifest.node).map(([id, entry]) => {
    // A page without dynamic segments that serves it.
    const worker = Object.keys(entry.workers).find((w) => w.startsWith('app/') && !w.includes('[')) ?? '';
    // 'app/(studio)/demo/page' → '/demo'
    const page = `/${worker
      .replace(/^app\//, '')
      .replace(/\/?page$/, '')
      .split('/')
      .filter((s) => s && !/^\(.*\)$/.test(s))
      .join('/')}`;
    return { id, name: entry.exportedName ?? '?', page };
  });
}

function postAction(request: APIRequestContext, action: BuiltAction, headers: Record<string, string>, body: unknown = [{}]) {
  return request.post(action.page, {
    headers: { 'Next-Action': action.id, Accept: 'text/x-component', 'Content-Type': 'text/plain;charset=UTF-8', ...headers },
    data: JSON.stringify(body),
    maxRedirects: 0,
  });
}

async function signIn(page: Page) {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(LONG.operator.login, LONG.operator.password);
  // Signing in runs scrypt; on a loaded machine it can take a while.
  await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name, { timeout: 30_000 });
}

// One test at a time (in one worker): the rate-limit tests' bursts of scrypt and the huge payload page
// would otherwise load the Studio that long-run.spec.ts shares, alongside it.
test.describe.configure({ mode: 'default' });

test.describe('without a session', () => {
  test('every enumerated page and route handler refuses a request with no cookie, a forged, an expired, or one for no account', async ({ request }) => {
    const routes = appRoutes();
    const values = {
      runId: runHref(LONG.runId).split('/').pop() as string,
      chunk: '0',
      conversationId: '6f1c2b9e-3d4a-4b5c-9d8e-7f6a5b4c3d2e',
      resource: 'customer:c_42',
      // The HTTP API (/api/v1/…): no session opens it either; without a bearer token it is 401 too.
      path: `runs/${encodeURIComponent(LONG.runId)}`,
    };
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const problems: string[] = [];
    for (const route of routes) {
      const url = pathOf(route, values);
      for (const [label, token] of Object.entries(BAD_SESSIONS)) {
        const response = await request.get(url, { headers: { ...cookieHeader(token()), accept: 'text/html,text/event-stream' }, maxRedirects: 0 });
        const body = await response.text();
        const location = response.headers().location ?? '';
        if (route.kind === 'page' && PUBLIC_PAGES.includes(route.pattern)) {
          if (response.status() !== 200) problems.push(`${url} (public) with ${label}: ${response.status()}`);
        } else if (route.kind === 'route' && route.pattern === '/api/health') {
          // Public on purpose (load balancers): up or down, and nothing else.
          if (response.status() !== 200 || body !== '{"status":"up","journal":"reachable"}')
            problems.push(`${url} (public) with ${label}: ${response.status()} ${body}`);
        } else if (route.kind === 'page') {
          // The proxy answers 307; a page that finds no account redirects while rendering (307, or a streamed redirect).
          const redirected = (response.status() === 307 && new URL(location, 'http://x').pathname === '/sign-in') || /NEXT_REDIRECT;[^;]*;\/sign-in/.test(body);
          if (!redirected) problems.push(`${url} with ${label}: ${response.status()} ${location}`);
          // Nothing read from the journal (the run's prompt, its tool) is in the answer; the id in the URL may be (the page title).
          if (body.includes('Read every page') || body.includes('readPage')) problems.push(`${url} with ${label}: shows the run`);
        } else {
          if (response.status() !== 401) problems.push(`${url} with ${label}: ${response.status()}`);
          if ((response.headers()['content-type'] ?? '').includes('text/event-stream')) problems.push(`${url} with ${label}: opened a stream`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test("every server action of the build refuses a POST with no cookie, a forged, an expired, or one for no account (only sign-in's are open)", async ({
    request,
    baseURL,
  }) => {
    const actions = builtActions();
    expect(actions.map((a) => a.name)).toEqual(expect.arrayContaining(['approveAction', 'cancelRunAction', 'startDemoRunAction', 'signInAction']));
    const problems: string[] = [];
    for (const action of actions.filter((a) => !PUBLIC_ACTIONS.includes(a.name))) {
      for (const [label, token] of Object.entries(BAD_SESSIONS)) {
        // From this origin: the proxy's Origin check (403) is not what refuses it here.
        const response = await postAction(request, action, { ...cookieHeader(token()), Origin: baseURL as string });
        const body = await response.text();
        // Refused by the proxy (401), or by the action's own session check (the cookie for no account passes the proxy).
        const refused = response.status() === 401 || (response.status() === 200 && body.includes('"kind":"unauthenticated"'));
        if (!refused) problems.push(`${action.name} at ${action.page} with ${label}: ${response.status()} ${body.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

test.describe('signed in', () => {
  test.setTimeout(120_000);
  test('text no run holds (a NUL, a line break) in a run id, a filter or a call is a 4xx with a reason on every route, never a 500', async ({ page }) => {
    await signIn(page);
    const nulRun = runHref(`${LONG.runId}\u0000x`).split('/').pop() as string;
    const realRun = runHref(LONG.runId).split('/').pop() as string;
    const expectations: [string, number][] = [
      ['/api/runs?q=%00%0Aforged%20log%20line', 400],
      ['/api/runs?agent=support%00', 400],
      [`/api/runs/${nulRun}`, 404],
      [`/api/runs/${nulRun}/export`, 404],
      [`/api/runs/${nulRun}/chunks/0`, 404],
      [`/api/runs/${nulRun}/decision?call=c1`, 404],
      [`/api/runs/${realRun}/decision?call=c%001`, 400],
      [`/api/runs/${realRun}/decision?call=${'c'.repeat(201)}`, 400],
    ];
    const problems: string[] = [];
    for (const [url, status] of expectations) {
      const response = await page.request.get(url, { maxRedirects: 0 });
      const body = await response.text();
      if (response.status() !== status) problems.push(`${url}: ${response.status()} ${body.slice(0, 200)}`);
      // Each refusal says why in a short JSON body.
      else if (!(JSON.parse(body) as { error?: string }).error) problems.push(`${url}: no reason in ${body.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
    // The pages clean a filter's control characters instead of failing: the runs page still renders.
    const listed = await page.request.get('/?q=%00%0A', { maxRedirects: 0 });
    expect(listed.status()).toBe(200);
  });

  test('a server action POST with the session but a foreign Origin is refused before it runs; from this origin it runs', async ({ page, baseURL }) => {
    await signIn(page);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const problems: string[] = [];
    for (const action of builtActions().filter((a) => !PUBLIC_ACTIONS.includes(a.name))) {
      // The empty input: an action that runs answers "invalid" (zod), so nothing is started or decided.
      const same = await postAction(page.request, action, { cookie, Origin: baseURL as string });
      const sameBody = await same.text();
      if (same.status() !== 200 || !sameBody.includes('"kind":"invalid"'))
        problems.push(`${action.name} same origin: ${same.status()} ${sameBody.slice(0, 200)}`);
      for (const origin of ['http://evil.example', 'http://127.0.0.1.evil.example', 'null']) {
        const foreign = await postAction(page.request, action, { cookie, Origin: origin });
        const body = await foreign.text();
        if (foreign.status() === 200 || body.includes('"kind"')) problems.push(`${action.name} from ${origin}: ${foreign.status()} ${body.slice(0, 200)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('a server action body over a million bytes is a 413 with the reason, before the action runs (Next 1 MiB, React a million slots: a 500 between); one just under reaches the action', async ({
    page,
    baseURL,
  }) => {
    await signIn(page);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const action = builtActions().find((a) => !PUBLIC_ACTIONS.includes(a.name));
    if (!action) throw new Error('the build has no signed-in server action');
    const headers = { cookie, Origin: baseURL as string };
    const over = await postAction(page.request, action, headers, [{}, 'x'.repeat(1_000_000)]);
    expect(over.status()).toBe(413);
    expect(over.headers()['cache-control']).toBe('no-store');
    expect((await over.json()) as { error?: string }).toEqual({
      error: expect.stringMatching(/^The request body is \d+ bytes; a Studio action takes at most 1000000\.$/),
    });
    const under = await postAction(page.request, action, headers, [{}, 'x'.repeat(1_000_000 - 16)]);
    expect(under.status()).toBe(200);
    expect(await under.text()).toContain('"kind":"invalid"');
  });

  test('live event streams are bounded per operator: past 24 a new one is a 429 with the reason and Retry-After; closed ones give their places back', async ({
    page,
    baseURL,
  }) => {
    await signIn(page);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    // From this process, not the browser: Chromium opens at most six connections to one host.
    const held: AbortController[] = [];
    const open = async (): Promise<Response> => {
      const controller = new AbortController();
      const response = await fetch(new URL('/api/events', baseURL), { headers: { cookie }, signal: controller.signal });
      if (response.status === 200) held.push(controller);
      return response;
    };
    try {
      let refused: Response | undefined;
      // carol's other tests may hold a stream or two meanwhile: open until refused, never past the bound.
      for (let i = 0; i < 30 && !refused; i++) {
        const response = await open();
        if (response.status !== 200) refused = response;
      }
      if (!refused) throw new Error(`none of ${held.length} live streams was refused`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('10');
      expect(((await refused.json()) as { error?: string }).error).toMatch(/^You have 24 live streams open \(the limit is 24\)/);
      expect(held.length).toBeGreaterThan(0);
      expect(held.length).toBeLessThanOrEqual(24);
      for (const controller of held.splice(0)) controller.abort();
      // The server sees each connection close and gives its place back: a new stream is accepted again.
      await expect.poll(async () => (await open()).status, { timeout: 15_000 }).toBe(200);
    } finally {
      for (const controller of held.splice(0)) controller.abort();
    }
  });

  test('the session cookie is HttpOnly and SameSite=Strict; Secure over https or at another host name, not on loopback http', async ({ page, baseURL }) => {
    let signInPost: { url: string; headers: Record<string, string>; body: Buffer } | undefined;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.headers()['next-action'] && new URL(request.url()).pathname === '/sign-in')
        signInPost ??= { url: request.url(), headers: request.headers(), body: request.postDataBuffer() as Buffer };
    });
    await signIn(page);
    const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    expect(signInPost).toBeDefined();

    // The same sign-in, replayed as it arrives through an https proxy, and as it arrives at a public host name.
    const replay = async (headers: Record<string, string>) => {
      const { cookie: _, ...captured } = (signInPost as { headers: Record<string, string> }).headers;
      const response = await page.request.post(signInPost?.url as string, {
        headers: { ...captured, ...headers },
        data: signInPost?.body,
        maxRedirects: 0,
      });
      return response.headersArray().filter((h) => h.name.toLowerCase() === 'set-cookie' && h.value.startsWith(`${SESSION_COOKIE}=`))[0]?.value ?? '';
    };
    const local = await replay({ Origin: baseURL as string });
    expect(local).toMatch(/HttpOnly/i);
    expect(local).toMatch(/SameSite=Strict/i);
    expect(local).not.toMatch(/;\s*Secure/i);
    expect(await replay({ Origin: baseURL as string, 'X-Forwarded-Proto': 'https' })).toMatch(/;\s*Secure/i);
    expect(await replay({ Origin: 'http://studio.example.com', 'X-Forwarded-Host': 'studio.example.com' })).toMatch(/;\s*Secure/i);

    // Reached over plain http at such a name, the sign-in page says the browser will not keep the session.
    await page.context().clearCookies();
    await page.goto('/sign-in');
    await expect(page.getByTestId('insecure-transport')).toHaveCount(0);
    await page.setExtraHTTPHeaders({ 'X-Forwarded-Host': 'studio.example.com' });
    await page.goto('/sign-in');
    await expect(page.getByTestId('insecure-transport')).toContainText('served over plain http at studio.example.com');
  });
});

test.describe('sign-in rate limit', () => {
  test.setTimeout(120_000);

  /**
   * Signs in through the form as `login` from `address`, and keeps the POST the browser sent, so the
   * next failures can be sent together (all inside the limit's one-minute window even on a slow machine).
   */
  async function failOnce(page: Page, login: string, address: string) {
    let sent: { url: string; headers: Record<string, string>; body: Buffer } | undefined;
    const listener = (request: Request) => {
      if (request.method() === 'POST' && request.headers()['next-action'])
        sent ??= { url: request.url(), headers: request.headers(), body: request.postDataBuffer() as Buffer };
    };
    page.on('request', listener);
    await page.setExtraHTTPHeaders({ 'X-Forwarded-For': address });
    await page.goto('/sign-in');
    const form = new SignInPage(page);
    await form.signIn(login, 'wrong-password');
    await expect(form.error).toHaveText('Wrong login or password.');
    page.off('request', listener);
    expect(sent).toBeDefined();
    const captured = sent as NonNullable<typeof sent>;
    /** The same sign-in POST, with another login (the form's field) and address. */
    return (other: { login: string; address: string }) =>
      page.request.post(captured.url, {
        // Chromium reports the request without its Origin; the browser sent this page's.
        headers: { ...withoutLength(captured.headers), Origin: new URL(captured.url).origin, 'X-Forwarded-For': other.address },
        data: Buffer.from(captured.body.toString('utf8').replace(login, other.login), 'utf8'),
        maxRedirects: 0,
      });
  }

  function withoutLength(headers: Record<string, string>): Record<string, string> {
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !/^(content-length|cookie)$/i.test(name)));
  }

  test('the 6th failed sign-in for one login within a minute is refused with the wait, whatever the address', async ({ page }) => {
    const login = `mallory-${randomUUID().slice(0, 8)}`;
    const replay = await failOnce(page, login, '198.51.100.1');
    const answers = await Promise.all([2, 3, 4, 5].map((i) => replay({ login, address: `198.51.100.${i}` })));
    for (const answer of answers) expect(await answer.text()).toContain('Wrong login or password.');
    await page.setExtraHTTPHeaders({ 'X-Forwarded-For': '198.51.100.99' });
    await page.goto('/sign-in');
    const form = new SignInPage(page);
    await form.signIn(login.toUpperCase(), 'wrong-password-6');
    await expect(form.error).toHaveText(/^Too many failed sign-ins for this login: try again in \d+ s\.$/);
  });

  test('the 21st failed sign-in from one address within a minute is refused, even with the right password; another address signs in', async ({ page }) => {
    const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const first = `guess-${randomUUID().slice(0, 8)}`;
    const replay = await failOnce(page, first, address);
    // In bursts of 5 (one minute is ample for 19 attempts; 19 at once would queue every other sign-in behind them).
    for (let burst = 0; burst < 19; burst += 5) {
      const logins = Array.from({ length: Math.min(5, 19 - burst) }, () => `guess-${randomUUID().slice(0, 8)}`);
      const answers = await Promise.all(logins.map((login) => replay({ login, address })));
      for (const answer of answers) expect(await answer.text()).toContain('Wrong login or password.');
    }

    await page.goto('/sign-in');
    const form = new SignInPage(page);
    await form.signIn(LONG.operator.login, LONG.operator.password);
    await expect(form.error).toHaveText(/^Too many failed sign-ins from this address: try again in \d+ s\.$/);

    await page.setExtraHTTPHeaders({ 'X-Forwarded-For': `192.0.2.${Math.floor(Math.random() * 250) + 1}` });
    await page.goto('/sign-in');
    await form.signIn(LONG.operator.login, LONG.operator.password);
    await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name, { timeout: 30_000 });
  });
});

test.describe('untrusted payloads', () => {
  test.setTimeout(120_000);

  /** What a run of the hostile payloads would leave behind, read from the live DOM. */
  async function traces(page: Page) {
    return page.evaluate(() => {
      const attributes: string[] = [];
      for (const element of Array.from(document.querySelectorAll('*'))) {
        for (const attribute of Array.from(element.attributes)) {
          if (/^on/i.test(attribute.name)) attributes.push(`${element.tagName} ${attribute.name}`);
          if (/^(href|src|action|formaction|xlink:href|srcdoc)$/i.test(attribute.name) && /^\s*javascript:/i.test(attribute.value))
            attributes.push(`${element.tagName} ${attribute.name}=${attribute.value.slice(0, 40)}`);
        }
      }
      const links = Array.from(document.querySelectorAll('a[href]')).filter((a) => (a as HTMLAnchorElement).protocol === 'javascript:').length;
      return {
        pwned: (window as unknown as { __gnlPwned?: unknown }).__gnlPwned,
        attributes,
        javascriptLinks: links,
        // Markup from a payload would land inside the element showing it (each has a data-slot or data-testid).
        injected: document.querySelectorAll('img[src="x"], svg[onload], iframe, [data-slot] script, [data-testid] script').length,
      };
    });
  }

  test('tool arguments, outputs, model text, prompts and run ids are shown as text; nothing runs; the pages still answer', async ({ page }) => {
    const dialogs: string[] = [];
    page.on('dialog', async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.dismiss();
    });
    await signIn(page);

    // The runs list: the run ids themselves are payloads.
    await page.goto('/');
    await expect(page.locator(`[data-testid="run-row"]`).filter({ hasText: HOSTILE.completed.runId })).toHaveCount(1);
    expect(await traces(page)).toEqual({ pwned: undefined, attributes: [], javascriptLinks: 0, injected: 0 });

    // The completed run: hostile arguments with a 900-level JSON, a 0.9 MB output, hostile 0.9 MB model text.
    await page.goto(runHref(HOSTILE.completed.runId));
    await expect(page.getByTestId('run-id')).toContainText(HOSTILE.completed.runId);
    const answer = page.locator('[data-slot="final-text"], [data-slot="step-text"]').first();
    await expect(answer).toContainText(HOSTILE.visible);
    await expect(answer).toContainText("[click me](javascript:window.__gnlPwned='markdown')");
    const output = page.locator('[data-slot="tool-output"]').first();
    await expect(output).toContainText('AAAAAAAA');
    expect(await traces(page)).toEqual({ pwned: undefined, attributes: [], javascriptLinks: 0, injected: 0 });
    // Still answering: the keyboard help opens and closes, a journal record expands and shows its size.
    await expect(page.locator('html[data-keyboard-shortcuts="on"]')).toHaveCount(1);
    await page.keyboard.press('?');
    await expect(page.getByTestId('key-help')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('key-help')).toHaveCount(0);
    const record = page.locator('[data-testid="run-event"][data-type="tool-call-end"] [data-slot="raw-record"]').first();
    await record.locator('summary').click();
    await expect(record).toHaveAttribute('open', '');
    await expect(record).toContainText('more characters not shown');
    expect(await traces(page)).toEqual({ pwned: undefined, attributes: [], javascriptLinks: 0, injected: 0 });

    // The waiting run and the inbox: hostile arguments of a call waiting for a person.
    await page.goto(runHref(HOSTILE.waiting.runId));
    await expect(page.getByTestId('run-id')).toContainText(HOSTILE.waiting.runId);
    await expect(page.locator('[data-slot="payload-text"]').filter({ hasText: "javascript:window.__gnlPwned='href'" }).first()).toBeVisible();
    expect(await traces(page)).toEqual({ pwned: undefined, attributes: [], javascriptLinks: 0, injected: 0 });
    await page.goto('/inbox');
    await expect(page.getByText(HOSTILE.waiting.runId).first()).toBeVisible();
    expect(await traces(page)).toEqual({ pwned: undefined, attributes: [], javascriptLinks: 0, injected: 0 });
    await expect(page.locator('html[data-keyboard-shortcuts="on"]')).toHaveCount(1);
    await page.keyboard.press('j');
    await page.keyboard.press('?');
    await expect(page.getByTestId('key-help')).toBeVisible();

    expect(dialogs).toEqual([]);
  });
});
