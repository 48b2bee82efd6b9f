/**
 * Studio e2e: real Chromium against the built Studio (`next build`, then `next start`) on a fresh
 * embedded journal seeded with real runs. e2e/crash is vitest's, hence testDir e2e/studio.
 *
 * Chromium: Playwright's own when it is installed, else Debian's /usr/bin/chromium (Playwright's
 * download cannot reach its host on machines without the open internet). The background-networking
 * flags keep Chromium from calling out, which such machines refuse.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, defineConfig, devices, type LaunchOptions } from '@playwright/test';

const port = Number(process.env.GNL_E2E_PORT ?? 3210);
const baseURL = `http://127.0.0.1:${port}`;

// Set once in the runner; its workers inherit the environment, so all agree on one folder.
process.env.GNL_E2E_DATA_DIR ??= path.join(mkdtempSync(path.join(tmpdir(), 'gnl-e2e-')), 'data');

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

function launchOptions(): LaunchOptions {
  if (existsSync(chromium.executablePath())) return {};
  if (!existsSync(SYSTEM_CHROMIUM)) {
    throw new Error(`No Chromium: Playwright's browser is not installed and ${SYSTEM_CHROMIUM} is missing (apt-get install -y chromium).`);
  }
  return {
    executablePath: SYSTEM_CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  };
}

export default defineConfig({
  testDir: 'e2e/studio',
  outputDir: 'test-results/studio',
  globalTeardown: './e2e/studio/global-teardown.ts',
  forbidOnly: !!process.env.CI,
  retries: 0,
  // The specs only read the seeded journal, so they run in parallel: two workers for the machine's two cores.
  fullyParallel: true,
  workers: 2,
  reporter: [['list']],
  timeout: 30_000,
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions: launchOptions() } }],
  webServer: {
    // Seed first: the folder lock admits one process, and the Studio keeps the folder while it runs.
    // scripts/studio.mjs builds when the sources are newer than the last build, then starts on loopback.
    command: 'npx tsx e2e/studio/seed.ts && node scripts/studio.mjs',
    url: baseURL,
    env: { GNL_DATA_DIR: process.env.GNL_E2E_DATA_DIR, PORT: String(port), GNL_STUDIO_HOST: '127.0.0.1', DATABASE_URL: '' },
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
