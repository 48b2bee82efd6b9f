/** Screenshots of the runs page, a run's timeline and the inbox, saved with each run's results (not committed). */
import { expect, type Page, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

/** Render every event for a full-page picture (the timeline skips painting off-screen events). */
async function shoot(page: Page, file: string) {
  await page.addStyleTag({ content: '[data-testid="run-event"] { content-visibility: visible !important; }' });
  await page.screenshot({ path: file, fullPage: true });
}

test('screenshots: runs, a run timeline, the inbox', async ({ page }, testInfo) => {
  const demo = new DemoPage(page);
  const run = new RunPage(page);
  const done = await demo.start();
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  const waiting = await demo.start({ prompt: 'Customer c_7 wants a refund of 15 for order o_21' });
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });

  const inbox = new InboxPage(page);
  await inbox.goto();
  await inbox.approve(done);
  await expect(inbox.item(waiting, 'approval')).toBeVisible();
  await page.goto(runHref(done));
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 15_000 });
  await shoot(page, testInfo.outputPath('run.png'));

  await inbox.goto();
  await shoot(page, testInfo.outputPath('inbox.png'));
  await page.goto('/');
  await shoot(page, testInfo.outputPath('runs.png'));
  testInfo.annotations.push({ type: 'screenshots', description: testInfo.outputPath() });
});
