/**
 * The Schedules page (the second Studio, project `long`): the schedule that Studio declares from its
 * environment, with the runs seed-schedules.ts started for three slots (then canceled) and the slot it
 * missed after them; each run links to its run page. Signed out, the page is not shown.
 */
import { expect, test } from '@playwright/test';
import { SCHEDULE } from './schedule-data';
import { LONG } from './seed-data';
import { SignInPage } from './studio-pages';

test('lists the schedule with its next slot, the slot it missed and its recent runs, each a link to the run', async ({ page }) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(LONG.operator.login, LONG.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name);
  await page.getByRole('link', { name: 'Schedules', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Schedules' })).toBeVisible();

  const row = page.locator(`[data-testid="schedule-row"][data-schedule-id="${SCHEDULE.id}"]`);
  await expect(row).toContainText(SCHEDULE.env.GNL_DEMO_SCHEDULE_CRON);
  await expect(row).toContainText('(Europe/Berlin)');
  await expect(row.getByTestId('schedule-missed')).toContainText('last missed');
  // 09:00 in Berlin is 08:00 UTC in winter, 07:00 UTC in summer.
  await expect(row.getByTestId('schedule-next').locator('time')).toHaveAttribute('datetime', /T0[78]:00:00\.000Z$/);
  const links = row.getByTestId('schedule-run-link');
  await expect(links).toHaveCount(SCHEDULE.seededRuns);
  await expect(row.locator('[data-slot="run-status-badge"][data-status="canceled"]')).toHaveCount(SCHEDULE.seededRuns);

  const runId = (await links.first().textContent()) as string;
  expect(runId).toMatch(new RegExp(`^sched:${SCHEDULE.id}:\\d{4}-\\d\\d-\\d\\dT0[78]:00:00\\.000Z$`));
  await links.first().click();
  await expect(page).toHaveURL(/\/runs\/sched:support-questions:/);
  await expect(page.getByText(runId).first()).toBeVisible();
});

test('signed out, the page sends to sign-in', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/schedules');
  await expect(page).toHaveURL(/\/sign-in/);
  await context.close();
});
