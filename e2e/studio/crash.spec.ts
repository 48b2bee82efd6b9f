/**
 * The demo through a real crash: the Studio's server SIGKILLs itself right after the outside service
 * issued the refund and before the journal recorded it (a crash point). The supervisor (npm run studio)
 * starts it again, its executor takes the run up, and with no check configured the refund's outcome is
 * unknown: the run is blocked. An operator marks it done with the refund's output; the run completes.
 * The open run page follows all of it without a reload, across the server restart.
 */
import { expect, type Page, test } from '@playwright/test';
import { demoServiceUrl } from './auth-state';
import { DemoPage, InboxPage, RunPage, timelineEvents } from './studio-pages';

/** The server restarts under the test: navigations may meet a closed port for a moment. */
async function gotoWhenUp(page: Page, path: string) {
  await expect(async () => {
    await page.goto(path);
  }).toPass({ timeout: 30_000 });
}

test('crash after the refund, blocked, marked done, resumed: completes with one refund', async ({ page, context }) => {
  // A server killed and started again, two pages, a refused and an accepted decision: more than the default on a loaded machine.
  test.setTimeout(120_000);
  const runId = await new DemoPage(page).start({ crashAt: 'after-refund-answered' });
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });

  const operator = await context.newPage();
  const inbox = new InboxPage(operator);
  await inbox.goto();
  await inbox.approve(runId);

  // The server died and came back; the run page reconnects and shows the run blocked.
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('blocked', { timeout: 60_000 });
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
  await inbox.markDone(runId, 'not json', 'The service issued it: see GET /refunds/by-key');
  await expect(item.getByTestId('action-invalid')).toContainText('not valid JSON');
  const refund = await (await fetch(`${demoServiceUrl()}/refunds/by-key/${refundKey}`)).json();
  // An output that is JSON but not what issueRefund returns is refused with the reason (its output schema, via the agent registry).
  await item.getByLabel(/What did .* return\?/).fill(JSON.stringify({ ok: true, refund: { ...refund, amount: '40 EUR' } }));
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(item.getByTestId('action-invalid')).toContainText("does not match issueRefund's output schema: refund.amount");
  await item.getByLabel(/What did .* return\?/).fill(JSON.stringify({ ok: true, refund }));
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(inbox.recentDecisions).toContainText('Resuming');

  await expect(run.event('run-complete')).toContainText(`Refunded 40 EUR for order o_17 (refund ${refund.refundId})`, { timeout: 30_000 });
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
  const seqs = (await timelineEvents(page)).map((e) => e.seq);
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));

  const stats = (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as { refunds: { byKey: Record<string, unknown> } };
  expect(stats.refunds.byKey[refundKey]).toEqual({ requests: 1, performed: 1 });
  await expect(page.getByTestId('run-demo-counters').locator('[data-kind="refunds"] [data-slot="performed"]')).toHaveText('1');
});
