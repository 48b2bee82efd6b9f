/**
 * The nav's inbox count follows the runs live: a page that stays open (never reloaded) shows the count
 * the server has once a run started in another tab waits for approval, and again once it is approved.
 * Other specs change the count in parallel, so each check waits for the nav to agree with the server.
 */
import { expect, type Page, test } from '@playwright/test';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

async function serverCount(page: Page): Promise<number> {
  const res = await page.request.get('/api/inbox/count');
  return ((await res.json()) as { items: number }).items;
}

test('the inbox count in the nav is live: up when a run waits, down when it is decided, without a reload', async ({ page, context }) => {
  const inbox = new InboxPage(page);
  await inbox.goto();
  const count = page.getByTestId('nav-inbox-count');
  await expect(count).toBeVisible();

  const other = await context.newPage();
  const runId = await new DemoPage(other).start();
  await expect(new RunPage(other).event('run-suspend')).toHaveCount(1, { timeout: 15_000 });

  await expect(inbox.item(runId, 'approval')).toHaveCount(1); // arrived live on the open page
  await expect(async () => expect(Number(await count.getAttribute('data-count'))).toBe(await serverCount(page))).toPass({ timeout: 15_000 });

  await inbox.approve(runId);
  await expect(inbox.item(runId, 'approval')).toHaveCount(0);
  await expect(async () => expect(Number(await count.getAttribute('data-count'))).toBe(await serverCount(page))).toPass({ timeout: 15_000 });
});
