/**
 * The Schedules page (the second Studio, project `long`): the schedule that Studio declares from its
 * environment, with the runs seed-schedules.ts started for three slots (then canceled) and the slot it
 * missed after them; each run links to its run page. Signed out, the page is not shown. The operator
 * pauses and unpauses it and starts a run now, each with a reason, audited in their name. Serial: the
 * run-now adds a run to the list the first test counts.
 */
import { expect, test } from '@playwright/test';
import { SCHEDULE } from './schedule-data';
import { LONG } from './seed-data';
import { SignInPage } from './studio-pages';

test.describe.configure({ mode: 'serial' });

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

test('pause and unpause with a reason, then run now: each shown and audited in the operator’s name; a double click makes one run', async ({ page }) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(LONG.operator.login, LONG.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name);
  await page.goto('/schedules');
  const row = page.locator(`[data-testid="schedule-row"][data-schedule-id="${SCHEDULE.id}"]`);
  await expect(row.getByTestId('schedule-overlap')).toContainText('overlap: allow');
  await expect(row.getByTestId('schedule-paused')).toHaveCount(0);

  await row.getByTestId('schedule-pause').click();
  await row.getByTestId('schedule-action-submit').click();
  await expect(row.getByTestId('action-invalid')).toContainText('Say why');
  await row.getByTestId('schedule-action-reason').fill('<b>provider</b> outage');
  await row.getByTestId('schedule-action-submit').click();
  await expect(row.getByTestId('schedule-paused')).toContainText(`Paused by ${LONG.operator.login}`);
  await expect(row.getByTestId('schedule-paused')).toContainText('<b>provider</b> outage');
  await expect(row.locator('[data-testid="schedule-audit-entry"][data-action="pause"]')).toContainText(`Paused by ${LONG.operator.login}`);
  // In the database, not the page: read again, still paused.
  await page.reload();
  await expect(row.getByTestId('schedule-paused')).toContainText(`Paused by ${LONG.operator.login}`);

  await row.getByTestId('schedule-unpause').click();
  await row.getByTestId('schedule-action-reason').fill('provider back');
  await row.getByTestId('schedule-action-submit').click();
  await expect(row.getByTestId('schedule-paused')).toHaveCount(0);
  await expect(row.locator('[data-testid="schedule-audit-entry"][data-action="unpause"]')).toContainText('provider back');

  await row.getByTestId('schedule-run-now').click();
  await row.getByTestId('schedule-action-reason').fill('customer waiting');
  await row.getByTestId('schedule-action-submit').dblclick();
  await expect(row.getByTestId('schedule-run-now-result')).toContainText(`sched:${SCHEDULE.id}:now:`);
  const nowLinks = row.getByTestId('schedule-run-link').filter({ hasText: `sched:${SCHEDULE.id}:now:` });
  await expect(nowLinks).toHaveCount(1);
  await expect(row.locator('[data-testid="schedule-audit-entry"][data-action="run-now"]')).toHaveCount(1);
  await expect(row.locator('[data-testid="schedule-audit-entry"][data-action="run-now"]')).toContainText(`Run now by ${LONG.operator.login}`);
  await page.reload();
  await expect(nowLinks).toHaveCount(1);
});
