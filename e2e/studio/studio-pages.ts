/** Page objects for the Studio specs: what a person sees and clicks, named as they would name it. */
import { expect, type Locator, type Page } from '@playwright/test';

export class RunsPage {
  readonly rows: Locator;
  readonly journalNotice: Locator;
  readonly empty: Locator;
  readonly nextPage: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('run-row');
    this.journalNotice = page.getByTestId('journal-notice');
    this.empty = page.getByTestId('runs-empty');
    this.nextPage = page.getByRole('link', { name: 'Next page' });
  }

  async goto(query = '') {
    await this.page.goto(`/${query}`);
    await expect(this.page.getByRole('heading', { name: 'Runs', level: 1 })).toBeVisible();
  }

  row(runId: string): Locator {
    return this.page.locator(`[data-testid="run-row"][data-run-id="${cssString(runId)}"]`);
  }

  /** The run ids listed, top to bottom. */
  async runIds(): Promise<string[]> {
    return this.rows.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id') ?? ''));
  }

  /** Follows a status link and waits for the page it leads to (the link is then the current one). */
  async filterBy(label: string) {
    const link = this.page.getByRole('navigation', { name: 'Filter runs by status' }).getByRole('link', { name: label, exact: true });
    await link.click();
    await expect(link).toHaveAttribute('aria-current', 'page');
  }

  get searchForm(): Locator {
    return this.page.getByRole('form', { name: 'Search runs' });
  }

  /** Searches by run-id prefix, tool name or idempotency key, and waits for the page it leads to. */
  async search(text: string) {
    await this.searchForm.getByLabel('Run id prefix, tool name or idempotency key').fill(text);
    await this.searchForm.getByRole('button', { name: 'Search' }).click();
    await expect(this.page).toHaveURL(new RegExp(`[?&]q=${encodeURIComponent(text).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await expect(this.page.getByRole('heading', { name: 'Runs', level: 1 })).toBeVisible();
  }

  async filterAgent(agent: string) {
    await this.searchForm.getByLabel('Agent').selectOption(agent);
    await this.searchForm.getByRole('button', { name: 'Search' }).click();
    await expect(this.page).toHaveURL(new RegExp(`[?&]agent=${encodeURIComponent(agent)}(&|$)`));
  }

  async openRun(runId: string) {
    await this.row(runId).getByRole('link', { name: runId, exact: true }).click();
  }
}

export class RunPage {
  readonly runId: Locator;
  readonly summary: Locator;
  readonly events: Locator;
  /** The step being generated (shown while the run is running) and its text so far. */
  readonly liveStep: Locator;
  readonly liveText: Locator;

  constructor(readonly page: Page) {
    this.runId = page.getByTestId('run-id');
    this.summary = page.getByTestId('run-summary');
    this.events = page.getByTestId('run-event');
    this.liveStep = page.getByTestId('live-step');
    this.liveText = this.liveStep.locator('[data-slot="live-text"]');
  }

  get status(): Locator {
    return this.summary.locator('[data-slot="run-status-badge"]');
  }

  event(type: string): Locator {
    return this.page.locator(`[data-testid="run-event"][data-type="${cssString(type)}"]`);
  }

  async eventList(): Promise<{ seq: number; type: string }[]> {
    return this.events.evaluateAll((items) =>
      items.map((item) => ({ seq: Number(item.getAttribute('data-seq')), type: item.getAttribute('data-type') ?? '' })),
    );
  }
}

function cssString(value: string): string {
  return value.replace(/["\\]/g, '\\$&');
}

export class SignInPage {
  constructor(readonly page: Page) {}

  async signIn(login: string, password: string) {
    await this.page.getByLabel('Login').fill(login);
    await this.page.getByLabel('Password').fill(password);
    await this.page.getByRole('button', { name: 'Sign in' }).click();
  }

  get error(): Locator {
    return this.page.getByTestId('sign-in-error');
  }
}

export class DemoPage {
  constructor(readonly page: Page) {}

  /** Starts a demo run (optionally with a crash point) and returns its run id, once its page is open. */
  /** `check: false` unticks the Demo page's check (the run starts on the support agent without one); `fourEyes`, four eyes on refunds. */
  async start(options: { prompt?: string; crashAt?: string; check?: boolean; fourEyes?: boolean } = {}): Promise<string> {
    await this.page.goto('/demo');
    // A prompt typed before the form hydrated would be lost (the run would start on the default prompt).
    await expect(this.page.getByTestId('demo-form')).toHaveAttribute('data-hydrated', 'true');
    if (options.prompt !== undefined) {
      const prompt = this.page.getByLabel('What the customer asks');
      await prompt.fill(options.prompt);
      await expect(prompt).toHaveValue(options.prompt);
    }
    if (options.crashAt) await this.page.getByLabel(/Crash point/).selectOption(options.crashAt);
    if (options.check !== undefined) await this.page.getByTestId('demo-check').getByRole('checkbox').setChecked(options.check);
    if (options.fourEyes !== undefined) await this.page.getByTestId('demo-four-eyes').getByRole('checkbox').setChecked(options.fourEyes);
    await this.page.getByRole('button', { name: 'Start a demo run' }).click();
    await this.page.waitForURL(/\/runs\//);
    const runId = await this.page.getByTestId('run-id').textContent();
    if (!runId) throw new Error('no run id on the run page');
    return runId;
  }
}

export class InboxPage {
  readonly items: Locator;

  constructor(readonly page: Page) {
    this.items = page.getByTestId('inbox-item');
  }

  async goto() {
    await this.page.goto('/inbox');
    await expect(this.page.getByRole('heading', { name: 'Inbox', level: 1 })).toBeVisible();
  }

  item(runId: string, kind?: 'approval' | 'side-effect' | 'tool-result'): Locator {
    return this.page.locator(`[data-testid="inbox-item"][data-run-id="${cssString(runId)}"]${kind ? `[data-kind="${kind}"]` : ''}`);
  }

  /** Approve, then confirm (the button asks first, as the keyboard's shortcut does). */
  async approve(runId: string) {
    const item = this.item(runId, 'approval');
    await item.getByRole('button', { name: 'Approve' }).click();
    await item.getByRole('button', { name: 'Confirm approval' }).click();
  }

  async reject(runId: string, reason: string) {
    const item = this.item(runId, 'approval');
    await item.getByRole('button', { name: 'Reject…' }).click();
    await item.getByLabel(/Why not\?/).fill(reason);
    await item.getByRole('button', { name: 'Reject', exact: true }).click();
  }

  /** Opens "Mark done…" and fills the output (JSON text) and the reason; `submit` sends it. */
  async markDone(runId: string, output: string, reason: string) {
    const item = this.item(runId, 'side-effect');
    await item.getByRole('button', { name: 'Mark done…' }).click();
    await item.getByLabel(/What did .* return\?/).fill(output);
    await item.getByLabel(/Why\? \(required/).fill(reason);
    await item.getByRole('button', { name: 'Mark done', exact: true }).click();
  }

  get recentDecisions(): Locator {
    return this.page.getByTestId('recent-decisions');
  }
}

/** The timeline's events, as the page shows them, each { seq, type }. */
export async function timelineEvents(page: Page): Promise<{ seq: number; type: string }[]> {
  return page
    .getByTestId('run-event')
    .evaluateAll((items) => items.map((item) => ({ seq: Number(item.getAttribute('data-seq')), type: item.getAttribute('data-type') ?? '' })));
}
