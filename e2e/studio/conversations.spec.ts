/**
 * A chat in the Studio: each user turn a run of its own (the seed's CONVERSATION, three turns, the last
 * waiting for approval of its refund). The run page names its turn and conversation, the conversation
 * page shows the thread in order, the inbox card names the conversation that waits. Reads only.
 */
import { test as base, expect, type Page } from '@playwright/test';
import { conversationHref } from '@/lib/studio/reads/conversation-path';
import { runHref } from '@/lib/studio/reads/run-path';
import { CONVERSATION, HTML_PAYLOAD } from './seed-data';
import { InboxPage, RunPage } from './studio-pages';

const { conversationId, turns, tool } = CONVERSATION;
const waiting = turns[2];

// Nothing the journal holds may run as script here: any dialog or page error fails the test.
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

const turnCards = (page: Page) => page.getByTestId('conversation-turn');

async function expectThread(page: Page) {
  await expect(page.getByTestId('conversation-id')).toHaveText(conversationId);
  const cards = turnCards(page);
  await expect(cards).toHaveCount(turns.length);
  expect(await cards.evaluateAll((items) => items.map((item) => [item.getAttribute('data-turn'), item.getAttribute('data-run-id')]))).toEqual(
    turns.map((turn, i) => [String(i + 1), turn.runId]),
  );
  for (const [i, turn] of turns.entries()) {
    const card = cards.nth(i);
    await expect(card.locator('h2')).toHaveText(`Turn ${i + 1}`);
    await expect(card.locator('[data-slot="run-status-badge"]')).toHaveText(turn.status);
    await expect(card.locator('[data-slot="turn-user"]')).toContainText(turn.user);
    if (turn.answer) await expect(card.locator('[data-slot="turn-answer"]')).toContainText(turn.answer);
  }
  const waits = cards.nth(2).locator('[data-slot="turn-waits"] li');
  await expect(waits).toHaveCount(1);
  // Arguments as the journal returns them (jsonb orders an object's keys).
  await expect(waits).toContainText(`Waiting for approval: ${tool} {"amount":40,"orderId":"o_20"}`);
  await expect(waits.getByRole('link', { name: 'Decide in the inbox' })).toHaveAttribute('href', '/inbox');
  // The HTML in the second message is text on the page, never an element.
  await expect(cards.nth(1).locator('[data-slot="turn-user"]')).toContainText(HTML_PAYLOAD);
  await expect(page.locator('main img')).toHaveCount(0);
}

test('the run page of a turn links to its conversation, whose page shows the turns in order with their texts', async ({ page }) => {
  await page.goto(runHref(turns[1].runId));
  const run = new RunPage(page);
  await expect(run.runId).toHaveText(turns[1].runId);
  const place = page.getByTestId('run-conversation');
  await expect(place).toHaveText(`Turn 2 of conversation ${conversationId}`);

  await place.getByRole('link', { name: conversationId }).click();
  await expect(page).toHaveURL(new RegExp(`${conversationHref(conversationId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
  await expectThread(page);

  // A full load of the same URL (Next decodes the segment then, unlike on client navigation) shows the same thread.
  await page.reload();
  await expectThread(page);

  // Each turn links to its run.
  await turnCards(page).nth(2).locator('[data-slot="turn-run-link"]').click();
  await expect(run.runId).toHaveText(waiting.runId);
  await expect(page.getByTestId('run-conversation')).toHaveText(`Turn 3 of conversation ${conversationId}`);
});

test('the inbox card of the waiting turn names its conversation, linked to the thread', async ({ page }) => {
  const inbox = new InboxPage(page);
  await inbox.goto();
  const item = inbox.item(waiting.runId, 'approval');
  await expect(item).toContainText(`${tool} needs approval`);
  const named = item.locator('[data-slot="inbox-conversation"]');
  await expect(named).toHaveText(`turn of conversation ${conversationId}`);
  await named.getByRole('link', { name: conversationId }).click();
  await expectThread(page);
});

test('a conversation no run belongs to is a 404 page', async ({ page }) => {
  const response = await page.goto(conversationHref('no such conversation'));
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'Not found' })).toBeVisible();
});
