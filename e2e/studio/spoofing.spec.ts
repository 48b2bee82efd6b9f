/**
 * An operator sees what will execute (project `long`, whose journal holds the runs of
 * tests/support/spoofed-text.ts, seeded by seed-long.ts): in real Chromium, every place that shows a
 * run's untrusted text (tool arguments and outputs, the goal, run ids in headings, lists, links and the
 * page title, model text, an operator's name and reason, the journal record, the inbox card and the
 * runs list) shows each bidi control, zero-width and other hidden character as its code point
 * (⟨U+202E⟩), and no such character reaches the rendered text. The inbox card and the run page say
 * so above the decision, and Approve still decides.
 */
import { expect, type Locator, type Page, test } from '@playwright/test';
import { runHref } from '@/lib/studio/reads/run-path';
import { SPOOFED, SPOOFED_CODE_POINTS, SPOOFED_RUNS } from '@/tests/support/spoofed-text';
import { LONG } from './seed-data';
import { InboxPage, SignInPage } from './studio-pages';

const WAITING = SPOOFED_RUNS.waiting;
const COMPLETED = SPOOFED_RUNS.completed;

/**
 * The arguments as pretty JSON show each entry as `"key": "marked"`, except where JSON escapes first:
 * C0 controls are JSON's own `\u0007`, `\u001b`, `\r` there (visible as they are), DEL and C1 stay marked.
 */
const ARGUMENT_LINES = SPOOFED.map((entry) =>
  entry.key === 'controls' ? String.raw`"controls": "bell\u0007 esc\u001b[2J cr\r del⟨U+007F⟩ csi⟨U+009B⟩31m"` : `"${entry.key}": "${entry.marked}"`,
);
/** What the warning counts in the arguments: every hidden character of the table but the three JSON escapes. */
const ARGUMENT_HIDDEN = SPOOFED.reduce((n, entry) => n + entry.codes.length, 0) - 3;

test.beforeEach(async ({ page }) => {
  await page.goto('/sign-in');
  await new SignInPage(page).signIn(LONG.operator.login, LONG.operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(LONG.operator.name);
});

/** Opens what starts collapsed (long payloads, journal records), then reads the text as rendered, and the title. */
async function renderedText(page: Page): Promise<{ body: string; title: string }> {
  // Hydrated (a click before would do nothing): the page's live stream is open.
  await expect(page.locator('[data-stream]').first()).toHaveAttribute('data-stream', 'live');
  // Each click turns its button into "Show less": open the first one left until none is.
  const showAll = page.getByRole('button', { name: /^Show all \d+ lines/ });
  for (let left = await showAll.count(); left > 0; left = await showAll.count()) {
    await showAll.first().click();
    await expect(showAll).toHaveCount(left - 1);
  }
  await page.evaluate(() => {
    for (const details of document.querySelectorAll('details')) details.open = true;
    // The timeline skips rendering events out of view (content-visibility: auto), and innerText with them: render all, as scrolling would.
    for (const event of document.querySelectorAll<HTMLElement>('[data-testid="run-event"]')) event.style.contentVisibility = 'visible';
  });
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is asserted
  return page.evaluate(() => ({ body: document.body.innerText, title: document.title }));
}

/** No hidden character of the table is in the rendered text or the title, as itself. */
function expectNoneRaw(shown: { body: string; title: string }, where: string) {
  for (const [what, text] of Object.entries(shown)) {
    const raw = SPOOFED_CODE_POINTS.filter((codePoint) => text.includes(String.fromCodePoint(codePoint)));
    expect(
      raw.map((c) => `U+${c.toString(16).toUpperCase()}`),
      `${where}: ${what}`,
    ).toEqual([]);
  }
}

/** A part of the page's text as rendered (innerText: what a person sees, not the DOM's text nodes). */
// biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what is asserted
const shownIn = (locator: Locator) => locator.innerText();

function expectAll(text: string, expected: readonly string[], where: string) {
  for (const line of expected) expect(text, `${where} shows ${JSON.stringify(line)}`).toContain(line);
}

test('the inbox card marks every hidden character of the run id, goal, model text and arguments, and warns above Approve', async ({ page }) => {
  // Before the decision (the other tests read what stays after it): the run page's decision area warns too.
  await page.goto(runHref(WAITING.runId));
  await expect(page.getByTestId('run-actions').getByTestId('hidden-chars-warning')).toContainText(
    `Its arguments hold ${ARGUMENT_HIDDEN} invisible or direction-changing characters`,
  );

  const inbox = new InboxPage(page);
  await inbox.goto();
  const card = inbox.item(WAITING.runId, 'approval');
  await expect(card).toBeVisible();
  const shown = await renderedText(page);
  expectNoneRaw(shown, 'inbox');
  const cardText = await shownIn(card);
  expect(cardText).toContain(WAITING.marked);
  // The goal (every line of the table) and the arguments (one JSON line per entry).
  expectAll(cardText, ['Pay these:', ...SPOOFED.map((entry) => entry.marked)], 'the goal');
  expectAll(cardText, ARGUMENT_LINES, 'the arguments');
  // The last step's text, cut at 200 characters: its first line is the IBAN.
  await expect(card.locator('[data-slot="inbox-last-steps"]')).toContainText(`: ${SPOOFED[0]?.marked}`);
  await expect(card.locator('[data-slot="hidden-char"]').first()).toHaveText(/^⟨U\+[0-9A-F]{4,6}⟩$/);
  expect(await card.getAttribute('data-keynav-label')).toBe(`transfer of ${WAITING.marked}`);

  const warning = card.getByTestId('hidden-chars-warning');
  await expect(warning).toContainText(
    new RegExp(
      `These arguments hold ${ARGUMENT_HIDDEN} invisible or direction-changing characters \\((U\\+[0-9A-F]{4,6}, ){8}and \\d+ more\\): shown marked below\\.`,
    ),
  );
  await expect(warning).toContainText('U+202E');
  // Above the arguments, and so above the buttons.
  const [warningBox, approveBox] = await Promise.all([warning.boundingBox(), card.getByRole('button', { name: 'Approve' }).boundingBox()]);
  expect(warningBox && approveBox && warningBox.y + warningBox.height <= approveBox.y).toBe(true);

  // The buttons still decide: the decision is recorded and named with the run's marked id.
  await inbox.approve(WAITING.runId);
  await expect(inbox.recentDecisions).toContainText(`You approved transfer of ${WAITING.marked}.`);
  expectNoneRaw(await renderedText(page), 'inbox after approving');
  await page.goto(runHref(WAITING.runId));
  await expect(page.getByTestId('run-summary')).toContainText(`approved by ${LONG.operator.login}`);
});

test('the run page marks them in the title, heading, goal, model text, arguments and journal record, and warns above the decision', async ({ page }) => {
  await page.goto(runHref(WAITING.runId));
  await expect(page.getByTestId('run-id')).toHaveText(WAITING.marked);
  await expect(page).toHaveTitle(new RegExp(`^${WAITING.marked.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  const shown = await renderedText(page);
  expectNoneRaw(shown, 'waiting run page');
  expect(shown.title).toContain(WAITING.marked);
  const events = page.getByTestId('run-events');
  const start = events.locator('[data-type="run-start"]');
  expectAll(await shownIn(start), ['Pay these:', ...SPOOFED.map((entry) => entry.marked)], 'the prompt');
  const step = events.locator('[data-type="model-step"]').first();
  expectAll(
    await shownIn(step.locator('[data-slot="step-text"]')),
    SPOOFED.map((entry) => entry.marked),
    'the model text',
  );
  expectAll(await shownIn(step.locator('[data-slot="step-tool-call"]')), ARGUMENT_LINES, 'the call in the step');
  const request = events.locator('[data-type="tool-approval-request"]');
  expectAll(await shownIn(request), ARGUMENT_LINES, 'the approval request');
  await expect(request.getByTestId('hidden-chars-warning')).toContainText(`These arguments hold ${ARGUMENT_HIDDEN} invisible or direction-changing characters`);
  // The journal record: JSON of the whole event, the same marks.
  expectAll(await shownIn(request.locator('[data-slot="raw-record"]')), ARGUMENT_LINES, 'the journal record');
  // The summary's prompt (JSON of the string).
  await expect(page.getByTestId('run-summary')).toContainText('⟨U+202E⟩1234 5678 90⟨U+202C⟩');
});

test('a rejected call and its answer: who rejected, why, the verdict in the step, the answer and the tool output are marked', async ({ page }) => {
  await page.goto(runHref(COMPLETED.runId));
  await expect(page.getByTestId('run-id')).toHaveText(COMPLETED.marked);
  const shown = await renderedText(page);
  expectNoneRaw(shown, 'completed run page');
  expect(shown.title).toContain(COMPLETED.marked);
  const events = page.getByTestId('run-events');
  const response = events.locator('[data-type="tool-approval-response"]');
  await expect(response).toContainText(`Rejected by ${SPOOFED_RUNS.rejectedByMarked}`);
  await expect(response).toContainText(`“${SPOOFED_RUNS.reasonMarked}”`);
  await expect(events.locator('[data-slot="call-outcome"]').first()).toContainText(`rejected by ${SPOOFED_RUNS.rejectedByMarked}`);
  expectAll(
    await shownIn(events.locator('[data-slot="final-text"]')),
    SPOOFED.map((entry) => entry.marked),
    'the answer',
  );
  await expect(page.locator('[data-slot="hidden-char"][title="RIGHT-TO-LEFT OVERRIDE"]').first()).toHaveText('⟨U+202E⟩');
});

test('the runs list and a search for a hidden character show the run ids marked', async ({ page }) => {
  await page.goto('/');
  for (const run of [WAITING, COMPLETED]) {
    await expect(page.locator('[data-testid="run-row"]').filter({ hasText: run.marked }).getByRole('link')).toHaveText(run.marked);
  }
  expectNoneRaw(await renderedText(page), 'runs list');

  const prefix = 'spoofing:waiting \u202E';
  await page.goto(`/?q=${encodeURIComponent(prefix)}`);
  await expect(page.getByText('matching “spoofing:waiting ⟨U+202E⟩”')).toBeVisible();
  await expect(page.getByTestId('run-row')).toHaveCount(1);
  await expect(page.getByTestId('run-row').getByRole('link')).toHaveText(WAITING.marked);
  expectNoneRaw(await renderedText(page), 'runs search');
});
