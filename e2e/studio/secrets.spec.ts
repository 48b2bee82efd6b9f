/**
 * Secrets never reach the browser, on a journal that encrypts them. The test seeds a fresh embedded
 * journal with GNL_JOURNAL_KEY (a run whose tool arguments hold an apiKey, waiting for approval, so the
 * key is in the model step's arguments string, the approval request and the run's pending call), then
 * starts a Studio of its own on it with the same key (scripts/studio.mjs, the shared build) and checks in
 * Chromium: the timeline and the inbox show "•••• redacted", and neither the page source nor the run's
 * JSON routes hold the key or its encrypted envelope. (That the runtime gets the real key back:
 * lib/durable/storage/secrets.test.ts.) Run keys are on (GNL_RUN_KEYS): every run's data is sealed with a
 * key of its own, and a completed run is erased from its page (docs/erasure.md; that its bytes are gone
 * from the database: lib/durable/storage/erasure.test.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { tool } from 'ai';
import { z } from 'zod';
import { gnlTool, REDACTED, runDurable } from '@/lib/durable';
import { PGliteStorage, secretsFromEnv } from '@/lib/durable/storage';
import { encodeRunSegment } from '@/lib/studio/reads/run-path';
import { scriptedModel } from '@/tests/support/scripted-model';
import { InboxPage, RunPage, SignInPage } from './studio-pages';

const API_KEY = 'sk-proj-E2eXq81mN0pLkR7sT2vW9xY4bC6dE3fG5h';
const GNL_JOURNAL_KEY = randomBytes(32).toString('base64');
// A Studio of its own, on a free port playwright.config.ts picked.
const port = Number(process.env.GNL_E2E_SECRETS_PORT);
const origin = `http://127.0.0.1:${port}`;
const operator = { login: 'sam', name: 'Sam Secrets', password: 'sam-secrets-e2e-password' };

test.use({ storageState: { cookies: [], origins: [] } });
// One Studio on one port for the file: its tests run in order in one worker, never in two (each would start its own).
test.describe.configure({ mode: 'default' });

let studio: ChildProcess | undefined;
const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-e2e-secrets-')), 'data');
const runId = `e2e-secrets:${randomUUID()}`;
const erasableRunId = `e2e-erase:${randomUUID()}`;
const PERSON = 'Katherine Coleman Goblefield';
const KEYS = { GNL_JOURNAL_KEY, GNL_RUN_KEYS: 'on' };

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const storage = new PGliteStorage({ dataDir, secrets: secretsFromEnv(KEYS) });
  try {
    const charge = tool({
      description: 'Charge a card through the payment service',
      inputSchema: z.object({ apiKey: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: async ({ amount }) => ({ charged: amount }),
    });
    const scripted = scriptedModel(() => ({ toolCalls: [{ toolCallId: 'call-charge', toolName: 'charge', input: { apiKey: API_KEY, amount: 40 } }] }));
    const result = await runDurable({
      runId,
      journal: storage.runs,
      model: scripted.model,
      tools: { charge: gnlTool(charge, { sideEffect: true, idempotency: 'args' }) },
      prompt: 'Charge 40 with our key',
    });
    expect(result.status).toBe('waiting-approval');
    const answer = scriptedModel(() => ({ text: `Done: the address of ${PERSON} is changed.` }));
    const done = await runDurable({
      runId: erasableRunId,
      journal: storage.runs,
      model: answer.model,
      prompt: `I am ${PERSON}: change my address`,
      subject: 'customer:c_77',
    });
    expect(done.status).toBe('completed');
  } finally {
    await storage.close();
  }
  studio = spawn(process.execPath, ['scripts/studio.mjs'], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: 'ignore',
    env: {
      ...process.env,
      DATABASE_URL: '',
      GNL_DATA_DIR: dataDir,
      ...KEYS,
      PORT: String(port),
      GNL_STUDIO_HOST: '127.0.0.1',
      GNL_DEMO_SERVICE: 'off',
      GNL_DEMO_SERVICE_URL: 'http://127.0.0.1:9',
      GNL_STUDIO_OPERATOR_LOGIN: operator.login,
      GNL_STUDIO_OPERATOR_NAME: operator.name,
      GNL_STUDIO_OPERATOR_PASSWORD: operator.password,
    },
  });
  await expect(async () => {
    expect((await fetch(`${origin}/sign-in`)).ok).toBe(true);
  }).toPass({ timeout: 240_000 });
});

test.afterAll(() => {
  studio?.kill('SIGTERM'); // the supervisor stops its server
});

test('an encrypted apiKey argument shows redacted in the timeline, the inbox, the JSON routes and the page source', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${origin}/sign-in`);
  await new SignInPage(page).signIn(operator.login, operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(operator.name);

  await page.goto(`${origin}/runs/${encodeRunSegment(runId)}`);
  const run = new RunPage(page);
  await expect(run.event('tool-approval-request')).toContainText(REDACTED);
  await expect(run.event('model-step')).toContainText(REDACTED);
  await expect(run.event('tool-approval-request')).toContainText('40');
  await expect(page.locator('body')).not.toContainText(API_KEY);
  const source = await page.content();
  expect(source).not.toContain(API_KEY);
  expect(source).not.toContain('$gnl:enc');

  for (const route of [`/api/runs/${encodeRunSegment(runId)}`, `/api/runs/${encodeRunSegment(runId)}/chunks/0`, '/api/inbox']) {
    const res = await page.request.get(`${origin}${route}`);
    expect(res.ok(), route).toBe(true);
    const body = await res.text();
    expect(body, route).not.toContain(API_KEY);
    expect(body, route).not.toContain('$gnl:enc');
    expect(body, route).toContain(REDACTED);
  }

  const inbox = new InboxPage(page);
  await page.goto(`${origin}/inbox`);
  const item = inbox.item(runId, 'approval');
  await expect(item).toContainText(REDACTED);
  expect(await page.content()).not.toContain(API_KEY);
});

test('an ended run is erased from its page: the name is gone, the events and who erased it stay, the list marks it', async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`${origin}/sign-in`);
  await new SignInPage(page).signIn(operator.login, operator.password);
  await expect(page.getByTestId('signed-in-as')).toContainText(operator.name);
  await page.goto(`${origin}/runs/${encodeRunSegment(erasableRunId)}`);
  const run = new RunPage(page);
  await expect(run.event('run-complete')).toContainText(PERSON);

  await page.getByTestId('run-erase').getByRole('button', { name: 'Erase…' }).click();
  const confirm = page.getByRole('button', { name: 'Erase this run’s data' });
  await expect(confirm).toBeDisabled(); // a reason first
  await page.getByLabel(/Why erase\?/).fill('GDPR request <b>#77</b>');
  await confirm.click();

  const banner = page.getByTestId('run-erased');
  await expect(banner).toContainText(`by ${operator.login}`, { timeout: 30_000 });
  await expect(banner).toContainText('GDPR request <b>#77</b>'); // a reason is text, never markup
  await expect(run.event('run-complete')).toContainText('•••• erased');
  await expect(run.event('model-step')).toHaveCount(1);
  await expect(page.locator('body')).not.toContainText(PERSON);
  expect(await page.content()).not.toContain('Goblefield');
  const json = await (await page.request.get(`${origin}/api/runs/${encodeRunSegment(erasableRunId)}/chunks/0`)).text();
  expect(json).not.toContain('Goblefield');
  expect(json).toContain('•••• erased');

  await page.goto(origin);
  const row = page.locator(`[data-testid="run-row"][data-run-id="${erasableRunId}"]`);
  await expect(row.getByTestId('run-erased-mark')).toHaveText('erased');
  await expect(row).not.toContainText(PERSON);
});
