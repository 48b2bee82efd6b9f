/**
 * Ask a person (issue 16): the support agent's askColleague is an askPerson tool (no execute). A customer's
 * question makes the run wait for its result; the inbox shows the call with a form from the tool's output
 * schema (every problem named, nothing sent while one stands); the answer goes through the journal, the
 * run continues and emails it, and the outside service's own record holds that email, once.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { demoServiceUrl } from './auth-state';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

test('ask a person: the question waits in the inbox with a form from the output schema; the answer reaches the model and the customer', async ({ page }) => {
  // A run, the inbox, a refused and an accepted answer, and the resumed run: more than the default on a loaded machine.
  test.setTimeout(120_000);
  const question = 'Customer c_42 asks: can I change the delivery address of order o_17?';
  const runId = await new DemoPage(page).start({ prompt: question });
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 30_000 });
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('waiting-tool-result');

  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(runId, 'tool-result');
  await expect(item).toContainText('askColleague');
  await expect(item).toContainText(question);
  const form = item.locator('[data-slot="tool-result-form"]');
  const answer = form.getByLabel('answer', { exact: true });
  await expect(answer).toBeVisible();
  // An empty answer is not what askColleague returns: named beside the field, nothing sent.
  await form.getByRole('button', { name: 'Provide result' }).click();
  await expect(form.locator('[data-slot="field-problems"]')).toBeVisible();
  await expect(inbox.recentDecisions).toHaveCount(0);

  await answer.fill('Yes, until it ships: reply with the new address.');
  await form.getByLabel(/Where does it come from\?/).fill('Logistics team, by chat');
  await form.getByRole('button', { name: 'Provide result' }).click();
  await expect(inbox.recentDecisions).toContainText(`You provided the result of askColleague of ${runId}`);
  await expect(inbox.item(runId)).toHaveCount(0);

  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toContainText('Answered (a colleague said: Yes, until it ships: reply with the new address.)', {
    timeout: 30_000,
  });
  const emailStart = page.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: 'sendEmail started' });
  const key = (await emailStart.locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
  const stats = (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as { emails: { byKey: Record<string, unknown> } };
  expect(stats.emails.byKey[key]).toEqual({ requests: 1, performed: 1 });
  const email = await (await fetch(`${demoServiceUrl()}/emails/by-key/${key}`)).json();
  expect(email).toMatchObject({ to: 'ada@example.com', subject: 'About your question', body: expect.stringContaining('Yes, until it ships') });
});
