import { test as base, expect } from '@playwright/test';
import { COMPLETED_EVENT_TYPES, CONVERSATION, HTML_PAYLOAD, SEEDED } from './seed-data';
import { RunPage, RunsPage } from './studio-pages';

const { completed, waiting, blocked } = SEEDED;
/** The chat's turns, newest first: seeded after the blocked run and before the completed one. */
const chatTurns = CONVERSATION.turns.map((turn) => turn.runId).reverse();
const newestFirst = [waiting.runId, completed.runId, ...chatTurns, blocked.runId];

// Nothing on these pages may run script from the journal: any dialog or page error fails the test.
const test = base.extend<{ noScriptRuns: undefined }>({
  noScriptRuns: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('dialog', (dialog) => {
        problems.push(`dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      await use(undefined);
      expect(problems).toEqual([]);
    },
    { auto: true },
  ],
});

test('lists the seeded runs newest first, with their statuses and why the stopped ones wait', async ({ page }) => {
  const runs = new RunsPage(page);
  await runs.goto();
  expect(await runs.runIds()).toEqual(newestFirst);

  for (const run of [waiting, completed, blocked]) {
    await expect(runs.row(run.runId).locator('[data-slot="run-status-badge"]')).toHaveText(run.status);
  }
  await expect(runs.row(waiting.runId)).toContainText(`Awaiting approval of ${waiting.tool} since`);
  await expect(runs.row(blocked.runId)).toContainText(`Side effect of unknown outcome: ${blocked.tool}, key`);
  await expect(runs.row(completed.runId).locator('[data-slot="run-pending-reason"]')).toHaveCount(0);
  await expect(runs.row(completed.runId)).toContainText('scripted-v1');
  // A chat's turns name their conversation; a run of none names none.
  for (const runId of chatTurns)
    await expect(runs.row(runId).locator('[data-slot="run-conversation"]')).toHaveText(`conversation ${CONVERSATION.conversationId}`);
  await expect(runs.row(completed.runId).locator('[data-slot="run-conversation"]')).toHaveCount(0);

  await expect(runs.journalNotice).toContainText('survives a killed process, not a power cut');
});

test('filters runs by status through ?status= links', async ({ page }) => {
  const runs = new RunsPage(page);
  await runs.goto();

  await runs.filterBy('waiting-approval');
  await expect(page).toHaveURL(/\?status=waiting-approval$/);
  await expect.poll(() => runs.runIds()).toEqual([waiting.runId, CONVERSATION.turns[2].runId]);

  await runs.filterBy('blocked');
  await expect(page).toHaveURL(/\?status=blocked$/);
  await expect(runs.rows).toHaveCount(1);
  await expect(runs.rows.first()).toHaveAttribute('data-run-id', blocked.runId);

  await runs.filterBy('canceled');
  await expect(runs.rows).toHaveCount(0);
  await expect(runs.empty).toHaveText('No run is canceled.');

  await runs.filterBy('all');
  await expect(runs.rows).toHaveCount(newestFirst.length);
});

test('searches by run-id prefix, tool name and idempotency key, and filters by agent, keeping the status filter', async ({ page }) => {
  test.setTimeout(120_000); // ten page loads: a shared, loaded machine needs more than the default
  const runs = new RunsPage(page);
  await runs.goto();
  await expect(runs.row(completed.runId).getByTestId('run-tokens')).toHaveText(/^[\d,]+$/);

  await runs.search('support:o_1');
  await expect(page).toHaveURL(/[?&]q=support%3Ao_1/);
  await expect.poll(() => runs.runIds()).toEqual([waiting.runId, completed.runId, blocked.runId]);

  // The refund tool: asked for approval in one run, started (outcome unknown) in the other.
  await runs.search(waiting.tool);
  await expect.poll(() => runs.runIds()).toEqual([waiting.runId, blocked.runId]);
  await runs.filterBy('blocked');
  await expect(page).toHaveURL(/status=blocked/);
  await expect(page).toHaveURL(/q=refund/);
  await expect.poll(() => runs.runIds()).toEqual([blocked.runId]);

  // "Did we refund o_19?": the key the outside service shows finds the one run that holds it.
  const key = (await runs.row(blocked.runId).locator('[data-kind="side-effect"] code').nth(1).textContent()) ?? '';
  expect(key).toMatch(/^gnl3[ac]_/);
  await runs.filterBy('all');
  await runs.search(key);
  await expect.poll(() => runs.runIds()).toEqual([blocked.runId]);

  await runs.search('no-such-run-tool-or-key');
  await expect(runs.empty).toContainText('has an id starting with “no-such-run-tool-or-key”');

  // These runs were started by runDurable directly, under no agent: the agent filter leaves none.
  await runs.searchForm.getByRole('link', { name: 'Clear' }).click();
  await expect(page).not.toHaveURL(/[?&]q=/);
  // The field follows the URL after a client navigation (it once kept the last search and sent it again).
  await expect(runs.searchForm.getByLabel('Run id prefix, tool name or idempotency key')).toHaveValue('');
  await runs.filterAgent('support');
  await expect(page).toHaveURL(/agent=support/);
  await expect(runs.rows).toHaveCount(0);
  await expect(runs.empty).toHaveText('No run of agent support.');
});

test('a long search wraps: the page never scrolls sideways (the text is cut to 200 characters, and wraps)', async ({ page }) => {
  await page.goto(`/?q=${'x'.repeat(5000)}`);
  await expect(page.getByTestId('runs-empty')).toContainText(`“${'x'.repeat(200)}”`);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
});

test('pages through the runs with the next-page cursor', async ({ page }) => {
  test.setTimeout(60_000); // one page load per seeded run
  const runs = new RunsPage(page);
  await runs.goto('?limit=1');
  expect(await runs.runIds()).toEqual(newestFirst.slice(0, 1));
  for (const runId of newestFirst.slice(1)) {
    await runs.nextPage.click();
    await expect(page).toHaveURL(/[?&]cursor=/);
    await expect(runs.rows).toHaveCount(1);
    await expect(runs.rows.first()).toHaveAttribute('data-run-id', runId);
  }
  await expect(runs.nextPage).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'First page' })).toBeVisible();

  // An edited cursor is explained, not a server error.
  await page.goto('/?cursor=not-a-cursor');
  await expect(page.getByTestId('runs-bad-cursor')).toContainText('not one the journal gave out');
  await page.getByRole('link', { name: 'Go to the first page' }).click();
  await expect(runs.rows).toHaveCount(newestFirst.length);
});

test('the run page shows the summary and the journal in order', async ({ page }) => {
  const runs = new RunsPage(page);
  await runs.goto();
  await runs.openRun(completed.runId);

  const run = new RunPage(page);
  await expect(run.runId).toHaveText(completed.runId);
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('completed');
  expect(await run.eventList()).toEqual(COMPLETED_EVENT_TYPES.map((type, i) => ({ seq: i + 1, type })));

  // A full load of the same URL (Next decodes the segment then, unlike on client navigation) shows the same run.
  await page.reload();
  await expect(run.runId).toHaveText(completed.runId);
  expect(await run.eventList()).toHaveLength(COMPLETED_EVENT_TYPES.length);
});

test('HTML inside a tool input is shown as literal text, never rendered', async ({ page }) => {
  const runs = new RunsPage(page);
  await runs.goto();
  await runs.openRun(completed.runId);

  const run = new RunPage(page);
  // The end of a read-only call carries its input; the payload is long enough to start collapsed.
  const end = run.event('tool-call-end');
  await end.locator('summary').click();
  await expect(end.locator('pre')).toBeVisible();
  await expect(end.locator('pre')).toContainText(`"note": "${HTML_PAYLOAD}"`);
  await expect(page.locator('img')).toHaveCount(0);

  // The model step's payload is long, so it starts collapsed; opened, its (escaped) tool call is text too.
  const step = run.event('model-step').first();
  await expect(step.locator('details')).not.toHaveAttribute('open');
  await expect(step.locator('pre')).toBeHidden();
  await step.locator('summary').click();
  await expect(step.locator('pre')).toContainText('onerror=alert(1)');
  await expect(page.locator('img')).toHaveCount(0);
});

test('a waiting run shows which tool awaits approval, and its question in the journal', async ({ page }) => {
  const runs = new RunsPage(page);
  await runs.goto('?status=waiting-approval');
  await runs.openRun(waiting.runId);

  const run = new RunPage(page);
  await expect(run.runId).toHaveText(waiting.runId);
  await expect(run.summary).toContainText(`Awaiting approval of ${waiting.tool} since`);
  const types = (await run.eventList()).map((e) => e.type);
  expect(types).toEqual(['run-start', 'model-step', 'tool-approval-request', 'run-suspend']);
  await expect(run.event('tool-approval-request').locator('pre')).toContainText(`"toolName": "${waiting.tool}"`);
});

test('an unknown run id is a 404 page', async ({ page }) => {
  const response = await page.goto('/runs/no~20such~20run');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
});
