/**
 * Server actions are safe against forged requests: with a valid session, a replayed action POST from
 * this origin works, the same POST claiming another origin is refused by Next (its Origin check for
 * server actions), and no run is started by it.
 */
import { expect, test } from '@playwright/test';

test('a server action POST from another origin is refused, even with the session cookie', async ({ page, baseURL }) => {
  let actionId: string | undefined;
  page.on('request', (request) => {
    actionId ??= request.headers()['next-action'];
  });
  await page.goto('/demo');
  await page.getByRole('button', { name: 'Start a demo run' }).click();
  await page.waitForURL(/\/runs\//);
  expect(actionId).toMatch(/^[0-9a-f]{20,}$/);

  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const post = (origin: string, prompt: string) =>
    page.request.post('/demo', {
      headers: { 'Next-Action': actionId as string, Origin: origin, cookie, Accept: 'text/x-component', 'Content-Type': 'text/plain;charset=UTF-8' },
      // The demo form names each start by a request id of its own (a retried request starts no second run).
      data: JSON.stringify([{ prompt, requestId: crypto.randomUUID() }]),
      maxRedirects: 0,
    });
  const forged = await post('http://evil.example', 'Customer c_7 forged request');
  expect(forged.status()).not.toBe(200);
  expect(await forged.text()).not.toContain('"ok":true');
  const same = await post(baseURL as string, 'Customer c_7 same-origin request');
  expect(same.status()).toBe(200);
  expect(await same.text()).toContain('"ok":true');
});
