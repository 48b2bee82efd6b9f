/**
 * Screenshots of the runs page, a run's page (its waterfall above the timeline), the inbox and the overview,
 * saved with each run's results; docs/images holds copies of them (docs/studio.md).
 */
import { expect, type Page, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

// Two demo runs, a decision and five pages: more than the default 30 s on a loaded machine.
test.describe.configure({ timeout: 120_000 });

/** Render every event for a full-page picture (the timeline skips painting off-screen events). */
async function shoot(page: Page, file: string) {
  await page.addStyleTag({ content: '[data-testid="run-event"] { content-visibility: visible !important; }' });
  await page.screenshot({ path: file, fullPage: true });
}

test('screenshots: runs, a run with its waterfall, the inbox, the overview', async ({ page }, testInfo) => {
  const demo = new DemoPage(page);
  const run = new RunPage(page);
  const done = await demo.start();
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 30_000 });
  const waiting = await demo.start({ prompt: 'Customer c_7 wants a refund of 15 for order o_21' });
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 30_000 });

  const inbox = new InboxPage(page);
  await inbox.goto();
  await inbox.approve(done);
  await expect(inbox.item(waiting, 'approval')).toBeVisible();
  await page.goto(runHref(done));
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 15_000 });
  await shoot(page, testInfo.outputPath('run.png'));
  await page.getByTestId('run-waterfall').screenshot({ path: testInfo.outputPath('waterfall.png') });
  await page.screenshot({ path: testInfo.outputPath('run-top.png') });

  await inbox.goto();
  await shoot(page, testInfo.outputPath('inbox.png'));
  await page.goto('/');
  await shoot(page, testInfo.outputPath('runs.png'));
  await page.goto('/overview');
  await expect(page.getByTestId('overview-status-chart').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await shoot(page, testInfo.outputPath('overview.png'));
  testInfo.annotations.push({ type: 'screenshots', description: testInfo.outputPath() });
});
