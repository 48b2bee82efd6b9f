/**
 * People and API tokens in the Studio (/people): an admin makes an API token (shown once), a service uses
 * it on the HTTP API, the admin revokes it and the next call is refused; an admin changes a role with a
 * reason; a viewer sees the page read-only and signs themselves out everywhere. Runs in the `bulk`
 * phase, after every spec that signs in as vera.
 */
import { expect, test } from '@playwright/test';
import { OPERATORS } from './seed-data';
import { SignInPage } from './studio-pages';

test('an admin makes an API token, a service calls the API with it, the admin revokes it: the next call is refused', async ({ page, baseURL }) => {
  await page.goto('/people');
  await new SignInPage(page).signIn(OPERATORS.alice.login, OPERATORS.alice.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(OPERATORS.alice.name);
  await expect(page.getByTestId('my-role')).toHaveText('admin');
  await expect(page.locator('[data-testid="person"][data-login="bob"]').locator('[data-slot="role"]')).toHaveText('approver');
  await expect(page.locator('[data-testid="person"][data-login="vera"]').locator('[data-slot="role"]')).toHaveText('viewer');

  const name = `e2e-svc-${Date.now().toString(36)}`;
  await page.getByTestId('token-name').fill(name);
  await page.getByTestId('token-scope-start').check();
  await page.getByTestId('token-submit').click();
  const token = (await page.getByTestId('token-value').textContent()) ?? '';
  expect(token).toMatch(/^gnl_[A-Za-z0-9_-]{43}$/);
  const row = page.locator(`[data-testid="token"][data-name="${name}"]`);
  await expect(row).toContainText('read, start');
  await expect(row.locator('[data-slot="state"]')).toHaveText('active');

  const inbox = () => fetch(`${baseURL}/api/v1/inbox`, { headers: { Authorization: `Bearer ${token}` } });
  const ok = await inbox();
  expect(ok.status).toBe(200);
  expect(Array.isArray(((await ok.json()) as { items: unknown[] }).items)).toBe(true);
  // The Studio's cookie opens nothing on the API; the token opens nothing of the Studio's own routes.
  expect((await page.request.get('/api/v1/inbox')).status()).toBe(401);
  expect((await fetch(`${baseURL}/api/runs`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);

  await row.getByTestId('token-revoke').click();
  await row.getByTestId('token-revoke-reason').fill('rotated after the e2e');
  await row.getByTestId('token-revoke-submit').click();
  await expect(row.locator('[data-slot="state"]')).toContainText('revoked by alice');
  const refused = await inbox();
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { detail: string }).detail).toContain('was revoked by alice');
});

test('an admin changes a role with a reason; a viewer sees the page read-only and signs themselves out everywhere', async ({ page, browser }) => {
  await page.goto('/people');
  await new SignInPage(page).signIn(OPERATORS.alice.login, OPERATORS.alice.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(OPERATORS.alice.name);
  const vera = page.locator('[data-testid="person"][data-login="vera"]');
  await vera.getByTestId('role-select').selectOption('approver');
  await vera.getByTestId('role-submit').click();
  await expect(vera.getByTestId('action-invalid')).toContainText('Say why');
  await vera.getByTestId('role-reason').fill('covering the on-call week');
  await vera.getByTestId('role-submit').click();
  await expect(vera.locator('[data-slot="role"]')).toHaveText('approver');
  await vera.getByTestId('role-select').selectOption('viewer');
  await vera.getByTestId('role-reason').fill('the week is over');
  await vera.getByTestId('role-submit').click();
  await expect(vera.locator('[data-slot="role"]')).toHaveText('viewer');

  const viewer = await (await browser.newContext()).newPage();
  await viewer.goto('/people');
  await new SignInPage(viewer).signIn(OPERATORS.vera.login, OPERATORS.vera.password);
  await expect(viewer.getByTestId('my-role')).toHaveText('viewer');
  await expect(viewer.getByTestId('role-select')).toHaveCount(0);
  await expect(viewer.getByTestId('token-create')).toHaveCount(0);
  await viewer.locator('[data-testid="person"][data-login="vera"]').getByTestId('sign-out-everywhere').click();
  await expect(viewer).toHaveURL(/\/sign-in/);
  await viewer.goto('/people');
  await expect(viewer).toHaveURL(/\/sign-in/);
});
