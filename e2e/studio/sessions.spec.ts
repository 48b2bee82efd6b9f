/**
 * Sign-out ends the session on the server, not only in the browser: after Sign out, the old cookie
 * (still correctly signed, still unexpired) is refused by the API (401) and by a page (redirect to
 * sign-in), an event stream open on it ends with `signed-out`, and the same operator's session in
 * another browser goes on. And where crash points are off (GNL_DEMO_CRASH_POINTS=0), the Demo page says
 * so and the server refuses to start a run with one.
 *
 * A Studio of its own (scripts/studio.mjs, the shared build) on a fresh embedded journal, a free port
 * and an operator no other test uses: signing out must not end another test's sessions.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, expect, test } from '@playwright/test';
import { SESSION_COOKIE } from '@/lib/studio/auth/session-token';
import { SignInPage } from './studio-pages';

const operator = { login: 'sessions-e2e', name: 'Sessions E2E', password: 'sessions-e2e-password' };
const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-e2e-sessions-')), 'data');
let studio: ChildProcess | undefined;
let origin = '';

test.use({ storageState: { cookies: [], origins: [] } });

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  studio = spawn(process.execPath, ['scripts/studio.mjs'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: 'ignore',
    env: {
      ...process.env,
      DATABASE_URL: '',
      GNL_DATA_DIR: dataDir,
      PORT: String(port),
      GNL_STUDIO_HOST: '127.0.0.1',
      GNL_DEMO_SERVICE: 'off',
      GNL_DEMO_SERVICE_URL: 'http://127.0.0.1:9',
      GNL_DEMO_CRASH_POINTS: '0',
      // Quick heartbeats (each re-checks the session) and streams that would outlive the test otherwise.
      GNL_STUDIO_HEARTBEAT_MS: '500',
      GNL_STUDIO_STREAM_MAX_MS: '120000',
      GNL_STUDIO_OPERATOR_LOGIN: operator.login,
      GNL_STUDIO_OPERATOR_NAME: operator.name,
      GNL_STUDIO_OPERATOR_PASSWORD: operator.password,
    },
  });
  await expect(async () => {
    expect((await fetch(`${origin}/sign-in`)).ok).toBe(true);
  }).toPass({ timeout: 240_000 });
});

test.afterAll(() => {
  studio?.kill('SIGTERM'); // the supervisor stops its server
});

/** A fresh browser context signed in as the operator, and its session cookie's value. */
async function signedIn(browser: Browser) {
  const context = await browser.newContext({ baseURL: origin });
  const page = await context.newPage();
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(operator.login, operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(operator.name);
  const cookie = (await context.cookies()).find((c) => c.name === SESSION_COOKIE);
  if (!cookie) throw new Error('no session cookie after signing in');
  return { context, page, cookie: cookie.value };
}

/** Another browser holding a copy of this cookie, as someone who copied it would. */
async function copyOf(browser: Browser, value: string) {
  const context = await browser.newContext({ baseURL: origin });
  await context.addCookies([{ name: SESSION_COOKIE, value, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' }]);
  return context;
}

type Seen = { events: string[] };

test('after Sign out, the old cookie is refused by the API and by pages, its open event stream ends, and another browser’s session goes on', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const laptop = await signedIn(browser);
  const phone = await signedIn(browser);
  expect(laptop.cookie).not.toBe(phone.cookie);
  const copy = await copyOf(browser, laptop.cookie);
  expect((await copy.request.get('/api/inbox')).status()).toBe(200);

  // An event stream on the laptop's session, open across the sign-out (in the copy's page, so it outlives the laptop's).
  const watcher = await copy.newPage();
  await watcher.goto('/api/inbox');
  await watcher.evaluate(() => {
    const seen: Seen = { events: [] };
    (window as unknown as { seen: Seen }).seen = seen;
    const source = new EventSource('/api/events');
    for (const name of ['hello', 'ping', 'signed-out']) source.addEventListener(name, () => seen.events.push(name));
    source.onerror = () => seen.events.push(`error (readyState ${source.readyState})`);
  });
  const seen = () => watcher.evaluate(() => (window as unknown as { seen: Seen }).seen.events);
  await expect.poll(seen, { timeout: 30_000 }).toContain('ping');
  // And the Studio's own inbox page, following its live stream on that session.
  const inbox = await copy.newPage();
  await inbox.goto('/inbox?status=waiting-approval');
  await expect(inbox.getByTestId('inbox')).toHaveAttribute('data-stream', 'live');

  await laptop.page.getByRole('button', { name: 'Sign out' }).click();
  await laptop.page.waitForURL(/\/sign-in/);

  // The stream says so and ends; the browser's reconnect is refused (401), which closes the EventSource for good.
  await expect.poll(seen, { timeout: 30_000 }).toContain('signed-out');
  await expect.poll(seen, { timeout: 30_000 }).toContain('error (readyState 2)');
  // The inbox page was told by its stream and went to sign in, to come back where it was.
  await inbox.waitForURL(/\/sign-in\?next=/, { timeout: 30_000 });
  expect(new URL(inbox.url()).searchParams.get('next')).toBe('/inbox?status=waiting-approval');

  // The same cookie, sent again: the API says 401, a page sends the browser to sign in.
  const refused = await copy.request.get('/api/inbox');
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toEqual({ error: 'Sign in to the Studio first.' });
  expect((await copy.request.get('/api/events')).status()).toBe(401);
  await watcher.goto('/inbox');
  await expect(watcher).toHaveURL(/\/sign-in/);
  await expect(watcher.getByLabel('Password')).toBeVisible();

  // The phone's session is another session: still on.
  expect((await phone.context.request.get('/api/inbox')).status()).toBe(200);
  await phone.page.goto('/inbox');
  await expect(phone.page.getByTestId('signed-in-as')).toContainText(operator.name);

  await Promise.all([copy.close(), laptop.context.close(), phone.context.close()]);
});

test('where crash points are off, the Demo page says so and the server refuses to start a run with one', async ({ browser }) => {
  test.setTimeout(120_000);
  const { context, page } = await signedIn(browser);
  await page.goto('/demo');
  await expect(page.getByTestId('demo-crash-points-off')).toContainText('Crash points are off: GNL_DEMO_CRASH_POINTS=0.');
  // The form offers no choice; a crafted one (the select enabled by hand) is refused by the server.
  const choice = page.getByLabel(/Crash point/);
  await expect(choice).toBeDisabled();
  await choice.evaluate((select) => select.removeAttribute('disabled'));
  await choice.selectOption('after-refund-answered');
  await page.getByRole('button', { name: 'Start a demo run' }).click();
  await expect(page.getByText('Crash points are off: GNL_DEMO_CRASH_POINTS=0. Start the run without one.')).toBeVisible();
  await expect(page).toHaveURL(/\/demo$/);
  await context.close();
});
