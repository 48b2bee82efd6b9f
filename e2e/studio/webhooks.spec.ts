/**
 * The Webhooks screen (issue 32), in Chromium: an admin adds a webhook pointing at a real receiver this
 * test runs (its address holds a token: never shown), copies the key shown once, sends a test the
 * receiver verifies with that key, rotates the key (a test then carries both signatures, each verifying
 * with its key), pauses it with a reason, and removes it; the audit lists each step. An approver (not an
 * admin) sees the screen without its buttons. Runs in the `bulk` phase on the default Studio (people.spec.ts's neighbour).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { verifyGnlSignature } from '@/docs/examples/notify-receiver';
import { OPERATORS } from './seed-data';
import { SignInPage } from './studio-pages';

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
}

async function receiver() {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, raw: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks/gnl?token=e2e-not-shown`, received, close: () => new Promise((r) => server.close(r)) };
}

test('an admin adds a webhook, its key shown once; a test verifies with it; a rotation signs with both keys; pause and remove are audited with their reasons', async ({
  page,
  browser,
}) => {
  const hook = await receiver();
  try {
    await page.goto('/webhooks');
    await new SignInPage(page).signIn(OPERATORS.alice.login, OPERATORS.alice.password);
    await expect(page.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
    await expect(page.getByTestId('webhook-verify')).toContainText("createHmac('sha256', key)");

    const label = `e2e on-call ${Date.now().toString(36)}`;
    await page.getByTestId('webhook-submit').click();
    await expect(page.getByTestId('action-invalid')).toContainText('label');
    await page.getByTestId('webhook-label').fill(label);
    await page.getByTestId('webhook-url').fill('ftp://not-a-webhook');
    await page.getByTestId('webhook-submit').click();
    await expect(page.getByTestId('action-invalid')).toContainText('http or https address');
    await page.getByTestId('webhook-url').fill(hook.url);
    await page.getByTestId('webhook-submit').click();
    const key = (await page.getByTestId('webhook-key-value').textContent()) ?? '';
    expect(key).toMatch(/^whsec_[0-9a-f]{64}$/);
    const row = page.locator('[data-testid="webhook"]').filter({ hasText: label });
    await expect(row).toContainText(new URL(hook.url).origin);
    await expect(page.locator('body')).not.toContainText('e2e-not-shown');
    await expect(row.locator('[data-slot="state"]')).toContainText('sending');

    // A test, verified by the receiver with the key the page showed.
    const before = hook.received.length;
    await row.getByTestId('webhook-test').click();
    await expect(row.getByTestId('webhook-test-result')).toContainText('Delivered: HTTP 200');
    const tests = hook.received.slice(before).filter((r) => r.raw.includes('"type":"test"'));
    expect(tests).toHaveLength(1);
    const first = tests[0] as Received;
    expect(verifyGnlSignature(key, first.headers['gnl-signature'] as string, first.raw)).toBe(true);
    expect(first.headers['gnl-event-id']).toMatch(/^gnl_test_/);

    // A rotation: the new key is shown once; a test carries both signatures, each verifying with its own key.
    await row.getByTestId('webhook-rotate').click();
    await row.getByTestId('webhook-rotate-confirm').click();
    await expect(row.getByTestId('webhook-key')).toContainText('the old one signs too until');
    const next = (await row.getByTestId('webhook-key-value').textContent()) ?? '';
    expect(next).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(next).not.toBe(key);
    await expect(row.locator('[data-slot="state"]')).toContainText('old key signs too until');
    const mark = hook.received.length;
    await row.getByTestId('webhook-test').click();
    // The first test's result stays on the row until this one's answer replaces it: wait for the receiver, then for
    // the row to name this delivery (CI once read the first result and found nothing received yet).
    const testsSince = () => hook.received.slice(mark).filter((r) => r.raw.includes('"type":"test"'));
    await expect.poll(() => testsSince().length).toBe(1);
    const rotated = testsSince()[0] as Received;
    await expect(row.getByTestId('webhook-test-result')).toContainText(String(rotated.headers['gnl-event-id']));
    const header = rotated.headers['gnl-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifyGnlSignature(next, header, rotated.raw)).toBe(true);
    expect(verifyGnlSignature(key, header, rotated.raw)).toBe(true);

    // An approver (not an admin) sees it, without a button that changes it.
    const viewer = await browser.newPage();
    await viewer.goto('/webhooks');
    await new SignInPage(viewer).signIn(OPERATORS.bob.login, OPERATORS.bob.password);
    await expect(viewer.locator('[data-testid="webhook"]').filter({ hasText: label })).toBeVisible();
    await expect(viewer.getByTestId('webhook-actions')).toHaveCount(0);
    await expect(viewer.getByTestId('webhook-add')).toHaveCount(0);
    await viewer.close();

    // Pause (a reason is required), then remove.
    await row.getByTestId('webhook-toggle').click();
    await row.getByTestId('webhook-confirm').click();
    await expect(row.getByTestId('action-invalid')).toContainText('Say why');
    await row.getByTestId('webhook-reason').fill('receiver in maintenance');
    await row.getByTestId('webhook-confirm').click();
    await expect(row.locator('[data-slot="state"]')).toContainText('paused');
    await row.getByTestId('webhook-remove').click();
    await row.getByTestId('webhook-reason').fill('the e2e is done');
    await row.getByTestId('webhook-confirm').click();
    await expect(page.locator('[data-testid="webhook"]').filter({ hasText: label })).toHaveCount(0);

    const audit = page.getByTestId('webhook-audit-entry').filter({ hasText: label });
    await expect(audit.filter({ hasText: 'removed' })).toContainText('the e2e is done');
    await expect(audit.filter({ hasText: 'paused' })).toContainText('receiver in maintenance');
    await expect(audit.filter({ hasText: 'rotated the key of' })).toHaveCount(1);
    await expect(audit.filter({ hasText: 'sent a test to' })).toHaveCount(2);
    await expect(audit.filter({ hasText: 'added' })).toHaveCount(1);
  } finally {
    await hook.close();
  }
});
