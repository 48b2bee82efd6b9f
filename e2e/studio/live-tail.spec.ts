/**
 * The live tail: a run page follows its journal over server-sent events without reloading, and a
 * dropped stream resumes after the last event it had (Last-Event-ID), with no gap and no duplicate.
 * Streams in this suite end every 4 s (GNL_STUDIO_STREAM_MAX_MS), so every test crosses reconnects too.
 * A second operator (bob, another browser context) makes the decisions that append events.
 */
import { type Browser, expect, type Page, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { storageStatePath } from './auth-state';
import { DemoPage, InboxPage, RunPage, timelineEvents } from './studio-pages';

async function asBob(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ storageState: storageStatePath('bob') });
  return context.newPage();
}

/** Sets a marker that a reload would wipe. */
async function markPage(page: Page) {
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });
}

async function sameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);
}

/** The timeline holds every event from 1 to the run's last, each once, in order. */
async function expectWholeJournal(page: Page, runId: string) {
  const summary = await page.request.get(`/api${runHref(runId)}`);
  const { lastSeq } = (await summary.json()) as { lastSeq: number };
  await expect(page.getByTestId('run-event')).toHaveCount(lastSeq);
  expect((await timelineEvents(page)).map((e) => e.seq)).toEqual(Array.from({ length: lastSeq }, (_, i) => i + 1));
}

test('a decision made elsewhere appears in an open run page without reloading it', async ({ page, browser }) => {
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('waiting-approval');
  await markPage(page);

  const bob = await asBob(browser);
  const inbox = new InboxPage(bob);
  await inbox.goto();
  await inbox.approve(runId);

  await expect(run.event('tool-approval-response')).toContainText('Approved by bob');
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 15_000 });
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('completed');
  expect(await sameDocument(page)).toBe(true);
  await expectWholeJournal(page, runId);
  await bob.context().close();
});

test('a dropped event stream shows a stale banner, then resumes from the last event: no gap, no duplicate', async ({ page, browser }) => {
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  await markPage(page);
  const before = (await timelineEvents(page)).length;

  // The stream is cut: its next reconnect (streams end every 4 s here) fails until the route is lifted.
  await page.route('**/api/runs/*/events*', (route) => route.abort('connectionreset'));
  await expect(page.getByTestId('stream-stale')).toBeVisible({ timeout: 15_000 });

  // Meanwhile the run moves on: approved elsewhere, executed to the end.
  const bob = await asBob(browser);
  const inbox = new InboxPage(bob);
  await inbox.goto();
  await inbox.approve(runId);
  await expect
    .poll(async () => ((await (await bob.request.get(`/api${runHref(runId)}`)).json()) as { status: string }).status, { timeout: 15_000 })
    .toBe('completed');
  expect((await timelineEvents(page)).length).toBe(before);

  await page.unroute('**/api/runs/*/events*');
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 15_000 });
  await expect(page.getByTestId('stream-stale')).toBeHidden();
  expect(await sameDocument(page)).toBe(true);
  await expectWholeJournal(page, runId);
  await bob.context().close();
});

test('new events below a person who scrolled up are announced; the marker takes them there', async ({ page, browser }) => {
  await page.setViewportSize({ width: 1280, height: 600 });
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await expect(page.getByTestId('timeline-end')).not.toBeInViewport();

  const bob = await asBob(browser);
  const inbox = new InboxPage(bob);
  await inbox.goto();
  await inbox.approve(runId);

  const marker = page.getByTestId('new-events-marker');
  await expect(marker).toBeVisible({ timeout: 15_000 });
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 15_000 });
  await expect(marker).toHaveText(/↓ \d+ new events?/);
  const firstNew = (await timelineEvents(page)).find((e) => e.type === 'tool-approval-response');
  await marker.click();
  await expect(marker).toBeHidden();
  await expect(page.locator(`#seq-${firstNew?.seq}`)).toBeInViewport();
  await bob.context().close();
});
