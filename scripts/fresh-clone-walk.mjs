#!/usr/bin/env node
/**
 * `npm run walk:fresh-clone`: the first ten minutes of a new user, measured (issue 32). Clones this
 * repository's committed HEAD into a temp folder, runs the README's first command there (`npm run
 * studio`: install, build, start, on the embedded journal, on free ports), takes the one-time setup link
 * from its output, and walks e2e/fresh-clone/walk.spec.ts in Chromium against it: set up an account, the
 * Demo page's "Try a crash inside a refund", approve, crash, blocked, mark done, completed, one refund.
 * Prints the time from the clone to each step. Not part of `npm test` (it installs and builds: minutes).
 * `--keep` leaves the clone (and its Studio's data) for a look; the Studio is stopped either way.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const keep = process.argv.includes('--keep');
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const seconds = (from) => Math.round((Date.now() - from) / 1000);

const dir = mkdtempSync(path.join(tmpdir(), 'gnl-fresh-clone-'));
const clone = path.join(dir, 'gnl');
const t0 = Date.now();
execFileSync('git', ['clone', '--quiet', root, clone], { stdio: 'inherit' });
console.log(`walk: cloned ${execFileSync('git', ['-C', clone, 'rev-parse', '--short', 'HEAD']).toString().trim()} into ${clone}`);
const [port, demoPort] = [await freePort(), await freePort()];
const env = { ...process.env, PORT: String(port), GNL_DEMO_SERVICE_PORT: String(demoPort) };
for (const name of ['DATABASE_URL', 'GNL_DATA_DIR', 'GNL_DEMO_SERVICE_URL', 'NODE_OPTIONS', 'CI']) delete env[name];
const studio = spawn('npm', ['run', 'studio'], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
let output = '';
const setupUrl = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`no setup link within 10 minutes. Output:\n${output.slice(-4000)}`)), 600_000);
  const onData = (chunk) => {
    output += chunk;
    const found = output.match(/(http:\/\/\S+\/setup\?token=\S+)/);
    if (found) {
      clearTimeout(timer);
      resolve(found[1]);
    }
  };
  studio.stdout.setEncoding('utf8').on('data', onData);
  studio.stderr.setEncoding('utf8').on('data', onData);
  studio.once('exit', (code) => reject(new Error(`npm run studio exited (${code}) before it was ready. Output:\n${output.slice(-4000)}`)));
});
const ready = seconds(t0);
console.log(`walk: \`npm run studio\` ready (installed, built, started) ${ready} s after the clone began`);
let status = 0;
try {
  execFileSync(process.execPath, [path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '-c', 'e2e/fresh-clone/playwright.config.ts'], {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      GNL_WALK_BASE_URL: `http://127.0.0.1:${port}`,
      GNL_WALK_SETUP_URL: setupUrl,
      GNL_WALK_DEMO_URL: `http://127.0.0.1:${demoPort}`,
      GNL_WALK_CLONE_STARTED_AT: String(t0),
    },
  });
} catch {
  status = 1;
}
console.log(`walk: ${status === 0 ? 'walked' : 'FAILED'}: ready in ${ready} s, the whole walk in ${seconds(t0)} s from the clone (goal: 180 s)`);
try {
  process.kill(-studio.pid, 'SIGTERM');
} catch {}
await new Promise((resolve) => setTimeout(resolve, 1000));
try {
  process.kill(-studio.pid, 'SIGKILL');
} catch {}
if (keep) console.log(`walk: kept ${clone}`);
else rmSync(dir, { recursive: true, force: true });
process.exit(status);
