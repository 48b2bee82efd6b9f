/**
 * Studio e2e: real Chromium against the built Studio (`next build`, then `next start` under the
 * supervisor scripts/studio.mjs, with the demo's outside service beside it) on a fresh embedded journal
 * seeded with real runs and operator accounts. e2e/crash is vitest's, hence testDir e2e/studio.
 *
 * Projects run in order: `sign-in` signs the operators in (storage states), `seeded` only reads the
 * seeded journal (in parallel), `live` starts demo runs and decides (each test on its own runs), and
 * `crash` kills the Studio's server on purpose (a demo crash point), so it runs last, alone.
 *
 * Chromium: Playwright's own when it is installed, else Debian's headless shell
 * (/usr/bin/chromium-headless-shell: the same Chromium without the browser's window layers, which is what
 * Playwright itself runs headless), else Debian's /usr/bin/chromium (Playwright's download cannot reach
 * its host on machines without the open internet). GNL_E2E_CHROMIUM names another executable. The background-networking
 * flags keep Chromium from calling out, which such machines refuse.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, defineConfig, devices, type LaunchOptions, type PlaywrightTestConfig } from '@playwright/test';
import { storageStatePath } from './e2e/studio/auth-state';
import { CHILD_NODE_FLAGS } from './tests/support/child-bundles';
import { freePortsSync } from './e2e/studio/free-ports';
import { SCHEDULE } from './e2e/studio/schedule-data';
import { LONG } from './e2e/studio/seed-data';
import { VERSIONS } from './e2e/studio/versions-data';

// Set once in the runner; its workers inherit the environment, so all agree on one folder and one set
// of ports. Ports are free ones the kernel picks (free-ports.ts): a Studio or demo service a developer
// has running, or a second e2e run beside this one, is never mistaken for this run's.
if (!process.env.GNL_E2E_PORTS) process.env.GNL_E2E_PORTS = freePortsSync(6).join(',');
const [port, longPort, postgresPort, secretsPort, demoPort, postgresDemoPort] = process.env.GNL_E2E_PORTS.split(',').map(Number) as [
  number,
  number,
  number,
  number,
  number,
  number,
];
// The `versions` project's Studio and its demo service (versions.spec.ts): ports of their own.
if (!process.env.GNL_E2E_VERSIONS_PORTS) process.env.GNL_E2E_VERSIONS_PORTS = freePortsSync(2).join(',');
const [versionsPort, versionsDemoPort] = process.env.GNL_E2E_VERSIONS_PORTS.split(',').map(Number) as [number, number];
process.env.GNL_E2E_VERSIONS_DEMO_PORT ??= String(versionsDemoPort);
process.env.GNL_E2E_SECRETS_PORT ??= String(secretsPort);
const baseURL = `http://127.0.0.1:${port}`;

process.env.GNL_E2E_DATA_DIR ??= path.join(mkdtempSync(path.join(tmpdir(), 'gnl-e2e-')), 'data');
process.env.GNL_E2E_DEMO_PORT ??= String(demoPort);
const alice = storageStatePath('alice');
// The second Studio (project `long`): its own journal with one long run, its first operator from the environment.
const longDataDir = path.join(path.dirname(process.env.GNL_E2E_DATA_DIR as string), 'long-data');
// The `versions` Studio: its own journal, seeded with a run stranded by a deploy (seed-versions.ts).
const versionsDataDir = path.join(path.dirname(process.env.GNL_E2E_DATA_DIR as string), 'versions-data');

// On Postgres too when DATABASE_URL is set (CI sets it): a third Studio, project `postgres`, on that server,
// in a database of its own beside the one named (`<name>_studio_e2e`, created on first use, kept between
// runs like the shared one): its executor claims every runnable run it finds, and the shared database
// holds runs other suites left runnable, some with crash points armed.
const postgresAdminUrl = process.env.DATABASE_URL || undefined;
const postgresUrl = postgresAdminUrl ? studioDatabaseUrl(postgresAdminUrl) : undefined;
if (postgresUrl) {
  process.env.GNL_E2E_PG_LOGIN ??= `pg-e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  process.env.GNL_E2E_PG_DEMO_PORT ??= String(postgresDemoPort);
  process.env.GNL_E2E_PG_SESSION_SECRET ??= `e2e-${crypto.randomUUID()}-${crypto.randomUUID()}`;
}

function studioDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${decodeURIComponent(parsed.pathname.slice(1) || 'postgres')}_studio_e2e`;
  return parsed.toString();
}

// The quick suite (`npm run test:quick`, scripts/test.mjs): one Studio, the sign-in project and a smoke
// of the pages (signed out is refused, a seeded run's page shows its journal); no other Studio is started.
const smoke = process.env.GNL_E2E_SMOKE === '1';

type WebServer = Exclude<NonNullable<PlaywrightTestConfig['webServer']>, readonly unknown[]>;
/** One Studio of the suite: where it answers, the seed script (e2e/studio) that fills its journal first, its variables. */
type Studio = { name: string; url: string; seed: string; env: Record<string, string> };

// Every Studio the suite starts (also those a spec starts itself) runs with the tests' V8 flags (child-bundles.ts).
process.env.GNL_STUDIO_NODE_FLAGS ??= CHILD_NODE_FLAGS.join(' ');

// The headless shell first: the same pages cost it about a sixth less CPU than the whole browser
// (the `seeded` project under accton: 200 against 240 CPU-seconds, docs/testing.md).
const SYSTEM_CHROMIUMS = process.env.GNL_E2E_CHROMIUM ? [process.env.GNL_E2E_CHROMIUM] : ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'];

function launchOptions(): LaunchOptions {
  if (!process.env.GNL_E2E_CHROMIUM && existsSync(chromium.executablePath())) return {};
  const executablePath = SYSTEM_CHROMIUMS.find((file) => existsSync(file));
  if (!executablePath) {
    throw new Error(
      `No Chromium: Playwright's browser is not installed and none of ${SYSTEM_CHROMIUMS.join(', ')} is (apt-get install -y chromium-headless-shell).`,
    );
  }
  return {
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
  };
}

export default defineConfig({
  testDir: 'e2e/studio',
  outputDir: 'test-results/studio',
  globalTeardown: './e2e/studio/global-teardown.ts',
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Two workers for the machine's two cores; each test reads the seeded runs or works on runs of its own.
  fullyParallel: true,
  workers: 2,
  // Per-test durations of every run, for the profile in docs/testing.md (scripts/suite-profile.mjs reads it;
  // the quick suite's go to GNL_TEST_RESULTS, scripts/test.mjs).
  reporter: [['list'], ['json', { outputFile: `${process.env.GNL_TEST_RESULTS || 'test-results'}/playwright.json` }]],
  timeout: 30_000,
  use: {
    baseURL,
    // A trace is recorded for every test and dropped when it passes: about a seventh of the CPU of the
    // `seeded` and `long` projects (accton, three pairs: 413, 366, 465 CPU-seconds with it, 349, 357, 363
    // without; docs/testing.md), and CI keeps only its log, never test-results/. There a failure is told in
    // the log; a developer's run (CI unset) keeps the trace of a failure.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  expect: { timeout: 10_000 },
  projects: [
    { name: 'sign-in', testMatch: /auth\.setup\.ts$/, use: { ...devices['Desktop Chrome'], launchOptions: launchOptions() } },
    ...(smoke
      ? [
          {
            name: 'smoke',
            testMatch: ['sign-in.spec.ts', 'runs.spec.ts'],
            grep: /signed out, every Studio page|the run page shows the summary and the journal in order/,
            dependencies: ['sign-in'],
            use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), storageState: alice },
          },
        ]
      : fullProjects()),
  ],
  webServer: webServers(smoke ? [mainStudio()] : [mainStudio(), ...otherStudios()]),
});

/**
 * Playwright runs projects in phases: a project starts once every project before it in the dependency
 * order has finished, so a phase lasts as long as its slowest project. The main Studio's chain (sign-in,
 * seeded, live, then crash, chat, fork, bulk one after the other, since crash and chat kill its server)
 * sets the phases; the projects on Studios of their own are placed where a phase leaves a worker idle:
 * `long` and `postgres` beside `seeded`, `versions` beside the one test of `crash`, `memory` beside `chat`. Measured on a fresh
 * clone: 395 s before (the three ran first, alone, for 136 s), docs/testing.md after. `postgres` is one
 * test that waits for a killed server's lease (10 s, GNL_STUDIO_LEASE_MS; it took 45 s with the default 30):
 * beside `crash` (17 s) it left a worker idle; first in `seeded`'s phase, the other worker runs that phase's
 * tests meanwhile.
 */
function fullProjects() {
  return [
    ...(postgresUrl
      ? [
          {
            // Its own Studio; in the phase of `seeded`, like `long`, and first in it: its test waits for a killed
            // server's lease, which the other worker fills with `seeded` and `long` (last, it left both idle).
            name: 'postgres',
            testMatch: ['postgres.spec.ts'],
            dependencies: ['sign-in'],
            use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), baseURL: `http://127.0.0.1:${postgresPort}` },
          },
        ]
      : []),
    {
      name: 'seeded',
      testMatch: ['runs.spec.ts', 'sign-in.spec.ts', 'timeline.spec.ts', 'conversations.spec.ts'],
      dependencies: ['sign-in'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), storageState: alice },
    },
    {
      name: 'live',
      testMatch: [
        'live-tail.spec.ts',
        'live-step.spec.ts',
        'inbox.spec.ts',
        'deciding.spec.ts',
        'nav-inbox.spec.ts',
        'edit-approve.spec.ts',
        'actions.spec.ts',
        'screenshots.spec.ts',
        'secrets.spec.ts',
        'timers.spec.ts',
        'glance.spec.ts',
        'ask-person.spec.ts',
        'workflow.spec.ts',
        'four-eyes.spec.ts',
      ],
      // Each test starts demo runs and follows them across two or three pages, two workers beside one
      // Next server on two cores: 30 s is met at load, so these get 60 s (specs that need more say so).
      timeout: 60_000,
      dependencies: ['seeded'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), storageState: alice },
    },
    {
      // Forks demo runs it starts, after the projects that kill the server; signs in itself, so it also runs alone (--no-deps).
      // Each test takes about 25 s on an idle machine, and comes first to a server just restarted by the
      // chat project (its routes cold): 30 s ran out in CI, so these get 120 s.
      name: 'fork',
      testMatch: ['fork.spec.ts'],
      timeout: 120_000,
      dependencies: ['chat'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions() },
    },
    {
      // Its own Studio; it waits for sign-in only to run in the seeded project's phase (the note above fullProjects).
      name: 'long',
      dependencies: ['sign-in'],
      testMatch: [
        'long-run.spec.ts',
        'security.spec.ts',
        'browser-security.spec.ts',
        'sessions.spec.ts',
        'spoofing.spec.ts',
        'schedules.spec.ts',
        'resume-at.spec.ts',
        'settings.spec.ts',
      ],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), baseURL: `http://127.0.0.1:${longPort}` },
    },
    {
      // Before `versions` in the array, so its one test starts the phase and `versions`' four fill the other worker
      // (after them, it ran alone: 14 s with a worker idle).
      name: 'crash',
      testMatch: ['crash.spec.ts'],
      dependencies: ['live'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), storageState: alice },
    },
    {
      // Its own Studio; after `live` only to fill the phase of `crash`, which keeps one worker (the note above fullProjects).
      name: 'versions',
      testMatch: ['versions.spec.ts', 'notifications.spec.ts'],
      dependencies: ['live'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), baseURL: `http://127.0.0.1:${versionsPort}` },
    },
    {
      // The `versions` Studio too, a phase later: beside `chat`, whose two tests kill the main Studio and run alone.
      name: 'memory',
      testMatch: ['memory.spec.ts'],
      dependencies: ['crash'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), baseURL: `http://127.0.0.1:${versionsPort}` },
    },
    {
      // Kills the server mid-answer too: after the crash project, alone.
      name: 'chat',
      testMatch: ['chat.spec.ts'],
      dependencies: ['crash'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions(), storageState: alice },
    },
    {
      // Its filter matches every waiting refund in the journal (the fork spec's too): after the others, alone.
      // people.spec.ts and webhooks.spec.ts (start no run) share its phase: the last spec that signs in as vera has run by then.
      name: 'bulk',
      testMatch: ['bulk.spec.ts', 'people.spec.ts', 'webhooks.spec.ts'],
      dependencies: ['chat', 'fork'],
      use: { ...devices['Desktop Chrome'], launchOptions: launchOptions() },
    },
  ];
}

/**
 * Every Studio starts from one launcher (e2e/studio/start-studios.mjs), Playwright's first webServer: it
 * builds once while every seed runs beside the build (each seed before its Studio: the folder lock admits
 * one process, and a Studio keeps its folder while it runs), then starts them all together. Playwright
 * starts webServers one after another, so four `seed && start` commands cost four seeds and four starts
 * in a row (docs/testing.md). The other entries only wait, so Playwright still waits until each answers.
 */
function webServers(studios: Studio[]): WebServer[] {
  const [first, ...rest] = studios as [Studio, ...Studio[]];
  const shared = { timeout: 300_000, stdout: 'pipe' as const, stderr: 'pipe' as const };
  return [
    {
      ...shared,
      name: 'studios',
      command: 'node e2e/studio/start-studios.mjs',
      url: first.url,
      env: { GNL_E2E_STUDIOS: JSON.stringify(studios.map(({ name, seed, env }) => ({ name, seed, env }))) },
      reuseExistingServer: false,
    },
    // Its ports are free ones picked for this run: what answers there is the launcher's Studio.
    ...rest.map((studio) => ({
      ...shared,
      name: studio.name,
      command: 'node e2e/studio/start-studios.mjs --wait',
      url: studio.url,
      reuseExistingServer: true,
    })),
  ];
}

function mainStudio(): Studio {
  return {
    name: 'main',
    seed: 'seed.ts',
    url: baseURL,
    env: {
      GNL_DATA_DIR: process.env.GNL_E2E_DATA_DIR as string,
      PORT: String(port),
      GNL_STUDIO_HOST: '127.0.0.1',
      GNL_STUDIO_NODE_FLAGS: CHILD_NODE_FLAGS.join(' '),
      DATABASE_URL: '',
      GNL_DEMO_SERVICE_PORT: process.env.GNL_E2E_DEMO_PORT as string,
      GNL_DEMO_SERVICE_URL: '',
      // Where traces live: the seeded completed run's page links its recorded trace (timeline.spec.ts).
      GNL_TRACE_URL: 'https://traces.example.test/trace/{traceId}',
      // The support agent has its check here: crash.spec.ts starts its run without one from the Demo page.
      // A refund's approval expires after an hour (longer than any spec waits): timers.spec.ts sees its deadline.
      GNL_DEMO_APPROVAL_EXPIRES_MS: '3600000',
      // The demo workflow's durable sleep before it waits for the reply (agents/support-flow.ts): short here.
      GNL_DEMO_COOL_OFF_MS: '1000',
      // Short-lived streams and quick heartbeats: every test also crosses stream reconnects.
      GNL_STUDIO_STREAM_MAX_MS: '4000',
      GNL_STUDIO_HEARTBEAT_MS: '1000',
      GNL_MODEL: '',
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
    },
  };
}

function otherStudios(): Studio[] {
  return [
    {
      name: 'long',
      seed: 'seed-long.ts',
      url: `http://127.0.0.1:${longPort}/sign-in`,
      env: {
        GNL_DATA_DIR: longDataDir,
        PORT: String(longPort),
        GNL_STUDIO_HOST: '127.0.0.1',
        GNL_STUDIO_NODE_FLAGS: CHILD_NODE_FLAGS.join(' '),
        DATABASE_URL: '',
        GNL_DEMO_SERVICE: 'off',
        GNL_DEMO_SERVICE_URL: 'http://127.0.0.1:9',
        // As behind one reverse proxy: the security spec plays that proxy, naming client addresses in X-Forwarded-For.
        GNL_STUDIO_TRUST_PROXY: '1',
        // The public name that proxy forwards (X-Forwarded-Host): the Studio answers it and loopback names only.
        GNL_STUDIO_ALLOWED_HOSTS: 'studio.example.com',
        GNL_STUDIO_OPERATOR_LOGIN: LONG.operator.login,
        GNL_STUDIO_OPERATOR_NAME: LONG.operator.name,
        GNL_STUDIO_OPERATOR_PASSWORD: LONG.operator.password,
        // A schedule (agents/schedules.ts from these), with runs seed-long.ts seeded: schedules.spec.ts.
        ...SCHEDULE.env,
      },
    },
    {
      // On a journal holding a run stranded by a deploy.
      name: 'versions',
      seed: 'seed-versions.ts',
      url: `http://127.0.0.1:${versionsPort}/sign-in`,
      env: {
        GNL_DATA_DIR: versionsDataDir,
        PORT: String(versionsPort),
        GNL_STUDIO_HOST: '127.0.0.1',
        GNL_STUDIO_NODE_FLAGS: CHILD_NODE_FLAGS.join(' '),
        DATABASE_URL: '',
        GNL_DEMO_SERVICE_PORT: String(versionsDemoPort),
        GNL_DEMO_SERVICE_URL: '',
        GNL_DEMO_CHECKS: '0',
        // Webhooks to this Studio's demo service, which refuses each event's first delivery (notifications.spec.ts).
        GNL_NOTIFY_WEBHOOK_URL: `http://127.0.0.1:${versionsDemoPort}/webhooks?fail=1`,
        GNL_NOTIFY_WEBHOOK_SECRET: 'e2e-webhook-secret-0123456789',
        GNL_STUDIO_URL: `http://127.0.0.1:${versionsPort}`,
        GNL_MODEL: '',
        OPENAI_API_KEY: '',
        ANTHROPIC_API_KEY: '',
        GNL_STUDIO_OPERATOR_LOGIN: VERSIONS.operator.login,
        GNL_STUDIO_OPERATOR_NAME: VERSIONS.operator.name,
        GNL_STUDIO_OPERATOR_PASSWORD: VERSIONS.operator.password,
      },
    },
    ...(postgresUrl
      ? [
          {
            // On the database DATABASE_URL names (shared, never assumed empty); its own demo service.
            name: 'postgres',
            seed: 'seed-postgres.ts',
            url: `http://127.0.0.1:${postgresPort}/sign-in`,
            env: {
              DATABASE_URL: postgresUrl,
              GNL_E2E_PG_ADMIN_URL: postgresAdminUrl as string,
              GNL_DATA_DIR: path.join(path.dirname(process.env.GNL_E2E_DATA_DIR as string), 'postgres-data'),
              GNL_SESSION_SECRET: process.env.GNL_E2E_PG_SESSION_SECRET as string,
              GNL_E2E_PG_LOGIN: process.env.GNL_E2E_PG_LOGIN as string,
              PORT: String(postgresPort),
              GNL_STUDIO_HOST: '127.0.0.1',
              GNL_STUDIO_NODE_FLAGS: CHILD_NODE_FLAGS.join(' '),
              GNL_DEMO_SERVICE_PORT: process.env.GNL_E2E_PG_DEMO_PORT as string,
              GNL_DEMO_SERVICE_URL: '',
              GNL_DEMO_CHECKS: '0',
              // postgres.spec.ts arms a crash point; on Postgres they are off unless asked (lib/demo/crash-points-allowed.ts).
              GNL_DEMO_CRASH_POINTS: '1',
              // The restarted server takes the killed one's run up once its lease lapses: 10 s here, not the default 30.
              GNL_STUDIO_LEASE_MS: '10000',
              GNL_MODEL: '',
              OPENAI_API_KEY: '',
              ANTHROPIC_API_KEY: '',
            },
          },
        ]
      : []),
  ];
}
