/**
 * The inbox: approvals and uncertain side effects across runs, decided by a signed-in operator whose
 * login the journal records. The demo runs execute in the Studio's server; the outside service's own
 * counters (read from it directly, by the run's idempotency keys) say what really happened.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { demoServiceUrl, storageStatePath } from './auth-state';
import { SEEDED } from './seed-data';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

interface KeyCount {
  requests: number;
  performed: number;
}
type Stats = Record<'tickets' | 'refunds' | 'emails', { byKey: Record<string, KeyCount> }>;

async function serviceStats(): Promise<Stats> {
  const res = await fetch(`${demoServiceUrl()}/stats`);
  return (await res.json()) as Stats;
}

/** The idempotency key of the run's call to `toolName`, as its timeline shows it. */
async function keyOf(run: RunPage, toolName: string): Promise<string> {
  const start = run.page.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: `${toolName} started` });
  return (await start.locator('[data-slot="idempotency-key"] code').textContent()) ?? '';
}

test('approve from the inbox: the run resumes in the server and completes, with one refund at the outside service', async ({ page }) => {
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });

  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(runId, 'approval');
  await expect(item).toContainText('issueRefund needs approval');
  await expect(item).toContainText('Customer c_42 wants a refund of 40 for order o_17');
  await expect(item.locator('[data-slot="inbox-last-steps"] li')).toHaveCount(3);
  await inbox.approve(runId);
  await expect(inbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);
  await expect(item).toHaveCount(0);

  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toContainText('Refunded 40 EUR for order o_17', { timeout: 15_000 });
  await expect(run.event('tool-approval-response')).toContainText('Approved by alice');
  // The Studio resumed the run in the approver's name, the approval its reason.
  await expect(run.event('run-resume-request')).toContainText('Resume requested by alice');
  await expect(run.event('run-resume-request')).toContainText('“after approving issueRefund (call-');
  const refundKey = await keyOf(run, 'issueRefund');
  const stats = await serviceStats();
  expect(stats.refunds.byKey[refundKey]).toEqual({ requests: 1, performed: 1 });
  expect(stats.emails.byKey[await keyOf(run, 'sendEmail')]).toEqual({ requests: 1, performed: 1 });
  await expect(page.getByTestId('run-demo-counters').locator(`[data-kind="refunds"] [data-slot="performed"]`)).toHaveText('1');
});

test('reject with a reason: the model sees it, apologises, and no refund is sent', async ({ page }) => {
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });

  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(runId, 'approval');
  await item.getByRole('button', { name: 'Reject…' }).click();
  await expect(item.getByRole('button', { name: 'Reject', exact: true })).toBeDisabled();
  await item.getByRole('button', { name: 'Back' }).click();
  await inbox.reject(runId, 'Order o_17 was already refunded by phone');
  await expect(inbox.recentDecisions).toContainText(`You rejected issueRefund of ${runId}`);

  await page.goto(runHref(runId));
  await expect(run.event('run-complete')).toContainText('not approved: Order o_17 was already refunded by phone; apology sent', { timeout: 15_000 });
  const answer = run.event('tool-approval-response');
  await expect(answer).toContainText('Rejected by alice');
  await expect(answer).toContainText('“Order o_17 was already refunded by phone”');
  await expect(page.locator('[data-testid="run-event"][data-type="tool-call-start"]').filter({ hasText: 'issueRefund' })).toHaveCount(0);
  const stats = await serviceStats();
  expect(stats.emails.byKey[await keyOf(run, 'sendEmail')]).toEqual({ requests: 1, performed: 1 });
});

test('a viewer reads the inbox but may not decide nor start a chat turn: refused as not allowed, nothing recorded; an approver then decides', async ({
  page,
  browser,
}) => {
  const runId = await new DemoPage(page).start();
  await expect(new RunPage(page).event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  const vera = await (await browser.newContext({ storageState: storageStatePath('vera') })).newPage();
  const veraInbox = new InboxPage(vera);
  await veraInbox.goto();
  await expect(veraInbox.item(runId, 'approval')).toContainText('issueRefund needs approval');
  await veraInbox.approve(runId);
  await expect(vera.getByTestId('action-forbidden')).toContainText('vera (role viewer) may not decide');
  await expect(veraInbox.item(runId, 'approval')).toHaveCount(1);
  // Nor start a run another way: a chat turn (a run of the support agent) is refused too, and none is made.
  const conversationId = crypto.randomUUID();
  const sent = await vera.evaluate(async (id) => {
    const message = { id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Refund order o_17, please.' }] };
    const answer = await fetch('/api/chat', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id, message }) });
    return { status: answer.status, body: await answer.json() };
  }, conversationId);
  expect(sent.status).toBe(403);
  expect(sent.body.error).toContain('vera (role viewer) may not start');
  const turns = await vera.evaluate(async (id) => (await fetch(`/api/chat/${id}`)).json(), conversationId);
  expect(turns).toEqual({ turns: [] });
  await vera.context().close();

  const inbox = new InboxPage(page);
  await inbox.goto();
  await inbox.approve(runId);
  await expect(inbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);
  const run = new RunPage(page);
  await page.goto(runHref(runId));
  await expect(run.event('tool-approval-response')).toHaveCount(1);
  await expect(run.event('tool-approval-response')).toContainText('Approved by alice');
});

test('two operators approving at once make one decision; the other is told who decided first', async ({ page, browser }) => {
  // A run, two signed-in tabs racing and both told: more than the default on a loaded machine.
  test.setTimeout(60_000);
  const runId = await new DemoPage(page).start();
  await expect(new RunPage(page).event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  const bob = await (await browser.newContext({ storageState: storageStatePath('bob') })).newPage();
  const [aliceInbox, bobInbox] = [new InboxPage(page), new InboxPage(bob)];
  await Promise.all([aliceInbox.goto(), bobInbox.goto()]);
  const items = [aliceInbox, bobInbox].map((inbox) => inbox.item(runId, 'approval'));
  await Promise.all(items.map((item) => expect(item.getByRole('button', { name: 'Approve' })).toBeEnabled()));
  // Approve asks first: both operators are at the question, then both confirm at once.
  await Promise.all(items.map((item) => item.getByRole('button', { name: 'Approve' }).click()));
  // The second click may find no card: the first decision makes it leave every tab at once. Either way
  // that operator is told who decided: refused by the journal (action-conflict), or told as the card left.
  await Promise.all(
    items.map((item) =>
      item
        .getByRole('button', { name: 'Confirm approval' })
        .click({ timeout: 5_000 })
        .catch(async (error: unknown) => {
          if ((await item.count()) > 0) throw error;
        }),
    ),
  );

  const outcomes = await Promise.all(
    [page, bob].map(async (p) => {
      const won = p.getByTestId('recent-decisions');
      const lost = p.getByTestId('action-conflict').or(p.getByTestId('decided-elsewhere').filter({ hasText: 'Already approved' }));
      await expect(won.or(lost)).toBeVisible();
      return (await won.isVisible()) ? 'won' : ((await lost.textContent()) ?? '');
    }),
  );
  expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
  const loser = outcomes.find((o) => o !== 'won') ?? '';
  expect(loser).toMatch(/^Already approved by (alice|bob), \d+ s ago/);
  await bob.context().close();
});

test('a blocked side effect is marked done with checked JSON output and a required reason', async ({ page }) => {
  const { blocked } = SEEDED;
  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(blocked.runId, 'side-effect');
  await expect(item).toContainText('refund may or may not have happened');
  const evidence = item.locator('[data-slot="side-effect-evidence"]');
  await expect(evidence).toContainText('Idempotency key');
  await expect(evidence).toContainText('attempt 1');

  await inbox.markDone(blocked.runId, '{ "refundId": r_o_19 }', 'PSP dashboard shows refund r_o_19');
  // Named by the form itself, beside the field, before anything is sent.
  await expect(item.locator('[data-slot="field-problems"]')).toContainText('Not valid JSON');
  await item.getByLabel(/What did .* return\?/).fill('{ "refundId": "r_o_19", "amount": 40 }');
  await item.getByLabel(/Why\? \(required/).fill('   ');
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(item.getByTestId('action-invalid')).toContainText('Say why');
  await item.getByLabel(/Why\? \(required/).fill('PSP dashboard shows refund r_o_19');
  await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  await expect(inbox.recentDecisions).toContainText(`You marked done refund of ${blocked.runId}`);
  // This seeded run was started by runDurable directly, not by a registered agent: the Studio records
  // the decision but cannot resume it, and says so.
  await expect(inbox.recentDecisions).toContainText('not started by a registered agent');

  await page.goto(runHref(blocked.runId));
  // Before resuming, the run page says what a resume would execute: nothing again, the refund is settled.
  const preview = page.getByTestId('resume-preview');
  await expect(preview).toContainText('Resuming executes no tool call again');
  await expect(preview.locator('[data-testid="resume-preview-call"][data-tool="refund"]')).toHaveAttribute('data-action', 'not-run');
  await expect(preview).toContainText('refund does not run — marked done by alice');
  const resolution = new RunPage(page).event('side-effect-resolution');
  await expect(resolution).toContainText('Marked done by alice');
  await expect(resolution).toContainText('“PSP dashboard shows refund r_o_19”');
  await expect(resolution).toContainText('"refundId": "r_o_19"');
});

test('cancel with a reason: refused with a visible error while signed out; then the run stops, the journal says who and why, and the inbox lets it go', async ({
  page,
}) => {
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  await page.getByRole('button', { name: 'Cancel…' }).click();
  await page.getByLabel(/Why cancel\?/).fill('Customer withdrew the request');
  // Signed out meanwhile (the cookie gone): the action is refused by the proxy, and the form says so.
  const cookies = await page.context().cookies();
  await page.context().clearCookies();
  await page.getByRole('button', { name: 'Cancel the run' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'The Studio did not answer this' })).toBeVisible();
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).not.toHaveText('canceled');
  await page.context().addCookies(cookies);
  await page.getByRole('button', { name: 'Cancel the run' }).click();
  await expect(run.event('run-cancel')).toContainText('Canceled by alice');
  await expect(run.event('run-cancel')).toContainText('“Customer withdrew the request”');
  await expect(run.summary.locator('[data-slot="run-status-badge"]')).toHaveText('canceled');
  const inbox = new InboxPage(page);
  await inbox.goto();
  await expect(inbox.item(runId)).toHaveCount(0);
});

test('keyboard: j/k move through the inbox, a asks to approve (as the button does) and Enter confirms, ? lists the keys', async ({ page }) => {
  const runId = await new DemoPage(page).start();
  await expect(new RunPage(page).event('run-suspend')).toHaveCount(1, { timeout: 15_000 });
  const inbox = new InboxPage(page);
  await inbox.goto();
  // The keys work once the page has hydrated: a key pressed before goes nowhere.
  await expect(page.locator('html[data-keyboard-shortcuts="on"]')).toHaveCount(1);
  await page.keyboard.press('?');
  await expect(page.getByTestId('key-help')).toContainText('Approve (asks first)');
  await page.keyboard.press('?');
  await expect(page.getByTestId('key-help')).toBeHidden();

  const target = inbox.item(runId, 'approval');
  await expect(target).toBeVisible();
  for (let moves = 0; moves < 50 && !(await target.evaluate((el) => el.hasAttribute('data-keynav-focused'))); moves++) await page.keyboard.press('j');
  await expect(target).toHaveAttribute('data-keynav-focused', '');
  await page.keyboard.press('k');
  await page.keyboard.press('j');
  await expect(target).toHaveAttribute('data-keynav-focused', '');

  await page.keyboard.press('a');
  await expect(target.getByTestId('confirm-step')).toContainText('Approve issueRefund? The run goes on with it. Enter confirms, Escape cancels.');
  await page.keyboard.press('Escape');
  await expect(target.getByTestId('confirm-step')).toBeHidden();
  await target.focus();
  await page.keyboard.press('a');
  await page.keyboard.press('Enter');
  await expect(inbox.recentDecisions).toContainText(`You approved issueRefund of ${runId}`);
});
