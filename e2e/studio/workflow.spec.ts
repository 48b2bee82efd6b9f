/**
 * The support workflow in the Studio: started from the Demo page, its child agent run is linked from the
 * run page (and links back); the child's refund waits in the inbox like any other; once approved the
 * workflow waits for the customer's reply, and the run page's form (built from the event's schema)
 * sends it, after the event's schema refused an empty one on the server. The run completes with the reply.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { InboxPage, RunPage } from './studio-pages';

test('a workflow from the Demo page: its child waits in the inbox, then the reply is sent from the run page’s form (an empty one refused) and the run completes', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto('/demo');
  const form = page.getByTestId('demo-workflow-form');
  await expect(form).toHaveAttribute('data-hydrated', 'true');
  await form.getByRole('button', { name: 'Start the support workflow' }).click();
  await page.waitForURL(/\/runs\//);
  const runId = (await page.getByTestId('run-id').textContent()) ?? '';
  expect(runId).toMatch(/^support-flow:/);
  const workflow = page.getByTestId('run-workflow');
  await expect(workflow).toContainText('Workflow support-flow');
  const childId = `${runId}/support`;
  await expect(workflow.getByTestId('workflow-children').getByRole('link', { name: childId })).toBeVisible({ timeout: 30_000 });

  // The child is an ordinary agent run: its refund waits for a person.
  const inbox = new InboxPage(page);
  await inbox.goto();
  await inbox.approve(childId);

  await page.goto(runHref(childId));
  await expect(page.getByTestId('workflow-parent').getByRole('link', { name: runId })).toBeVisible();
  await page.getByTestId('workflow-parent').getByRole('link', { name: runId }).click();
  await page.waitForURL(/support-flow/);
  const wait = page.getByTestId('run-workflow').getByTestId('workflow-wait');
  await expect(wait).toContainText('Waiting for the event “customer-reply”', { timeout: 45_000 });

  const send = page.getByTestId('send-event-form');
  await send.getByRole('button', { name: 'Send “customer-reply”' }).click();
  // Left empty, the event's own schema refuses it on the server, naming the field; nothing is written.
  await expect(send).toContainText('payload.text: is empty: write something');
  await expect(send).toContainText('Nothing was written');
  const run = new RunPage(page);
  await expect(run.event('workflow-event')).toHaveCount(0);
  await send.getByLabel('text', { exact: true }).fill('Thank you, received.');
  // No event id given: the form sends one of its own (studio-<uuid>), so a send retried after a lost answer is recorded once.
  await send.getByRole('button', { name: 'Send “customer-reply”' }).click();
  // The form's notice, or, when the woken run went on before it was read (the wait and its form leave the
  // page with it), the event in the journal, with who sent it: a race the test lost once (stop 50's CI).
  const recorded = send.getByTestId('send-event-result').or(run.event('workflow-event'));
  await expect(recorded.first()).toContainText(/Recorded in the run’s journal|sent by .+ \(id studio-[0-9a-f-]{36}\)/);

  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 45_000 });
  await expect(run.event('workflow-event')).toHaveCount(1);
  await expect(run.event('workflow-event')).toContainText(/\(id studio-[0-9a-f-]{36}\)/);
  // The durable sleep before the wait (GNL_DEMO_COOL_OFF_MS, set by playwright.config.ts) is in its journal, woken by the timer.
  await expect(run.event('workflow-wait').filter({ hasText: 'cool-off' })).toHaveCount(1);
  await expect(run.event('workflow-wait-end').filter({ hasText: 'Woke up' })).toHaveCount(1);
  await expect(page.getByTestId('run-workflow').getByTestId('workflow-wait')).toHaveCount(0);
});
