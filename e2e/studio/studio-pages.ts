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

  async filterBy(label: string) {
    await this.page.getByRole('navigation', { name: 'Filter runs by status' }).getByRole('link', { name: label, exact: true }).click();
  }

  async openRun(runId: string) {
    await this.row(runId).getByRole('link', { name: runId, exact: true }).click();
  }
}

export class RunPage {
  readonly runId: Locator;
  readonly summary: Locator;
  readonly events: Locator;

  constructor(readonly page: Page) {
    this.runId = page.getByTestId('run-id');
    this.summary = page.getByTestId('run-summary');
    this.events = page.getByTestId('run-event');
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
