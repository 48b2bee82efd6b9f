/**
 * Memory in the Studio (project `memory`, on the `versions` Studio: its journal holds MEMORY, seed-versions.ts): the resources
 * list and search, a resource's working memory with its versions, threads and items shown as text; an
 * edit with a reason becomes the next version in the operator's name; a stale tab's edit and a value
 * that is not a JSON object are refused, nothing written; a run's page says which memory it was given
 * and each recalled item with its score, linking to the resource.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { SignInPage } from './studio-pages';
import { MEMORY, VERSIONS } from './versions-data';

test.beforeEach(async ({ page }) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(VERSIONS.operator.login, VERSIONS.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(VERSIONS.operator.name);
});

test('a customer’s memory: listed and searched, its working memory edited with a reason as the next version, a stale edit refused', async ({
  page,
  context,
}) => {
  test.setTimeout(90_000);
  await page.getByRole('link', { name: 'Memory', exact: true }).click();
  const rows = page.getByTestId('memory-resource');
  await expect(rows.filter({ hasText: MEMORY.resource })).toHaveCount(1);
  await expect(rows.filter({ hasText: MEMORY.other })).toHaveCount(1);
  await page.getByLabel('Search resources').fill('c_78');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(MEMORY.other);
  await page.goto('/memory?q=c_77');
  await rows.first().getByRole('link').click();

  await expect(page.getByTestId('memory-resource-id')).toHaveText(MEMORY.resource);
  const version = page.getByTestId('working-memory-version');
  await expect(version).toContainText('Version 2, written by agent');
  await expect(version).toContainText('why: the customer asked for email');
  await expect(page.getByTestId('working-memory')).toContainText('"tier": "gold"');
  await expect(page.getByTestId('memory-version')).toHaveCount(1);
  await expect(page.getByTestId('memory-version')).toContainText('"tier": "silver"');
  // The seeded thread's two messages and the run's turn, appended when it completed.
  await expect(page.getByTestId('memory-thread').filter({ hasText: MEMORY.thread })).toContainText('4');
  // Untrusted text is text: the fact's markup is shown, nothing runs, its hidden character is marked.
  const hostile = page.getByTestId('memory-item').filter({ hasText: '<img src=x' });
  await expect(hostile).toContainText('⟨U+202E⟩');
  expect(await page.evaluate(() => (window as unknown as { __gnlPwned?: unknown }).__gnlPwned)).toBeUndefined();
  await expect(page.locator('[data-testid="memory-items"] img')).toHaveCount(0);

  // A second tab opens the same form, then the first saves: the second's save is refused, naming who wrote meanwhile.
  const stale = await context.newPage();
  await stale.goto(page.url());
  await stale.getByRole('button', { name: 'Edit…' }).click();

  await page.getByRole('button', { name: 'Edit…' }).click();
  const save = page.getByRole('button', { name: 'Save as version 3' });
  await page.getByLabel('The record, as a JSON object').fill('[1, 2]');
  await expect(save).toBeDisabled(); // no reason yet
  await page.getByLabel('Why change it?').fill('upgraded after the complaint, ticket 881');
  await save.click();
  await expect(page.getByText('Working memory is a JSON object')).toBeVisible();
  await page.getByLabel('The record, as a JSON object').fill('{ "channel": "email", "tier": "platinum" }');
  await save.click();
  await expect(version).toContainText(`Version 3, written by ${VERSIONS.operator.login}`);
  await expect(version).toContainText('why: upgraded after the complaint, ticket 881');
  await expect(page.getByTestId('working-memory')).toContainText('"tier": "platinum"');
  await expect(page.getByTestId('memory-version')).toHaveCount(2);

  await stale.getByLabel('Why change it?').fill('from the stale tab');
  await stale.getByRole('button', { name: 'Save as version 3' }).click();
  await expect(stale.getByTestId('working-memory-changed')).toHaveText(
    `Not saved: version 3 was written meanwhile by ${VERSIONS.operator.login}. Read it, then edit again.`,
  );
  await page.reload();
  await expect(version).toContainText('Version 3');
  await expect(page.getByTestId('memory-version')).toHaveCount(2);
});

test('a run’s page names the memory it was given and each recalled item with its score, from its own record', async ({ page }) => {
  await page.goto(runHref(MEMORY.runId));
  const section = page.getByTestId('run-memory');
  await expect(section).toContainText(`Given the memory of ${MEMORY.resource}, thread ${MEMORY.thread}: 2 earlier messages, and 2 recalled by similarity:`);
  const recalled = page.getByTestId('run-recalled-item');
  await expect(recalled).toHaveCount(2);
  // The fact sharing the prompt's words comes first; scores are shown with two decimals.
  await expect(recalled.first()).toContainText('order o_77 arrived damaged');
  await expect(recalled.first().locator('[data-slot="score"]')).toHaveText(/^0\.\d\d$/);
  await section.getByRole('link', { name: MEMORY.resource }).click();
  await expect(page.getByTestId('memory-resource-id')).toHaveText(MEMORY.resource);
});
