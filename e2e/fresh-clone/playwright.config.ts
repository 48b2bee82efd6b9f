/**
 * The first ten minutes, walked (issue 32): one spec against a Studio that scripts/fresh-clone-walk.mjs
 * started from a fresh clone with the README's command. Not part of `npm test` (it clones, installs and
 * builds: minutes): `npm run walk:fresh-clone`. The driver passes the Studio's address and its one-time
 * setup link in the environment.
 */
import { existsSync } from 'node:fs';
import { chromium, defineConfig, devices } from '@playwright/test';

const SYSTEM_CHROMIUMS = process.env.GNL_E2E_CHROMIUM ? [process.env.GNL_E2E_CHROMIUM] : ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];
const executablePath = existsSync(chromium.executablePath()) ? undefined : SYSTEM_CHROMIUMS.find((file) => existsSync(file));

export default defineConfig({
  testDir: '.',
  testMatch: ['walk.spec.ts'],
  outputDir: '../../test-results/fresh-clone',
  retries: 0,
  workers: 1,
  reporter: [['line']],
  use: {
    ...devices['Desktop Chrome'],
    baseURL: process.env.GNL_WALK_BASE_URL,
    launchOptions: executablePath
      ? {
          executablePath,
          args: [
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        }
      : {},
    trace: 'retain-on-failure',
  },
});
