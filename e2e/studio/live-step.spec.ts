/**
 * The live step: while a run is running its page shows the step being generated, word by word, from
 * the run's stream (GET /api/runs/<run>/stream), before the journal has it; once the run completes the
 * live step is gone and the journal holds the whole answer. Asked to answer "slowly", the demo model
 * streams a word a second (SLOW_WORD_MS, lib/demo/scripted-support-model.ts), so a part of the answer is seen. The
 * answer watched is the one after an approval: the page is open and settled before it starts, and it
 * comes from the invocation that resumed the run (the page follows the next stream, not the one before).
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { DemoPage, InboxPage, RunPage } from './studio-pages';

const PROMPT = 'Customer c_42 wants a refund of 40 for order o_17, answer slowly';

test('a running run shows the step being generated, a strict prefix of its answer, then the whole answer in the journal once it completes', async ({
  page,
}) => {
  // The answer streams a word a second after an approval in a second tab: more than the default on a loaded machine.
  test.setTimeout(90_000);
  const runId = await new DemoPage(page).start({ prompt: PROMPT });
  const run = new RunPage(page);
  await expect(run.status).toHaveText('waiting-approval', { timeout: 20_000 });
  await expect(run.liveStep).toHaveCount(0);

  const inbox = new InboxPage(await page.context().newPage());
  await inbox.goto();
  await inbox.approve(runId);

  // Read in one look, so both are of the same moment: the badge still says running while the live step
  // is generating and shows the answer's first words (a few of them: the whole answer has more).
  const look = () =>
    page.evaluate(() => ({
      status: document.querySelector('[data-testid="run-summary"] [data-slot="run-status-badge"]')?.textContent ?? '',
      state: document.querySelector('[data-testid="live-step"]')?.getAttribute('data-state') ?? '',
      text: (document.querySelector('[data-testid="live-step"] [data-slot="live-text"]')?.textContent ?? '').replace(/▍$/, ''),
    }));
  // What the page showed, each change once: a failure says whether it ever ran, streamed or settled.
  const looks: string[] = [];
  let seen = '';
  await expect
    .poll(
      async () => {
        const now = await look();
        const shown = JSON.stringify(now);
        if (looks[looks.length - 1] !== shown) looks.push(shown);
        // A part of the answer: some words while the step is still generating (the finish not yet streamed).
        if (now.status === 'running' && now.state === 'generating' && now.text.trim().length > 0) {
          seen = now.text;
          return 'a part of the answer, while running';
        }
        return `not yet; the page showed, in order: ${looks.slice(-12).join(' → ')}`;
      },
      { timeout: 30_000, intervals: [50] },
    )
    .toBe('a part of the answer, while running');
  await expect(run.liveStep.getByRole('heading', { name: 'Generating now' })).toBeVisible();
  await expect(run.liveText).toHaveAttribute('aria-live', 'polite');

  await expect(run.status).toHaveText('completed', { timeout: 30_000 });
  await expect(run.liveStep).toHaveCount(0);
  // The answer as the journal recorded it (run-complete), and as the page's last model step shows it.
  const events = (await (await page.request.get(`/api${runHref(runId)}/chunks/0`)).json()) as { type: string; text?: string }[];
  const final = events.find((event) => event.type === 'run-complete')?.text ?? '';
  expect(final).toMatch(/^Refunded 40 /);
  expect(final.startsWith(seen.trim())).toBe(true);
  expect(seen.trim().length).toBeLessThan(final.length);
  await expect(run.event('model-step').last().locator('[data-slot="step-text"]')).toContainText(final);
  await expect(run.event('run-complete').locator('[data-slot="final-text"]')).toContainText(final);

  // The route answers for the run (its finished stream, replayed), and refuses what names no run.
  expect((await page.request.get(`/api${runHref(runId)}/stream`)).status()).toBe(200);
  expect((await page.request.get('/api/runs/~ZZ/stream')).status()).toBe(404);
  await inbox.page.close();
});
