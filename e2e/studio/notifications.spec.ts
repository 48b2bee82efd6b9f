/**
 * Being told (issue 16), on the run page: the Studio of project `versions` sends its webhooks to its own
 * demo service, which refuses each event's first delivery (503). A demo run that waits for approval shows
 * its notification on its page, delivered after the retry (2 attempts), without a reload. The receiver's own counter says what arrived: two deliveries of the one
 * event id, one accepted, signed.
 */
import { expect, test } from '@playwright/test';
import { DemoPage, RunPage, SignInPage } from './studio-pages';
import { VERSIONS } from './versions-data';

type Receipt = { eventId: string; runId: string; status: string; deliveries: number; accepted: number; signed: boolean };

async function received(runId: string): Promise<Receipt[]> {
  const res = await fetch(`http://127.0.0.1:${process.env.GNL_E2E_VERSIONS_DEMO_PORT}/webhooks`);
  return ((await res.json()) as Receipt[]).filter((r) => r.runId === runId);
}

test('a waiting run’s webhook shows on its page, delivered on its second attempt, live; the receiver counts one event, delivered twice, accepted once', async ({
  page,
}) => {
  // A first delivery refused, a retry after its backoff (up to 10 s with jitter): more than the default.
  test.setTimeout(120_000);
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(VERSIONS.operator.login, VERSIONS.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(VERSIONS.operator.name);
  const runId = await new DemoPage(page).start();
  const run = new RunPage(page);
  await expect(run.event('run-suspend')).toHaveCount(1, { timeout: 30_000 });
  await page.evaluate(() => {
    (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
  });

  const notification = page.getByTestId('run-notification');
  await expect(notification).toHaveCount(1, { timeout: 30_000 });
  // Pending in between (its retry's jitter may be near zero, so that moment is not asserted).
  await expect(notification).toHaveAttribute('data-delivery', 'delivered', { timeout: 60_000 });
  await expect(notification).toContainText('2 attempts');
  expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);

  const receipts = await received(runId);
  expect(receipts).toHaveLength(1);
  expect(receipts[0]).toMatchObject({ status: 'waiting-approval', deliveries: 2, accepted: 1, signed: true });
  await expect(notification).toContainText(receipts[0]?.eventId ?? 'no event id');
});
