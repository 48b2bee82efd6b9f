/**
 * A new user's first minutes, README only, in Chromium, against a fresh clone's production build
 * (scripts/fresh-clone-walk.mjs started it with `npm run studio`): the one-time setup link, the Demo
 * page's one button ("Try a crash inside a refund"), approve, the server killed right after the refund
 * went out and started again by the supervisor, the run blocked, "Mark done" with what the demo service
 * recorded, the run completed, and the service's own counter at one refund. Each step's time since the
 * clone began goes to stdout, for the driver's summary.
 */
import { expect, test } from '@playwright/test';

const cloneStartedAt = Number(process.env.GNL_WALK_CLONE_STARTED_AT);
const mark = (step: string) => console.log(`[walk] ${step} at ${Math.round((Date.now() - cloneStartedAt) / 1000)} s since the clone began`);

test('fresh clone: set up, one button, approve, crash, blocked, mark done, completed, one refund', async ({ page, context }) => {
  test.setTimeout(180_000);
  const setupUrl = process.env.GNL_WALK_SETUP_URL as string;
  const demoServiceUrl = process.env.GNL_WALK_DEMO_URL as string;
  await page.goto(setupUrl);
  await page.getByLabel(/^Login/).fill('newcomer');
  await page.getByLabel(/^Your name/).fill('New Comer');
  await page.getByLabel(/^Password/).fill('a-fresh-clone-password');
  await page.getByRole('button', { name: 'Create the account and sign in' }).click();
  await expect(page.getByTestId('signed-in-as')).toContainText('New Comer');
  mark('signed in');

  await page.goto('/demo');
  await page.getByTestId('guided-crash').getByRole('button', { name: 'Try a crash inside a refund' }).click();
  await page.waitForURL(/\/runs\/[^?]+\?guide=crash$/);
  const runId = (await page.getByTestId('run-id').textContent()) ?? '';
  const guide = page.getByTestId('crash-guide');
  await expect(guide).toHaveAttribute('data-now', 'approve', { timeout: 30_000 });
  mark('the refund waits for approval');

  const inbox = await context.newPage();
  await inbox.goto('/inbox');
  const approval = inbox.locator(`[data-testid="inbox-item"][data-run-id="${runId}"][data-kind="approval"]`);
  await approval.getByRole('button', { name: 'Approve' }).click();
  await approval.getByRole('button', { name: 'Confirm approval' }).click();
  mark('approved');

  await expect(page.locator('[data-slot="run-status-badge"]')).toHaveText('blocked', { timeout: 90_000 });
  await expect(guide).toHaveAttribute('data-now', 'decide');
  mark('crashed and blocked');

  await expect(async () => {
    await inbox.goto('/inbox');
  }).toPass({ timeout: 30_000 });
  const item = inbox.locator(`[data-testid="inbox-item"][data-run-id="${runId}"][data-kind="side-effect"]`);
  await item.getByRole('button', { name: 'Mark done…' }).click();
  await expect(item.getByLabel('refundId', { exact: true })).not.toHaveValue('');
  await item.getByLabel(/Why\? \(required/).fill('The demo service shows the refund: it happened.');
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  mark('marked done');

  await expect(guide).toHaveAttribute('data-now', 'done', { timeout: 60_000 });
  await expect(page.getByTestId('run-demo-counters').locator('[data-kind="refunds"] [data-slot="performed"]')).toHaveText('1');
  const stats = (await (await fetch(`${demoServiceUrl}/stats`)).json()) as { refunds: { performed: number } };
  expect(stats.refunds.performed).toBe(1);
  mark('completed, one refund by the service’s own counter');
});
