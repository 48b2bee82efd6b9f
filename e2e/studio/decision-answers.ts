/**
 * Losing a decision's answer on purpose: the page's next server-action POST (a decision) either never
 * reaches the Studio (`before`: nothing is recorded) or reaches it and its answer is dropped on the way
 * back (`after`: recorded, or cut off by the server dying mid-request, as a crash point does). Either
 * way the browser sees what a dropped network sees: no answer.
 */
import type { Page } from '@playwright/test';

/** `where`: the page's own URL (a server action posts to it), as a glob; the inbox by default. */
export async function dropNextDecisionAnswer(page: Page, when: 'before' | 'after', where = '**/inbox'): Promise<void> {
  let dropped = false;
  await page.route(where, async (route) => {
    const request = route.request();
    if (dropped || request.method() !== 'POST' || !request.headers()['next-action']) return route.fallback();
    dropped = true;
    if (when === 'after') await route.fetch({ timeout: 60_000 }).catch(() => undefined);
    await route.abort('connectionreset');
  });
}
