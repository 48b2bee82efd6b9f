/**
 * What a browser does with the Studio's answers (project `long`: the second Studio, as behind one
 * reverse proxy that forwards the public name studio.example.com):
 *
 * - a sign-in's `next` that a browser would take off this Studio (tabs and newlines it drops, backslashes
 *   it reads as slashes, encoded and look-alike slashes, other schemes) leads to this Studio, signed in
 *   or signing in, and never answers 500 (lib/studio/auth/next-path.ts has the whole table);
 * - a page on another port of this machine (the same site, so SameSite=Strict cookies go with it)
 *   cannot frame any Studio page, so no click of a visitor lands on an approval;
 * - every answer (pages, JSON routes, the event stream's refusal, static files) carries the security
 *   headers, a page's scripts carry the nonce of its own policy, and the live views and copy buttons
 *   work under that policy with no violation reported;
 * - the Studio answers only the hosts it is configured for (a DNS-rebinding page of another name gets
 *   421), and a forwarded host counts only as the declared proxy's last entry.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Page, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { LONG } from './seed-data';
import { SignInPage } from './studio-pages';

test.describe.configure({ mode: 'default' });
test.setTimeout(120_000);

async function signIn(page: Page, path = '/sign-in') {
  await page.goto(path);
  await new SignInPage(page).signIn(LONG.operator.login, LONG.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name, { timeout: 30_000 });
}

/** `next` values a browser would take elsewhere, as they stand in the query string. */
const HOSTILE_NEXT = [
  '/%09/evil.example/phish',
  '/%0A/evil.example/phish',
  '/%0D/evil.example/phish',
  '/%0D%0ASet-Cookie:%20x=1',
  '%2F%2Fevil.example',
  '//evil.example',
  '/%5Cevil.example',
  '/%5C/evil.example',
  '/%2F/evil.example',
  'https://evil.example/',
  'javascript:alert(document.domain)',
  '/%E2%88%95%E2%88%95evil.example',
  '/%EF%BC%8F%EF%BC%8Fevil.example',
];

test.describe('open redirect', () => {
  test('signed in, every hostile next answers a redirect into this Studio, never 500, and Chromium stays here', async ({ page, baseURL }) => {
    await signIn(page);
    const origin = new URL(baseURL as string).origin;
    const problems: string[] = [];
    for (const next of HOSTILE_NEXT) {
      const answer = await page.request.get(`/sign-in?next=${next}`, { maxRedirects: 0 });
      const location = answer.headers().location ?? '';
      if (answer.status() !== 307 || new URL(location, origin).origin !== origin || /[\t\n\r\\]/.test(location))
        problems.push(`${next}: ${answer.status()} location ${JSON.stringify(location)}`);
      await page.goto(`/sign-in?next=${next}`);
      if (new URL(page.url()).origin !== origin) problems.push(`${next}: Chromium landed on ${page.url()}`);
    }
    expect(problems).toEqual([]);
    // A path of this Studio is still where a sign-in leads.
    await page.goto(`/sign-in?next=${encodeURIComponent(runHref(LONG.runId))}`);
    await expect(page).toHaveURL(`${origin}${runHref(LONG.runId)}`);
  });

  test('signed out, signing in through a hostile link lands on this Studio', async ({ page, baseURL }) => {
    const origin = new URL(baseURL as string).origin;
    for (const next of ['/%09/evil.example/phish', '/%5C/evil.example', '//evil.example']) {
      await page.context().clearCookies();
      await signIn(page, `/sign-in?next=${next}`);
      expect(new URL(page.url()).origin, next).toBe(origin);
    }
  });
});

test.describe('framing', () => {
  let attacker: Server;
  let attackerOrigin: string;

  test.beforeAll(async ({ baseURL }) => {
    // Another port of this machine: the same site as the Studio, so its strict cookies are sent with the frame.
    attacker = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end(
        `<!doctype html><title>win a prize</title><p>Click the button!</p>
         <iframe id="inbox" src="${baseURL}/inbox" width="1200" height="800"></iframe>
         <iframe id="run" src="${baseURL}${runHref(LONG.runId)}" width="1200" height="800"></iframe>
         <iframe id="sign-in" src="${baseURL}/sign-in" width="1200" height="800"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  });

  test.afterAll(async () => {
    await new Promise((resolve) => attacker.close(resolve));
  });

  test('a page on another local port cannot frame the inbox, a run or the sign-in page, signed in', async ({ page, baseURL }) => {
    await signIn(page);
    const studioResponses: string[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(baseURL as string) && response.request().frame() !== page.mainFrame())
        studioResponses.push(`${response.status()} ${response.headers()['x-frame-options']} ${response.headers()['content-security-policy']}`);
    });
    await page.goto(attackerOrigin);
    await expect(page.locator('iframe')).toHaveCount(3);
    // Each frame's document was refused: Chromium shows its own error page there, never the Studio's.
    for (const id of ['inbox', 'run', 'sign-in']) {
      const frame = await (await page.locator(`iframe#${id}`).elementHandle())?.contentFrame();
      await expect.poll(() => frame?.url(), { message: id }).toMatch(/^chrome-error:/);
      expect(await frame?.locator('[data-testid="signed-in-as"], form').count(), id).toBe(0);
    }
    // The Studio was asked (the cookie went with it) and said no to framing.
    expect(studioResponses.length).toBeGreaterThanOrEqual(3);
    for (const answer of studioResponses) expect(answer).toMatch(/ DENY .*frame-ancestors 'none'/);
  });
});

test.describe('security headers', () => {
  const EXPECTED = {
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'same-origin',
  };

  test('pages, JSON routes, refusals and static files carry them; X-Powered-By is gone; a page policy has a fresh nonce and no eval', async ({
    page,
    request,
  }) => {
    await signIn(page);
    const document = await page.goto('/inbox');
    const html = document?.headers() ?? {};
    expect(html).toMatchObject(EXPECTED);
    const policy = html['content-security-policy'] ?? '';
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).not.toContain('unsafe-eval');
    expect(html['permissions-policy']).toContain('camera=()');
    expect(html['x-powered-by']).toBeUndefined();
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeTruthy();
    // Next put the policy's nonce on its scripts; a second page load gets another one.
    const scriptNonces = await page.locator('script').evaluateAll((scripts) => scripts.map((s) => (s as HTMLScriptElement).nonce));
    expect(scriptNonces.length).toBeGreaterThan(0);
    expect(new Set(scriptNonces)).toEqual(new Set([nonce]));
    const again = (await page.request.get('/inbox')).headers()['content-security-policy'] ?? '';
    expect(/'nonce-([^']+)'/.exec(again)?.[1]).not.toBe(nonce);

    const staticFile = await page.locator('script[src^="/_next/static/"]').first().getAttribute('src');
    const others = {
      'a JSON route': await page.request.get('/api/inbox'),
      // `request` carries no session: the proxy's own answers.
      'a refusal': await request.get('/api/inbox'),
      'the redirect to sign-in': await request.get('/inbox', { maxRedirects: 0 }),
      'the sign-in page': await request.get('/sign-in'),
      'a static file': await page.request.get(staticFile as string),
      'a page that does not exist': await page.request.get('/no-such-page'),
    };
    for (const [label, answer] of Object.entries(others)) {
      expect(answer.headers(), label).toMatchObject(EXPECTED);
      expect(answer.headers()['content-security-policy'], label).toContain("frame-ancestors 'none'");
      expect(answer.headers()['x-powered-by'], label).toBeUndefined();
    }
  });

  test('under the policy the live views connect, the timeline loads and the copy button copies, with no violation reported', async ({ page, context }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    const consoleRefusals: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to (execute|load|apply|connect)/i.test(message.text())) consoleRefusals.push(message.text());
    });
    await signIn(page);
    await page.goto('/');
    await expect(page.getByTestId('live-runs')).toHaveAttribute('data-stream', 'live');
    await page.goto('/inbox');
    await expect(page.getByTestId('inbox')).toHaveAttribute('data-stream', 'live');
    await page.goto(runHref(LONG.runId));
    await expect(page.getByTestId('run-view')).toHaveAttribute('data-stream', 'live');
    // A run this long opens one line per event; the cards carry the copy buttons.
    await page.getByRole('button', { name: 'Cards', exact: true }).click();
    const copy = page.getByRole('button', { name: /^Copy idempotency key / }).last();
    const key = (await copy.getAttribute('aria-label'))?.replace('Copy idempotency key ', '');
    await copy.click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    expect(await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations)).toEqual([]);
    expect(consoleRefusals).toEqual([]);
  });
});

/** A raw HTTP request with the Host and headers given (a browser page of another name would send these). */
function rawGet(baseURL: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseURL);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ hostname, port, path, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

test.describe('hosts', () => {
  test('another host name is refused before anything runs (DNS rebinding); the configured public name and loopback names answer', async ({ baseURL }) => {
    const { port } = new URL(baseURL as string);
    for (const host of [`evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `studio.example.com.evil.example:${port}`]) {
      const answer = await rawGet(baseURL as string, '/sign-in', { host });
      expect(answer.status, host).toBe(421);
      expect(answer.body, host).toContain('does not answer the host');
    }
    // Behind the declared proxy: only its own (last) X-Forwarded-Host entry counts, and only a configured name.
    expect((await rawGet(baseURL as string, '/sign-in', { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'evil.example' })).status).toBe(421);
    expect((await rawGet(baseURL as string, '/sign-in', { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'studio.example.com, evil.example' })).status).toBe(
      421,
    );
    expect((await rawGet(baseURL as string, '/sign-in', { host: `127.0.0.1:${port}`, 'x-forwarded-host': 'studio.example.com' })).status).toBe(200);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`]) expect((await rawGet(baseURL as string, '/sign-in', { host })).status, host).toBe(200);
  });
});
