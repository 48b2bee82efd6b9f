/**
 * The live step: while a run is running its page shows the step being generated, word by word, from
 * the run's stream (GET /api/runs/<run>/stream), before the journal has it; once the run completes the
 * live step is gone and the journal holds the whole answer. Asked to answer "slowly", the demo model
 * streams 200 ms a word (lib/demo/scripted-support-model.ts), so a part of the answer is seen.
 */
import { expect, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { DemoPage, RunPage } from './studio-pages';

// The scripted support model's answer to a request that names no customer (lib/demo/support-script.ts): one step, text only.
const PROMPT = 'Hello, my parcel never arrived. Please answer slowly.';
const ANSWER = 'Which customer is this about? Please give me the customer id (like c_42).';

test('a running run shows the step being generated, a strict prefix of its answer, then the whole answer in the journal once it completes', async ({
  page,
}) => {
  const runId = await new DemoPage(page).start({ prompt: PROMPT });
  const run = new RunPage(page);

  // Read in one look, so both are of the same moment: the badge still says running while the live text
  // is a part of the answer (a strict prefix: never a word the answer does not have, not yet all of it).
  const look = () =>
    page.evaluate(() => ({
      status: document.querySelector('[data-testid="run-summary"] [data-slot="run-status-badge"]')?.textContent ?? '',
      text: (document.querySelector('[data-testid="live-step"] [data-slot="live-text"]')?.textContent ?? '').replace(/▍$/, ''),
      state: document.querySelector('[data-testid="live-step"]')?.getAttribute('data-state') ?? '',
    }));
  await expect
    .poll(
      async () => {
        const now = await look();
        const partial =
          now.status === 'running' && now.state === 'generating' && now.text.length > 0 && now.text.length < ANSWER.length && ANSWER.startsWith(now.text);
        return partial ? 'a part of the answer, while running' : JSON.stringify(now);
      },
      { timeout: 15_000, intervals: [50] },
    )
    .toBe('a part of the answer, while running');
  await expect(run.liveStep.getByRole('heading', { name: 'Generating now' })).toBeVisible();
  await expect(run.liveText).toHaveAttribute('aria-live', 'polite');

  await expect(run.status).toHaveText('completed', { timeout: 15_000 });
  await expect(run.liveStep).toHaveCount(0);
  await expect(run.event('model-step').locator('[data-slot="step-text"]')).toHaveText(ANSWER);
  await expect(run.event('run-complete')).toHaveCount(1);

  // The route answers for the run, and refuses what names no run.
  expect((await page.request.get(`/api${runHref(runId)}/stream`)).status()).toBe(200);
  expect((await page.request.get('/api/runs/~ZZ/stream')).status()).toBe(404);
});
