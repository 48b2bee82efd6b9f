/**
 * "Resume at…" on a run page (the `long` Studio, its seeded RESUMABLE run: waiting, its approval decided,
 * not resumed): the operator picks a time in their own time zone (the browser's, here Asia/Kolkata,
 * UTC+05:30) and a reason; the resume is journaled at that instant in UTC with the operator's login, the
 * page shows it as the run's timer, and a second time replaces it. Bad input is refused, naming why.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { LONG, RESUMABLE } from './seed-data';
import { RunPage, SignInPage } from './studio-pages';

test.use({ timezoneId: 'Asia/Kolkata' });

/** Days a month from now (a resume may be scheduled at most 366 days ahead), as YYYY-MM-DD; Kolkata keeps UTC+05:30 all year. */
const dayFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const DAY = dayFromNow(30);
const NEXT_DAY = dayFromNow(31);

test('schedule a resume in the operator’s time zone, see it as the run’s timer, then replace it', async ({ page }) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(LONG.operator.login, LONG.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name);
  await page.goto(runHref(RESUMABLE.runId));
  const run = new RunPage(page);
  const control = page.getByTestId('resume-at');
  await expect(control.getByTestId('resume-at-scheduled')).toHaveCount(0);

  await control.getByTestId('resume-at-open').click();
  // Chromium may name the zone by its older ICU alias.
  await expect(control).toContainText(/your time zone: Asia\/(Kolkata|Calcutta)/);
  // No reason: refused, nothing written.
  await control.getByTestId('resume-at-when').fill(`${DAY}T09:30`);
  await control.getByTestId('resume-at-submit').click();
  await expect(control).toContainText('Say why');
  // A time in the past is refused too.
  await control.getByTestId('resume-at-when').fill('2020-01-15T09:30');
  await control.getByTestId('resume-at-reason').fill('<b>after</b> the cut-off');
  await control.getByTestId('resume-at-submit').click();
  await expect(control).toContainText('Choose a time in the future');
  // More than a year and a day ahead is refused (issue 34).
  await control.getByTestId('resume-at-when').fill('9999-12-31T09:30');
  await control.getByTestId('resume-at-submit').click();
  await expect(control).toContainText('Choose a time within a year and a day');
  await expect(run.event('run-resume-request')).toHaveCount(0);

  // 09:30 in Kolkata is 04:00 UTC.
  await control.getByTestId('resume-at-when').fill(`${DAY}T09:30`);
  await control.getByTestId('resume-at-submit').click();
  const scheduled = control.getByTestId('resume-at-scheduled');
  await expect(scheduled.locator('time')).toHaveAttribute('datetime', `${DAY}T04:00:00.000Z`);
  await expect(scheduled).toContainText(`by ${LONG.operator.login}: <b>after</b> the cut-off`);
  await expect(run.event('run-resume-request')).toContainText(`Resume scheduled for ${DAY}T04:00:00.000Z by ${LONG.operator.login}`);
  const timer = run.summary.locator('[data-testid="run-timer"][data-kind="resume"]');
  await expect(timer.locator('time')).toHaveAttribute('datetime', `${DAY}T04:00:00.000Z`);
  await expect(timer).toContainText(`Resume scheduled by ${LONG.operator.login}`);

  // Another time replaces it: one timer, at the new instant.
  await control.getByRole('button', { name: 'Change the time…' }).click();
  await control.getByTestId('resume-at-when').fill(`${NEXT_DAY}T23:45`);
  await control.getByTestId('resume-at-reason').fill('moved to the next night');
  await control.getByRole('button', { name: 'Replace the scheduled resume' }).click();
  await expect(scheduled.locator('time')).toHaveAttribute('datetime', `${NEXT_DAY}T18:15:00.000Z`);
  await expect(run.event('run-resume-request')).toHaveCount(2);
  await expect(run.summary.locator('[data-testid="run-timer"][data-kind="resume"]')).toHaveCount(1);
  await expect(run.summary.locator('[data-testid="run-timer"][data-kind="resume"] time')).toHaveAttribute('datetime', `${NEXT_DAY}T18:15:00.000Z`);
  await expect(run.status).toHaveText('waiting-approval');
});
