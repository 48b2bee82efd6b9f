/**
 * A run of thousands of events (the second Studio, project `long`): the page opens at the tail, reads
 * earlier chunks only as they scroll near, and a #seq link deep into the journal loads just that part.
 * Its operator account was created by the Studio's first start from GNL_STUDIO_OPERATOR_*.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { LONG } from './seed-data';
import { SignInPage, timelineEvents } from './studio-pages';

test.beforeEach(async ({ page }) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(LONG.operator.login, LONG.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name);
});

test('opens at the tail, totals count the whole run, and earlier chunks load as they scroll near', async ({ page }) => {
  await page.goto(runHref(LONG.runId));
  await expect(page.getByRole('heading', { name: `Journal (${LONG.lastSeq} events)` })).toBeVisible();
  const shown = await timelineEvents(page);
  // The tail starts on a chunk boundary with at least 100 events: #2401–#2501.
  expect(shown[0]?.seq).toBe(2_401);
  expect(shown.at(-1)?.seq).toBe(LONG.lastSeq);
  expect(shown.map((e) => e.seq)).toEqual(Array.from({ length: shown.length }, (_, i) => 2_401 + i));
  await expect(page.getByTestId('run-totals').locator('[data-total="Model steps"] dd')).toHaveText('1,250');

  const placeholders = page.getByTestId('timeline-chunk-placeholder');
  await expect(placeholders).toHaveCount(0);
  await page.getByTestId('load-earlier').click();
  await expect(page.locator('#seq-2201')).toBeAttached();
  await expect(page.locator('#seq-2200')).toHaveCount(0);
  const seqs = (await timelineEvents(page)).map((e) => e.seq);
  expect(seqs).toEqual(Array.from({ length: LONG.lastSeq - 2_200 }, (_, i) => 2_201 + i));
});

test('a #seq link deep into the journal loads that chunk and scrolls to it, leaving the rest unread', async ({ page }) => {
  await page.goto(`${runHref(LONG.runId)}#seq-6`);
  const target = page.locator('#seq-6');
  await expect(target).toBeInViewport();
  await expect(target).toContainText('Model step 3');
  // Chunks between it and the tail stay placeholders until someone scrolls to them, even the next one
  // (every placeholder is near the top before the link's chunk renders and pushes them down).
  await expect(page.getByTestId('timeline-chunk-placeholder').first()).toHaveAttribute('data-chunk', '1');
  await expect(page.locator('#seq-201')).toHaveCount(0);
});
