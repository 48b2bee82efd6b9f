/**
 * The main flow on Postgres (project `postgres`, only when DATABASE_URL is set): the built Studio on the
 * Postgres server DATABASE_URL names, in a database kept between runs (playwright.config.ts), so every
 * run id and login is new and nothing assumes an empty journal.
 * Sign in; start a demo run with a crash right after the outside service issued the refund; the
 * supervisor restarts the killed server and, once the dead process's lease has lapsed, its executor takes
 * the run up and finds the refund's outcome unknown: blocked. The inbox shows the evidence (key, the
 * executor that held the run); a wrong output is refused; mark done; the run completes live with one
 * refund by the service's own counter. The runs page finds the run by its refund's idempotency key.
 */
import { expect, type Page, test } from '@playwright/test';
import { postgresOperator } from './seed-data';
import { DemoPage, InboxPage, RunPage, RunsPage, SignInPage } from './studio-pages';

const demoService = () => `http://127.0.0.1:${process.env.GNL_E2E_PG_DEMO_PORT}`;

/** The server restarts under the test: navigations may meet a closed port for a moment. */
async function gotoWhenUp(page: Page, path: string) {
  await expect(async () => {
    await page.goto(path);
  }).toPass({ timeout: 30_000 });
}

test('Postgres: crash after the refund, blocked with evidence, marked done, completes with one refund', async ({ page, context }) => {
  // On Postgres the restarted server waits for the killed process's lease to lapse before it claims the run
  // (10 s here: GNL_STUDIO_LEASE_MS in playwright.config.ts; 30 s by default).
  test.setTimeout(180_000);
  const operator = postgresOperator();
  await page.goto('/');
  await expect(page).toHaveURL(/\/sign-in$/);
  await new SignInPage(page).signIn(operator.login, operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(operator.name);

  const runId = await new DemoPage(page).start({ crashAt: 'after-refund-answered' });
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 30_000 });

  const operatorPage = await context.newPage();
  const inbox = new InboxPage(operatorPage);
  await inbox.goto();
  await inbox.approve(runId);

  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('blocked', { timeout: 120_000 });
  const refundStart = page.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: 'issueRefund started' });
  await expect(refundStart).toContainText('no outcome recorded after this start');
  const refundKey = (await refundStart.locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
  expect(refundKey).toMatch(/^gnl3[ac]_/);

  await gotoWhenUp(operatorPage, '/inbox');
  const item = inbox.item(runId, 'side-effect');
  const evidence = item.locator('[data-slot="side-effect-evidence"]');
  await expect(evidence).toContainText(refundKey);
  await expect(evidence).toContainText(/last held by \S+:\d+:/);

  const refund = await (await fetch(`${demoService()}/refunds/by-key/${refundKey}`)).json();
  // The tool's lookup asked the service by key: its record is on the card, as text, and fills the form.
  await expect(item.locator('[data-slot="outside-record"]')).toContainText(refund.refundId);
  await item.getByRole('button', { name: 'Mark done…' }).click();
  await expect(item.getByLabel('refundId', { exact: true })).toHaveValue(refund.refundId);
  const amount = item.getByLabel('amount', { exact: true });
  const reported = await amount.inputValue();
  // A field that is not what issueRefund returns is named beside it; nothing is sent.
  await amount.fill('40 EUR');
  await item.getByLabel(/Why\? \(required/).fill('The service shows the refund under this key');
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(item.locator('[data-slot="field-problems"]')).toContainText('"40 EUR" is not a number');
  await amount.fill(reported);
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(inbox.recentDecisions).toContainText('Resuming');

  await expect(run.event('run-complete')).toContainText(`refund ${refund.refundId}`, { timeout: 60_000 });
  const stats = (await (await fetch(`${demoService()}/stats`)).json()) as { refunds: { byKey: Record<string, unknown> } };
  expect(stats.refunds.byKey[refundKey]).toEqual({ requests: 1, performed: 1 });

  // "Did we refund this?": the key finds the run among everything the shared database holds.
  const runs = new RunsPage(operatorPage);
  await runs.goto();
  await runs.search(refundKey);
  await expect.poll(() => runs.runIds()).toEqual([runId]);
  await expect(runs.row(runId).locator('[data-slot="run-status-badge"]')).toHaveText('completed');
});
