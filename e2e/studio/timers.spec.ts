/**
 * The run page's attempts and timers: the Studio's demo refunds ask with a deadline (GNL_DEMO_APPROVAL_EXPIRES_MS,
 * an hour, set by playwright.config.ts), so a run waiting for its approval shows that deadline as a timer, read
 * from the run projection; once approved and finished, it has none.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

test('a run waiting for an approval with a deadline shows the timer; approved and completed, it shows none', async ({ page }) => {
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  const schedule = run.summary.getByTestId('run-schedule');
  await expect(schedule).toContainText('Attempts and timers');
  const timer = schedule.getByTestId('run-timer');
  await expect(timer).toHaveCount(1);
  await expect(timer).toHaveAttribute('data-kind', 'approval-deadline');
  await expect(timer).toContainText('The approval of issueRefund expires (treated as rejected)');
  await expect(timer.locator('time')).toHaveAttribute('datetime', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  await expect(schedule.getByTestId('run-attempts')).toHaveCount(0);

  const inbox = new InboxPage(page);
  await inbox.goto();
  await inbox.approve(runId);
  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 30_000 });
  await expect(run.summary.getByTestId('run-schedule')).toHaveCount(0);
});
