/**
 * Four eyes on a refund (issue 30: approval rules): the run's starter may not approve its refund, and
 * proposes another amount instead; a second person sees the proposal beside the model's arguments and
 * approves it as changed; the outside service's own records show that one refund, of the new amount.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { demoServiceUrl, storageStatePath } from './auth-state';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

test('four eyes: the starter is refused and proposes another amount; another approver approves it as changed; one refund of that amount', async ({
  page,
  browser,
}) => {
  // Two people, two inboxes, a resume: more than the project's default on a loaded machine.
  test.setTimeout(120_000);
  const runId = await new DemoPage(page).start({ prompt: 'Customer c_42 wants a refund of 120 for order o_18', fourEyes: true });
  const run = new RunPage(page);
  await expect(run.event('run-start')).toContainText('support-four-eyes');
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  // No webhook is set on this Studio: the outbox's untried row is no "pending, 0 attempts" notification (issue 32).
  await page.reload();
  await expect(run.event('run-suspend')).toHaveCount(1);
  await expect(page.locator('[data-slot="run-notifications"]')).toHaveCount(0);
  // The system prompt is folded to its first line (issue 32): the rest opens on a click.
  const system = page.locator('[data-slot="run-system"]');
  await expect(system).toContainText('System prompt');
  await expect(system).toContainText('You are a customer support agent');
  await expect(system.getByText('Open one support ticket for the request', { exact: false })).toBeHidden();

  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(runId, 'approval');
  await expect(item.locator('[data-slot="approval-rule"]')).toContainText('four eyes: not by who started the run, nor by who changed its arguments');
  await inbox.approve(runId);
  await expect(item.getByTestId('action-forbidden')).toContainText('alice started this run');

  await inbox.goto();
  await item.getByRole('button', { name: 'Propose other arguments…' }).click();
  const form = item.locator('[data-slot="edit-arguments"]');
  await expect(form.getByLabel('amount', { exact: true })).toHaveValue('120');
  await form.getByLabel('amount', { exact: true }).fill('60');
  await form.getByLabel(/Why the change\?/).fill('half: one item arrived');
  await form.getByRole('button', { name: 'Propose these arguments' }).click();
  await expect(inbox.recentDecisions).toContainText(`You proposed changed arguments for issueRefund of ${runId}`);

  const bob = await (await browser.newContext({ storageState: storageStatePath('bob') })).newPage();
  const bobInbox = new InboxPage(bob);
  await bobInbox.goto();
  const bobItem = bobInbox.item(runId, 'approval');
  const proposal = bobItem.locator('[data-slot="approval-proposal"]');
  await expect(proposal).toContainText('Arguments changed by alice');
  await expect(proposal.locator('[data-slot="inbox-proposed-arguments"]')).toContainText('60');
  await expect(bobItem.locator('[data-slot="inbox-arguments"]')).toContainText('120');
  await bobItem.getByRole('button', { name: 'Approve' }).click();
  await expect(bobItem).toContainText('with the arguments as alice changed them');
  await bobItem.getByRole('button', { name: 'Confirm approval' }).click();
  await expect(bobInbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);

  await bob.goto(runHref(runId));
  const bobRun = new RunPage(bob);
  await expect(bobRun.event('run-complete')).toContainText('Refunded 60 EUR for order o_18', { timeout: 30_000 });
  await expect(bobRun.event('tool-approval-response')).toContainText('alice changed them, bob approved them');
  const start = bob.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: 'issueRefund started' });
  const key = (await start.locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
  // The outside service's own records judge it (by the call's key: other tests refund beside this one).
  const byKey = (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as { refunds: { byKey: Record<string, unknown> } };
  expect(byKey.refunds.byKey[key]).toEqual({ requests: 1, performed: 1 });
  expect(await (await fetch(`${demoServiceUrl()}/refunds/by-key/${key}`)).json()).toMatchObject({ orderId: 'o_18', amount: 60 });
  await bob.context().close();
});
