import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { HTML_PAYLOAD, SEEDED } from './seed-data';
import { RunPage, RunsPage } from './studio-pages';

const { completed, waiting } = SEEDED;

test('a model step is a card whose tool call links to its result; totals sum the steps', async ({ page }) => {
  await page.goto(runHref(completed.runId));
  const run = new RunPage(page);
  const step = run.event('model-step').first();
  await expect(step).toContainText('Model step 1');
  await expect(step.locator('[data-slot="finish-reason"]')).toHaveText('finish: tool-calls');
  await expect(step.locator('[data-slot="tokens"]')).toContainText('tokens');
  const call = step.locator('[data-slot="step-tool-call"]');
  await expect(call).toContainText('lookupOrder');
  await expect(call).toContainText('returned');
  // The arguments are text: the HTML in them is shown, never made into an element.
  await expect(call).toContainText(HTML_PAYLOAD);
  await expect(page.locator('img')).toHaveCount(0);

  await call.getByRole('link', { name: '#3' }).click();
  await expect(page).toHaveURL(/#seq-3$/);
  await expect(run.event('tool-call-end')).toBeInViewport();
  await expect(run.event('tool-call-end')).toContainText('lookupOrder returned');
  await expect(run.event('tool-call-end').locator('[data-slot="tool-source"]')).toHaveText('executed');

  const totals = page.getByTestId('run-totals');
  await expect(totals.locator('[data-total="Model steps"] dd')).toHaveText('2');
  await expect(run.event('run-complete')).toContainText('Order o_17 totals 40.');
});

test('an idempotency key is copied with one click', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(runHref(completed.runId));
  const key = new RunPage(page).event('tool-call-end').locator('[data-slot="idempotency-key"]');
  const value = await key.locator('code').textContent();
  expect(value).toMatch(/^[A-Za-z0-9_-]{49}$/);
  await key.getByRole('button', { name: /Copy idempotency key/ }).click();
  await expect(key.getByRole('button')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
});

test('a #seq link opens the run at that event', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 500 });
  await page.goto(`${runHref(completed.runId)}#seq-5`);
  await expect(new RunPage(page).event('run-complete')).toBeInViewport();
});

test('a waiting run shows the question, its arguments as text, and where to decide', async ({ page }) => {
  await page.goto(runHref(waiting.runId));
  const question = new RunPage(page).event('tool-approval-request');
  await expect(question).toContainText('refund needs approval');
  await expect(question).toContainText('Waiting for a decision');
  await expect(question.getByRole('link', { name: 'the inbox' })).toHaveAttribute('href', '/inbox');
  await expect(page.getByTestId('run-actions')).toContainText('One call waits for a person');
});

test("an invocation's recorded trace links to where traces live (GNL_TRACE_URL); a run recorded without one shows none", async ({ page }) => {
  // The seed ran the completed run under a real OpenTelemetry tracer provider (seed.ts).
  await page.goto(runHref(completed.runId));
  const chip = new RunPage(page).event('run-start').getByTestId('trace-chip');
  await expect(chip).toHaveCount(1);
  const title = (await chip.getAttribute('title')) ?? '';
  const traceId = /^trace ([0-9a-f]{32}), span [0-9a-f]{16}$/.exec(title)?.[1];
  expect(traceId, `the chip's title names the trace: ${title}`).toBeDefined();
  await expect(chip.getByRole('link')).toHaveAttribute('href', `https://traces.example.test/trace/${traceId}`);
  await expect(chip.getByRole('link')).toHaveText(`trace ${traceId?.slice(0, 8)}…`);

  await page.goto(runHref(waiting.runId));
  await expect(new RunPage(page).event('run-start')).toHaveCount(1);
  await expect(page.getByTestId('trace-chip')).toHaveCount(0);
});

test('cost: a run on a model the price table does not list says its price is unknown, never $0 (run page and runs list)', async ({ page }) => {
  await page.goto(runHref(completed.runId));
  const cost = page.getByTestId('run-summary').getByTestId('cost');
  await expect(cost).toHaveText('price unknown');
  await expect(cost).toHaveAttribute('data-coverage', 'none');
  await expect(cost).toHaveAttribute('title', /scripted/);
  const runs = new RunsPage(page);
  await runs.goto();
  await expect(runs.row(completed.runId).getByTestId('cost')).toHaveText('price unknown');
});
