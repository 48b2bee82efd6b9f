import { expect, request, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { OPERATORS, SEEDED } from './seed-data';
import { SignInPage } from './studio-pages';

// Signed out: a browser with no session cookie.
test.use({ storageState: { cookies: [], origins: [] } });

test('signed out, every Studio page sends the browser to the sign-in page', async ({ page }) => {
  for (const path of ['/', '/inbox', '/demo', runHref(SEEDED.completed.runId), '/runs/no~20such~20run']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/sign-in(\?next=.*)?$/);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  }
  await expect(page.getByText(SEEDED.completed.runId)).toHaveCount(0);
});

test('signed out, the event streams, the JSON routes and a crafted server-action POST are refused', async ({ baseURL }) => {
  const anonymous = await request.newContext({ baseURL });
  for (const path of [
    '/api/events',
    `/api${runHref(SEEDED.waiting.runId)}/events`,
    '/api/runs',
    `/api${runHref(SEEDED.waiting.runId)}`,
    '/api/inbox',
    '/api/demo/stats',
  ]) {
    const response = await anonymous.get(path, { headers: { accept: 'text/event-stream' }, maxRedirects: 0 });
    expect(response.status(), path).toBe(401);
    expect(response.headers()['content-type'], path).not.toContain('text/event-stream');
  }
  // A POST as a server action would send it (any action id): refused before any action runs.
  const action = await anonymous.post('/inbox', {
    headers: { 'Next-Action': 'f'.repeat(42), 'Content-Type': 'text/plain;charset=UTF-8' },
    data: '[]',
    maxRedirects: 0,
  });
  expect(action.status()).toBe(401);
  // A forged session cookie (wrong signature) is no session.
  const forged = await anonymous.get('/api/events', {
    headers: { cookie: 'gnl_session=eyJ2IjoxLCJzdWIiOiJ4IiwiZXhwIjo5OTk5OTk5OTk5fQ.AAAA' },
    maxRedirects: 0,
  });
  expect(forged.status()).toBe(401);
  // Health is the one route open without a session, and it says up or down and nothing more.
  const health = await anonymous.get('/api/health', { maxRedirects: 0 });
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ status: 'up', journal: 'reachable' });
  await anonymous.dispose();
});

test('a wrong password is refused with a message; the right one leads to the page asked for; signing out ends the session', async ({ page }) => {
  const { alice } = OPERATORS;
  await page.goto('/inbox');
  await expect(page).toHaveURL(/\/sign-in\?next=%2Finbox$/);
  const signIn = new SignInPage(page);
  await signIn.signIn(alice.login, 'not-the-password');
  await expect(signIn.error).toHaveText('Wrong login or password.');
  await signIn.signIn(alice.login, alice.password);
  await expect(page).toHaveURL(/\/inbox$/);
  await expect(page.getByTestId('signed-in-as')).toContainText('Alice Operator');

  const cookie = (await page.context().cookies()).find((c) => c.name === 'gnl_session');
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto('/');
  await expect(page).toHaveURL(/\/sign-in$/);
});
