/**
 * Versions and migration in the Studio (project `versions`: a Studio of its own whose journal holds a
 * run stranded by a deploy, seed-versions.ts). The operator finds it on the Versions page with what
 * differs, previews its migration (what is kept, with keys; what runs next), confirms with a reason, and
 * approves the refund: the run finishes on the deployed version. This Studio's outside service (fresh at
 * its start) says what really ran: one refund, and no ticket (the run's ticket was opened before the
 * deploy, by the service the seed used; it is never opened again).
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { InboxPage, RunPage, SignInPage } from './studio-pages';
import { VERSIONS } from './versions-data';

type Stats = Record<'tickets' | 'refunds' | 'emails', { performed: number }>;

async function serviceStats(): Promise<Stats> {
  const res = await fetch(`http://127.0.0.1:${process.env.GNL_E2E_VERSIONS_DEMO_PORT}/stats`);
  return (await res.json()) as Stats;
}

test.beforeEach(async ({ page }) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(VERSIONS.operator.login, VERSIONS.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(VERSIONS.operator.name);
});

test('a run stranded by a deploy is listed with what differs, migrated after its preview with a reason, and finishes once on the new version', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.getByRole('link', { name: 'Versions' }).click();
  // The demo registers the support agent, the same without check and with four eyes on refunds (one version each).
  await expect(page.getByTestId('agent-version')).toHaveCount(3);
  await expect(page.getByTestId('agent-version').filter({ hasText: /^support [0-9a-f]{16}/ })).toHaveCount(1);
  const stranded = page.locator(`[data-testid="stranded-run"][data-run-id="${VERSIONS.runId}"]`);
  await expect(stranded).toContainText('waiting-approval');
  await stranded.getByText(/What differs/).click();
  await expect(stranded.getByTestId('stranded-difference')).toHaveCount(1);
  await expect(stranded.getByTestId('stranded-difference')).toContainText(VERSIONS.earlierWording);

  await stranded.getByTestId('preview-migration').click();
  const preview = page.getByTestId('migration-preview');
  await expect(preview).toHaveAttribute('data-safe', 'true');
  await expect(preview).toContainText('Changes: system.');
  await expect(preview.getByTestId('migration-kept')).toHaveCount(2);
  await expect(preview.locator('[data-testid="migration-kept"][data-tool="createTicket"]')).toContainText(/key gnl\d[ca]_/);
  await expect(preview.locator('[data-testid="migration-rerun"][data-tool="issueRefund"]')).toHaveAttribute('data-action', 'waits');
  const to = (await page.getByTestId('migration-to').textContent()) ?? '';

  // The reason is required: refused, nothing recorded.
  await page.getByRole('button', { name: 'Migrate the run' }).click();
  await expect(page.getByTestId('migrate-refused')).toContainText('Say why');
  await page.getByLabel(/Why migrate\?/).fill('support prompt reworded in this deploy');
  await page.getByRole('button', { name: 'Migrate the run' }).click();
  await expect(page.getByTestId('migrate-done')).toContainText(`Migrated to version ${to}`);

  await page.goto(runHref(VERSIONS.runId));
  const run = new RunPage(page);
  await expect(page.getByTestId('run-version')).toHaveAttribute('data-kind', 'pinned');
  await expect(page.getByTestId('run-version-value')).toHaveText(to);
  await expect(page.getByTestId('run-version')).toContainText(`migrated from`);
  await expect(run.event('run-migrate')).toContainText(`Migrated by ${VERSIONS.operator.login}`);
  await expect(run.event('run-migrate')).toContainText('support prompt reworded in this deploy');

  const before = await serviceStats();
  const inbox = new InboxPage(page);
  await inbox.goto();
  await inbox.approve(VERSIONS.runId);
  await page.goto(runHref(VERSIONS.runId));
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 30_000 });
  const after = await serviceStats();
  expect(after.refunds.performed - before.refunds.performed).toBe(1);
  // This run's ticket was opened before the deploy (another service): none now. (notifications.spec.ts shares this service.)
  expect(after.tickets.performed - before.tickets.performed).toBe(0);
  expect(after.emails.performed - before.emails.performed).toBe(1);

  await page.getByRole('link', { name: 'Versions' }).click();
  await expect(page.getByTestId('stranded-none')).toBeVisible();
});
