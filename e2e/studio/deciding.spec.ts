/**
 * Deciding well: a decided call's choices are never live again (its card leaves the inbox at once, in
 * every open tab, driven by the runs stream); Approve asks first, as its key does; a decision whose
 * answer never came is not an error: the card asks the journal and says whether it was recorded, by
 * whom and when; and a run's own page offers the same choices as the inbox. Demo runs executed by the
 * Studio's server; the outside service's own counters say what really happened.
 */
import { expect, type Page, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { demoServiceUrl, storageStatePath } from './auth-state';
import { dropNextDecisionAnswer } from './decision-answers';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

// Each test starts a demo run and follows it through one or two pages: more than the default on a loaded machine.
test.describe.configure({ timeout: 60_000 });

async function waitingRefund(page: Page): Promise<string> {
  const runId = await new DemoPage(page).start();
  await expect(new RunPage(page).event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  return runId;
}

/** Marks the document: still true later means the page was never reloaded. */
async function markDocument(page: Page) {
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });
}
const sameDocument = (page: Page) => page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);

async function refundsPerformed(run: RunPage): Promise<{ requests: number; performed: number } | undefined> {
  const start = run.page.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: 'issueRefund started' });
  const key = (await start.locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
  const stats = (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as { refunds: { byKey: Record<string, { requests: number; performed: number }> } };
  return stats.refunds.byKey[key];
}

test('approved in one tab, the card leaves the inbox at once there and, without a reload, in another operator’s tab', async ({ page, browser }) => {
  const runId = await waitingRefund(page);
  const bobContext = await browser.newContext({ storageState: storageStatePath('bob') });
  const bob = await bobContext.newPage();
  const [aliceInbox, bobInbox] = [new InboxPage(page), new InboxPage(bob)];
  await Promise.all([aliceInbox.goto(), bobInbox.goto()]);
  await expect(bobInbox.item(runId, 'approval').getByRole('button', { name: 'Approve' })).toBeEnabled();
  await markDocument(bob);

  await aliceInbox.approve(runId);
  await expect(aliceInbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);
  await expect(aliceInbox.item(runId)).toHaveCount(0);
  // Bob's tab learns it from the runs stream: the card and its choices go, in the same document.
  await expect(bobInbox.item(runId)).toHaveCount(0);
  expect(await sameDocument(bob)).toBe(true);
  await bobContext.close();
});

test('a card bob was confirming, approved meanwhile by alice, leaves his inbox saying who approved it and when; his choice is never sent', async ({
  page,
  browser,
}) => {
  const runId = await waitingRefund(page);
  const bobContext = await browser.newContext({ storageState: storageStatePath('bob') });
  const bob = await bobContext.newPage();
  const [aliceInbox, bobInbox] = [new InboxPage(page), new InboxPage(bob)];
  await Promise.all([aliceInbox.goto(), bobInbox.goto()]);
  const bobCard = bobInbox.item(runId, 'approval');
  await bobCard.getByRole('button', { name: 'Approve' }).click();
  await expect(bobCard.getByRole('button', { name: 'Confirm approval' })).toBeVisible();

  await aliceInbox.approve(runId);
  await expect(bobCard).toHaveCount(0);
  const told = bob.getByTestId('decided-elsewhere');
  await expect(told).toContainText(/Already approved by alice, \d+ s ago/);
  await expect(told).toContainText(`issueRefund of ${runId} was decided while you had it open`);
  await expect(bob.getByTestId('recent-decisions')).toHaveCount(0);
  const run = new RunPage(page);
  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toHaveCount(1, { timeout: 15_000 });
  await expect(run.event('tool-approval-response')).toHaveCount(1);
  await expect(run.event('tool-approval-response')).toContainText('Approved by alice');
  await bobContext.close();
});

test('Approve asks first, as its key does: Escape or Cancel decides nothing; Enter on the question approves', async ({ page }) => {
  const runId = await waitingRefund(page);
  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(runId, 'approval');
  await item.getByRole('button', { name: 'Approve' }).click();
  const question = item.getByTestId('confirm-step');
  await expect(question).toContainText('Approve issueRefund? The run goes on with it.');
  await expect(question.getByRole('button', { name: 'Confirm approval' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toBeHidden();
  await item.getByRole('button', { name: 'Approve' }).click();
  await question.getByRole('button', { name: 'Cancel' }).click();
  await expect(question).toBeHidden();
  // Nothing was recorded: the run page still shows the question unanswered.
  const run = new RunPage(page);
  await page.goto(runHref(runId));
  await expect(run.event('run-suspend')).toHaveCount(1);
  await expect(run.event('tool-approval-response')).toHaveCount(0);

  await inbox.goto();
  await item.getByRole('button', { name: 'Approve' }).click();
  await expect(question.getByRole('button', { name: 'Confirm approval' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(inbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);
});

test('an approval whose answer was lost on the way back: the card says the journal recorded it, by alice, and offers no second click', async ({ page }) => {
  const runId = await waitingRefund(page);
  const inbox = new InboxPage(page);
  await inbox.goto();
  await dropNextDecisionAnswer(page, 'after');
  await inbox.approve(runId);

  const recorded = page.locator(`[data-testid="decision-recorded"][data-run-id="${runId}"]`);
  await expect(recorded).toContainText(`Recorded: issueRefund of ${runId} approved by alice at`);
  await expect(page.getByTestId('action-error')).toHaveCount(0);
  await expect(recorded.getByRole('button')).toHaveCount(0);
  await expect(inbox.item(runId)).toHaveCount(0);

  // Recorded once: the Studio resumed the run in alice's name and the outside service refunded once.
  const run = new RunPage(page);
  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toContainText('Refunded 40 EUR for order o_17', { timeout: 15_000 });
  await expect(run.event('tool-approval-response')).toHaveCount(1);
  await expect(run.event('tool-approval-response')).toContainText('Approved by alice');
  expect(await refundsPerformed(run)).toEqual({ requests: 1, performed: 1 });
});

test('an approval that never reached the journal: the card says it was not recorded and offers the choices again', async ({ page }) => {
  const runId = await waitingRefund(page);
  const inbox = new InboxPage(page);
  await inbox.goto();
  await dropNextDecisionAnswer(page, 'before');
  await inbox.approve(runId);

  const notRecorded = page.locator(`[data-testid="decision-not-recorded"][data-run-id="${runId}"]`);
  await expect(notRecorded).toContainText(`Not recorded: your decision on issueRefund of ${runId} did not reach the journal`);
  await expect(notRecorded).toContainText('The run still waits for it: decide again below.');
  await expect(page.getByTestId('action-error')).toHaveCount(0);
  await inbox.approve(runId);
  await expect(inbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);
  await expect(notRecorded).toHaveCount(0);

  const run = new RunPage(page);
  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toContainText('Refunded 40 EUR for order o_17', { timeout: 15_000 });
  await expect(run.event('tool-approval-response')).toHaveCount(1);
  expect(await refundsPerformed(run)).toEqual({ requests: 1, performed: 1 });
});

test('decide from the run page: the inbox’s choices, the run completes, and the inbox open in another tab lets the card go', async ({ page, context }) => {
  const runId = await waitingRefund(page);
  const other = await context.newPage();
  const inbox = new InboxPage(other);
  await inbox.goto();
  await expect(inbox.item(runId, 'approval')).toBeVisible();
  await markDocument(other);

  const run = new RunPage(page);
  const call = page.locator('[data-testid="run-pending-call"][data-kind="approval"]');
  await expect(call).toContainText('issueRefund needs approval');
  await call.getByRole('button', { name: 'Approve' }).click();
  await call.getByRole('button', { name: 'Confirm approval' }).click();
  await expect(page.getByTestId('recent-decisions')).toContainText(`You approved issueRefund of ${runId}`);
  await expect(run.event('run-complete')).toContainText('Refunded 40 EUR for order o_17', { timeout: 15_000 });
  await expect(call).toHaveCount(0);
  await expect(run.event('tool-approval-response')).toContainText('Approved by alice');
  expect(await refundsPerformed(run)).toEqual({ requests: 1, performed: 1 });

  await expect(inbox.item(runId)).toHaveCount(0);
  expect(await sameDocument(other)).toBe(true);
});
