/**
 * "Fork from here" on a model step, in real Chromium against the built Studio: the preview names the
 * side effects that could act again and their keys, the fork is recorded in the signed-in operator's
 * name with the reason, the page opens the fork, both runs link to each other, and the outside
 * service's own counters show the fork's repeated ticket and email never sent again: answered from the
 * parent's record under the parent's keys (performed once, requested once).
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { demoServiceUrl } from './auth-state';
import { OPERATORS } from './seed-data';
import { DemoPage, RunPage, SignInPage } from './studio-pages';

type Stats = Record<'tickets' | 'refunds' | 'emails', { byKey: Record<string, { requests: number; performed: number }> }>;

async function serviceStats(): Promise<Stats> {
  return (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as Stats;
}

test('fork a finished run at its ticket step: the preview lists the email and its key, the fork answers it from the parent’s record under that key and the service sees it once', async ({
  page,
}) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(OPERATORS.alice.login, OPERATORS.alice.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(OPERATORS.alice.name);

  const parentId = await new DemoPage(page).start({ prompt: 'Customer c_42 has a question about order o_17' });
  const run = new RunPage(page);
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 20_000 });
  const emailKey = (await run.event('tool-call-start').filter({ hasText: 'sendEmail' }).locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
  expect(emailKey).toMatch(/^gnl/);

  const step2 = run.event('model-step').filter({ hasText: 'Model step 2' });
  await step2.getByTestId('fork-from-here').click();
  const form = step2.getByTestId('fork-form');
  const preview = form.getByTestId('fork-preview');
  await expect(preview).toContainText('Keeps step 1 (');
  await expect(preview.locator('[data-testid="fork-repeatable"][data-tool="sendEmail"] [data-slot="fork-key"]')).toHaveText(emailKey);
  await expect(form.getByTestId('fork-tools')).toContainText('createTicket: keyed by the root run');

  await form.getByTestId('fork-reason').fill('<b>see</b> the ticket step again');
  await form.getByTestId('fork-submit').click();
  await page.waitForURL((url) => url.pathname.startsWith('/runs/') && url.pathname !== runHref(parentId));
  const fork = new RunPage(page);
  await expect(fork.event('run-start').locator('[data-slot="fork-of"]')).toContainText(`Fork of ${parentId} at step 2, by alice`);
  // The reason is text, never markup.
  await expect(fork.event('run-start').locator('[data-slot="fork-of"]')).toContainText('<b>see</b> the ticket step again');
  await expect(fork.summary.locator('[data-slot="run-fork-of"]')).toContainText(`Fork of ${parentId} at step 2, by alice`);
  await expect(fork.event('run-complete')).toHaveCount(1, { timeout: 20_000 });
  const forkId = (await fork.runId.textContent()) ?? '';
  // The repeat is answered from the parent's record under the parent's key, and says so, linking the parent.
  const answered = fork.event('tool-call-end').filter({ hasText: 'sendEmail' });
  await expect(answered.locator('[data-slot="idempotency-key"] code')).toHaveText(emailKey);
  await expect(answered.locator('[data-slot="inherited-from"]')).toContainText(`Answered from the record of run ${parentId}`);
  await expect(fork.event('tool-call-start').filter({ hasText: 'sendEmail' })).toHaveCount(0);

  const stats = await serviceStats();
  expect(stats.emails.byKey[emailKey]).toEqual({ requests: 1, performed: 1 });

  await page.goto(runHref(parentId));
  const forked = new RunPage(page).event('run-forked');
  await expect(forked).toContainText('Forked at step 2 by alice');
  await expect(forked.locator('[data-slot="fork-child"]')).toHaveText(forkId);
});

test('fork with an edited tool result: the lookup’s output is checked against its schema, previewed, and the fork reads it (no ticket, no email: the service’s counters)', async ({
  page,
}) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(OPERATORS.alice.login, OPERATORS.alice.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(OPERATORS.alice.name);

  const parentId = await new DemoPage(page).start({ prompt: 'Customer c_42 has a question about order o_17' });
  const run = new RunPage(page);
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 20_000 });
  const ticketKey = (await run.event('tool-call-start').filter({ hasText: 'createTicket' }).locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
  expect(ticketKey).toMatch(/^gnl/);

  const step2 = run.event('model-step').filter({ hasText: 'Model step 2' });
  await step2.getByTestId('fork-from-here').click();
  const form = step2.getByTestId('fork-form');
  await expect(form.getByTestId('fork-preview')).toContainText('Keeps step 1 (');
  await form.getByTestId('fork-change-result').check();
  const calls = form.getByTestId('fork-result-call');
  const lookupCall = (await calls.locator('option', { hasText: 'lookupCustomer' }).getAttribute('value')) ?? '';
  await calls.selectOption(lookupCall);
  // Prefilled with the recorded output; the tool's output schema is shown beside it.
  await expect(form.getByTestId('fork-result-output')).toHaveValue(/"found": true/);
  await expect(form.getByTestId('fork-result')).toContainText('Output schema');
  await expect(form.getByTestId('fork-submit')).toBeDisabled();

  // An output the schema refuses is refused by the preview, naming the tool; nothing is forked.
  await form.getByTestId('fork-result-output').fill('{ "found": "maybe" }');
  await form.getByTestId('fork-result-preview').click();
  await expect(form.getByTestId('action-invalid')).toContainText("does not match lookupCustomer's output schema");
  await expect(form.getByTestId('fork-submit')).toBeDisabled();

  await form.getByTestId('fork-result-output').fill('{ "found": false, "customerId": "c_42" }');
  await form.getByTestId('fork-result-preview').click();
  await expect(form.getByTestId('fork-preview')).toContainText('Keeps step 1 (');
  await form.getByTestId('fork-reason').fill('what if the customer were unknown');
  await form.getByTestId('fork-submit').click();
  await page.waitForURL((url) => url.pathname.startsWith('/runs/') && url.pathname !== runHref(parentId));
  const fork = new RunPage(page);
  await expect(fork.event('run-complete')).toHaveCount(1, { timeout: 20_000 });
  await expect(fork.event('run-complete')).toContainText('I could not find customer c_42; nothing was changed.');
  // The copied lookup's end is the operator's: provided by alice, with the reason.
  const edited = fork.event('tool-call-end').filter({ hasText: 'lookupCustomer' });
  await expect(edited).toContainText('provided by alice');
  await expect(edited).toContainText('"found": false');
  await expect(fork.event('tool-call-start')).toHaveCount(0);

  // The outside service saw the parent's ticket once and nothing from the fork.
  const stats = await serviceStats();
  expect(stats.tickets.byKey[ticketKey]).toEqual({ requests: 1, performed: 1 });
});
