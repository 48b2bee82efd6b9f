/**
 * The demo through a real crash: the Studio's server SIGKILLs itself right after the outside service
 * issued the refund and before the journal recorded it (a crash point). The supervisor (npm run studio)
 * starts it again, its executor takes the run up, and since the run was started without check (the Demo
 * page's choice: the support agent without one) the refund's outcome is unknown: the run is blocked. An operator marks it done with the refund's output; the run completes.
 * The open run page follows all of it without a reload, across the server restart. The approval's own
 * answer never reaches the inbox (the server died under it): once the Studio is back, the card says the
 * journal recorded it, by whom and when, and offers no second click.
 */
import { expect, type Page, test } from '@playwright/test';
import { demoServiceUrl } from './auth-state';
import { dropNextDecisionAnswer } from './decision-answers';
import { InboxPage, RunPage, timelineEvents } from './studio-pages';

/** The server restarts under the test: navigations may meet a closed port for a moment. */
async function gotoWhenUp(page: Page, path: string) {
  await expect(async () => {
    await page.goto(path);
  }).toPass({ timeout: 30_000 });
}

test('the guided crash: crash after the refund, blocked, marked done, resumed: completes with one refund, its checklist following', async ({
  page,
  context,
}) => {
  // A server killed and started again, two pages, a refused and an accepted decision: more than the default on a loaded machine.
  test.setTimeout(120_000);
  await page.goto('/demo');
  await expect(page.getByTestId('demo-check')).toContainText('without it the run is blocked until a person says whether it happened');
  await expect(page.getByTestId('demo-check').getByRole('checkbox')).toBeChecked();
  // One button instead of the form's settings (issue 32): the crash point after the refund, no check.
  await page.getByTestId('guided-crash').getByRole('button', { name: 'Try a crash inside a refund' }).click();
  await page.waitForURL(/\/runs\/[^?]+\?guide=crash$/);
  const runId = (await page.getByTestId('run-id').textContent()) ?? '';
  const guide = page.getByTestId('crash-guide');
  await expect(guide).toHaveAttribute('data-now', 'approve', { timeout: 15_000 });
  const run = new RunPage(page);
  await expect(run.event('run-start')).toContainText('agent support-unchecked');
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });

  const operator = await context.newPage();
  const inbox = new InboxPage(operator);
  await inbox.goto();
  // The approval's answer is lost: the server dies under the request (or, if it answered first, the
  // answer is dropped on its way back: the browser sees no answer either way).
  await dropNextDecisionAnswer(operator, 'after');
  await inbox.approve(runId);

  // The server died and came back; the run page reconnects and shows the run blocked.
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('blocked', { timeout: 60_000 });
  await expect(guide).toHaveAttribute('data-now', 'decide');
  await expect(guide.locator('[data-step="crash"]')).toHaveAttribute('data-state', 'done');
  // The inbox asked the journal once the Studio answered again: recorded, by alice; no second click.
  const recorded = operator.locator(`[data-testid="decision-recorded"][data-run-id="${runId}"]`);
  await expect(recorded).toContainText(`Recorded: issueRefund of ${runId} approved by alice at`, { timeout: 30_000 });
  await expect(recorded.getByRole('button')).toHaveCount(0);
  await expect(inbox.item(runId, 'approval')).toHaveCount(0);
  await expect(operator.getByTestId('action-error')).toHaveCount(0);
  await expect(run.event('run-suspend').last()).toContainText('Blocked');
  const refundStart = page.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: 'issueRefund started' });
  await expect(refundStart).toContainText('no outcome recorded after this start');
  const refundKey = (await refundStart.locator('[data-slot="idempotency-key"] code').textContent()) ?? '';

  await gotoWhenUp(operator, '/inbox');
  const item = inbox.item(runId, 'side-effect');
  await expect(item).toContainText('issueRefund may or may not have happened');
  await expect(item.locator('[data-slot="side-effect-evidence"]')).toContainText(refundKey);
  // Which executor held the run when it blocked: the run queue keeps the last lease owner.
  await expect(item.locator('[data-slot="side-effect-evidence"]')).toContainText(/last held by \S+:\d+:/);
  const refund = await (await fetch(`${demoServiceUrl()}/refunds/by-key/${refundKey}`)).json();
  // The tool's lookup asked the service by key: its record is on the card, as text, and fills the form.
  await expect(item.locator('[data-slot="outside-record"]')).toContainText(refund.refundId);
  await item.getByRole('button', { name: 'Mark done…' }).click();
  const amount = item.getByLabel('amount', { exact: true });
  await expect(amount).toHaveValue('40');
  await expect(item.getByLabel('refundId', { exact: true })).toHaveValue(refund.refundId);
  // A field that is not what issueRefund returns is named beside it; nothing is sent.
  await amount.fill('40 EUR');
  await item.getByLabel(/Why\? \(required/).fill('The service issued it: see GET /refunds/by-key');
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(item.locator('[data-slot="field-problems"]')).toContainText('"40 EUR" is not a number');
  await amount.fill('40');
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(inbox.recentDecisions).toContainText('Resuming');

  await expect(run.event('run-complete')).toContainText(`Refunded 40 EUR for order o_17 (refund ${refund.refundId})`, { timeout: 30_000 });
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  const seqs = (await timelineEvents(page)).map((e) => e.seq);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));

  const stats = (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as { refunds: { byKey: Record<string, unknown> } };
  expect(stats.refunds.byKey[refundKey]).toEqual({ requests: 1, performed: 1 });
  await expect(page.getByTestId('run-demo-counters').locator('[data-kind="refunds"] [data-slot="performed"]')).toHaveText('1');
  await expect(guide).toHaveAttribute('data-now', 'done');
});
