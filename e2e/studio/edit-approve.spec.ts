/**
 * Deciding well (issue 16): an approver changes a call's arguments in a form made from the tool's input
 * schema, prefilled with the model's arguments, every problem named at once; approved, the run executes
 * exactly the approved arguments, and the outside service's own records say so (its stats by the run's
 * idempotency key, its list of refunds).
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { demoServiceUrl } from './auth-state';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

test('edit, then approve: the refund the outside service performs is the edited one, once', async ({ page }) => {
  // A run, the inbox, two refused submissions and an approval that resumes the run: more than the default on a loaded machine.
  test.setTimeout(120_000);
  const runId = await new DemoPage(page).start({ prompt: 'Customer c_42 wants a refund of 120 for order o_18' });
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });

  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(runId, 'approval');
  await item.getByRole('button', { name: 'Change arguments…' }).click();
  const form = item.locator('[data-slot="edit-arguments"]');
  // Prefilled with what the model asked.
  await expect(form.getByLabel('amount', { exact: true })).toHaveValue('120');
  await expect(form.getByLabel('orderId', { exact: true })).toHaveValue('o_18');

  // What the form can read itself it names beside the field, and sends nothing.
  await form.getByLabel('amount', { exact: true }).fill('a lot');
  await form.getByRole('button', { name: 'Approve with these arguments' }).click();
  await expect(form.locator('[data-slot="field-problems"]')).toContainText('"a lot" is not a number');
  // The tool's own input schema judges the rest on the server, and its problems land beside their fields too.
  await form.getByLabel('amount', { exact: true }).fill('-5');
  await form.getByRole('button', { name: 'Approve with these arguments' }).click();
  await expect(form.locator('[data-slot="field-problems"]')).toContainText(/Too small|positive|>0|greater/i);

  await form.getByLabel('amount', { exact: true }).fill('70');
  await form.getByLabel(/Why the change\?/).fill('Partial refund agreed by phone');
  await form.getByRole('button', { name: 'Approve with these arguments' }).click();
  await expect(inbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);

  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toContainText('Refunded 70 EUR for order o_18', { timeout: 15_000 });
  const start = page.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: 'issueRefund started' });
  const key = (await start.locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
  const stats = (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as { refunds: { byKey: Record<string, unknown> } };
  expect(stats.refunds.byKey[key]).toEqual({ requests: 1, performed: 1 });
  const refund = await (await fetch(`${demoServiceUrl()}/refunds/by-key/${key}`)).json();
  expect(refund).toMatchObject({ orderId: 'o_18', amount: 70 });
});
