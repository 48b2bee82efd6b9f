/**
 * The Studio's chat, in Chromium, against the built Studio and its real executor: each message is a
 * durable run streamed through the run's stream log.
 *   - A refund waits for approval in the inbox while the chat says so; approved in another tab, the chat
 *     goes on by itself to the answer. One refund, by the outside service's own counter.
 *   - The server is SIGKILLed mid-answer (the supervisor starts it again and its executor takes the run
 *     up); the page reconnects and shows the whole answer once, as a second tab opened mid-stream does.
 *     The ticket and the email were performed once each, by the service's counters.
 * Runs after the crash project, alone: it kills the server on purpose.
 */
import { execFileSync } from 'node:child_process';
import { expect, type Page, test } from '@playwright/test';
import { demoServiceUrl } from './auth-state';
import { encodeRunSegment, runHref } from '@/lib/studio/reads/run-path';
import { OPERATORS } from './seed-data';
import { InboxPage, RunPage } from './studio-pages';

// In order, in one worker: the second test kills the server the first one uses.
test.describe.configure({ mode: 'default' });

type Counts = Record<'tickets' | 'refunds' | 'emails', { performed: number }>;

async function serviceCounts(): Promise<Counts> {
  const stats = (await (await fetch(`${demoServiceUrl()}/stats`)).json()) as Record<string, { byKey: Record<string, { performed: number }> }>;
  const total = (kind: string) => Object.values(stats[kind]?.byKey ?? {}).reduce((sum, key) => sum + key.performed, 0);
  return { tickets: { performed: total('tickets') }, refunds: { performed: total('refunds') }, emails: { performed: total('emails') } };
}

/** Opens a new chat and sends `text`; resolves with the turn's run id (the POST's answer says it). */
async function startChat(page: Page, text: string): Promise<{ runId: string; url: string }> {
  await page.goto('/chat/new');
  await expect(page).toHaveURL(/\/chat\/[0-9a-f-]{36}$/);
  await page.getByTestId('chat-input').fill(text);
  const posted = page.waitForResponse((response) => response.url().endsWith('/api/chat') && response.request().method() === 'POST');
  await page.getByTestId('chat-send').click();
  const response = await posted;
  expect(response.status()).toBe(200);
  return { runId: decodeURIComponent(response.headers()['x-gnl-run-id'] ?? ''), url: page.url() };
}

const answer = (page: Page) => page.getByTestId('chat-message-assistant').last().getByTestId('chat-text').last();

/** The pid of this Studio's server (scripts/studio-server.mjs on this test's port), not the supervisor's. */
function serverPid(baseURL: string): number {
  const port = new URL(baseURL).port;
  const out = execFileSync('pgrep', ['-f', `studio-server.mjs --hostname 127.0.0.1 --port ${port}$`], { encoding: 'utf8' }).trim();
  const pids = out.split('\n').filter(Boolean).map(Number);
  expect(pids, `one server on port ${port}`).toHaveLength(1);
  return pids[0] as number;
}

test('a refund waits for approval while the chat says so; approved in the inbox, the chat goes on to the answer by itself', async ({ page, context }) => {
  test.setTimeout(90_000);
  const before = await serviceCounts();
  const { runId } = await startChat(page, 'Customer c_42 wants a refund of 40 for order o_17');
  // The turn's run records who sent it, as a run started from the Demo page does (its export's run-start).
  const exported = await page.evaluate(async (href) => (await fetch(href)).text(), `/api/runs/${encodeRunSegment(runId)}/export`);
  const start = exported
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type?: string; payload?: { by?: string } })
    .find((line) => line.type === 'run-start');
  expect(start?.payload?.by).toBe(OPERATORS.alice.login);
  const refund = page.locator('[data-testid="chat-tool"][data-tool="issueRefund"]');
  await expect(refund).toHaveAttribute('data-state', 'approval-requested', { timeout: 30_000 });
  await expect(page.getByTestId('chat-status')).toContainText('Waiting for a person: issueRefund', { timeout: 15_000 });
  await expect(page.getByTestId('chat-send')).toBeDisabled();
  expect((await serviceCounts()).refunds.performed).toBe(before.refunds.performed);

  const operator = await context.newPage();
  const inbox = new InboxPage(operator);
  await inbox.goto();
  await inbox.approve(runId);

  await expect(answer(page)).toContainText('Refunded 40', { timeout: 30_000 });
  await expect(refund).toHaveAttribute('data-state', 'output-available');
  // One assistant message for the turn: the replays rebuilt it, never added a second.
  await expect(page.getByTestId('chat-message-assistant')).toHaveCount(1);
  await expect(page.getByTestId('chat-send')).toBeDisabled(); // empty draft
  const after = await serviceCounts();
  expect(after.refunds.performed - before.refunds.performed).toBe(1);
  expect(after.emails.performed - before.emails.performed).toBe(1);
});

test('the server killed mid-answer: the page reconnects and shows the whole answer once, as a second tab opened mid-stream does', async ({
  page,
  context,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const before = await serviceCounts();
  // "slowly": the scripted model streams its answer a word a second, so it can be killed mid-answer.
  const { runId, url } = await startChat(page, 'Customer c_7 has a question about order o_21, answer slowly');
  await expect(answer(page)).toHaveText(/^\S+/, { timeout: 30_000 });
  const second = await context.newPage();
  await second.goto(url);
  await expect(answer(second)).toHaveText(/^\S+/, { timeout: 15_000 });
  const partial = (await answer(page).textContent()) ?? '';
  // Still mid-answer: the page says the agent is answering.
  await expect(page.getByTestId('chat-status')).toContainText('answering');

  process.kill(serverPid(baseURL as string), 'SIGKILL');

  // The page says it lost the connection, then has the answer, whole and once: the run's recorded text.
  await expect(page.getByTestId('chat-status')).toContainText('reconnecting', { timeout: 15_000 });
  await expect(page.getByTestId('chat-status')).toHaveText('', { timeout: 90_000 });
  const final = ((await answer(page).textContent()) ?? '').trim();
  expect(final.startsWith(partial.trim())).toBe(true);
  expect(final.length).toBeGreaterThan(partial.trim().length);
  const runPage = await context.newPage();
  await runPage.goto(runHref(runId));
  const run = new RunPage(runPage);
  await expect(run.event('run-complete')).toContainText(final);
  // Two invocations: the one killed mid-answer, and the one that took the run up after the restart.
  await expect(run.event('run-resume')).toHaveCount(2);
  for (const tab of [page, second]) {
    await expect(answer(tab)).toHaveText(final, { timeout: 30_000 });
    await expect(tab.getByTestId('chat-message-assistant')).toHaveCount(1);
    await expect(tab.getByTestId('chat-message-user')).toHaveCount(1);
  }
  // The second invocation replayed the ticket and the email: performed once each.
  const after = await serviceCounts();
  expect(after.tickets.performed - before.tickets.performed).toBe(1);
  expect(after.emails.performed - before.emails.performed).toBe(1);
});
