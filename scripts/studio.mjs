#!/usr/bin/env node
/**
 * `npm run studio`: the one command that installs, builds and starts GNL Studio on a fresh clone.
 *   1. `npm ci` when node_modules is missing or older than package-lock.json;
 *   2. `next build` when there is no build or a source file is newer than it; either way the build's
 *      keys are then made private to this user (private-build.mjs: .next/server 0700/0600);
 *   3. the demo's outside service (scripts/demo-service.ts) on GNL_DEMO_SERVICE_PORT (default 4010),
 *      unless GNL_DEMO_SERVICE_URL points at one already (or GNL_DEMO_SERVICE=off);
 *   4. the built Studio (scripts/studio-server.mjs: Next's production handler, as `next start` serves
 *      it, behind a server that stamps each request with the client's address, client-address.mjs) on
 *      GNL_STUDIO_HOST (default 127.0.0.1) and PORT (default 3000), supervised: a server killed by a
 *      signal (a demo crash point SIGKILLs it on purpose) is started again at once, and its in-process
 *      executor takes the interrupted runs up; browsers reconnect and catch up.
 * It listens on loopback unless told otherwise; every page needs a signed-in operator.
 * `--build-only`: steps 1 and 2, then exit (the e2e launcher builds once before it starts its Studios).
 * On a Node older than 22 it first switches to the pinned Node 24 LTS (node-lts.mjs).
 * Plain Node on purpose: it must run before any dependency is installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ensureSupportedNode } from './node-lts.mjs';
import { choosePort, demoServiceAt, portFree } from './studio-ports.mjs';
import { privateBuild } from './private-build.mjs';

ensureSupportedNode(import.meta.filename);

const root = path.resolve(import.meta.dirname, '..');
const host = process.env.GNL_STUDIO_HOST || '127.0.0.1';
// The ports are chosen before anything starts (studio-ports.mjs): a taken default moves on, a taken explicit one is refused.
const chosen = await choosePort({ host, explicit: process.env.PORT || undefined, fallback: 3000, variable: 'PORT', what: 'the Studio' });
if (chosen.error) {
  console.error(`studio: ${chosen.error}`);
  process.exit(1);
}
if (chosen.note) console.log(`studio: ${chosen.note}`);
const port = String(chosen.port);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const next = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');

/** Inputs of the build: a change to any of them means the built app is stale. */
const BUILD_INPUTS = [
  'app',
  'components',
  'lib',
  'db',
  'agents',
  'public',
  'next.config.ts',
  'proxy.ts',
  'instrumentation.ts',
  'tsconfig.json',
  'postcss.config.mjs',
  'package-lock.json',
];

function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function newestMtime(entry) {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

function run(command, args) {
  console.log(`studio: ${[path.basename(command), ...args].join(' ')}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const installed = mtime(path.join(root, 'node_modules', '.package-lock.json'));
if (installed === undefined || installed < (mtime(path.join(root, 'package-lock.json')) ?? 0)) run(npm, ['ci']);

const built = mtime(path.join(root, '.next', 'BUILD_ID'));
const sources = Math.max(...BUILD_INPUTS.map((input) => newestMtime(path.join(root, input))));
const nextDir = path.join(root, '.next');
if (built === undefined || built < sources) {
  run(process.execPath, [next, 'build']);
  privateBuild(nextDir); // just written under the umask: tightened without a word
} else {
  console.log('studio: the build is up to date');
  privateBuild(nextDir, { log: (line) => console.error(line) }); // a build from before this rule says so
}
if (process.argv.includes('--build-only')) process.exit(0);

// The scripted demo model streams an answer word by word, 30 ms apart, so a chat visibly streams (0: at once).
const env = { GNL_DEMO_STREAM_WORD_MS: '30', ...process.env, PORT: port, GNL_STUDIO_HOST: host };
const children = new Set();
let stopping = false;

function spawnChild(command, args, extraEnv = {}) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

// The demo's outside service: its own process, so its counters survive the Studio server's crashes.
if (!process.env.GNL_DEMO_SERVICE_URL && process.env.GNL_DEMO_SERVICE !== 'off') await startDemoService();

async function startDemoService() {
  const explicit = process.env.GNL_DEMO_SERVICE_PORT || undefined;
  const wanted = Number(explicit ?? 4010);
  // Our own demo service already there (an earlier Studio's): its counters are the ones to keep, use it.
  if (!(await portFree('127.0.0.1', wanted)) && (await demoServiceAt(wanted)) === 'ours') {
    env.GNL_DEMO_SERVICE_URL = `http://127.0.0.1:${wanted}`;
    console.log(`studio: the demo service already runs on port ${wanted}: using it`);
    return;
  }
  const picked = await choosePort({ host: '127.0.0.1', explicit, fallback: 4010, variable: 'GNL_DEMO_SERVICE_PORT', what: 'the demo service' });
  if (picked.error) {
    console.error(`studio: ${picked.error} (another program is there, not the demo service)`);
    process.exit(1);
  }
  if (picked.note) console.log(`studio: ${picked.note}`);
  const servicePort = String(picked.port);
  env.GNL_DEMO_SERVICE_URL = `http://127.0.0.1:${servicePort}`;
  const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  // Its store is kept in a file beside the embedded journal's folder (one per port), so a run that refunded
  // is still counted after `npm run studio` is started again; GNL_DEMO_SERVICE_STORE names another.
  const storeDir = path.dirname(process.env.GNL_DATA_DIR?.trim() ? path.resolve(process.env.GNL_DATA_DIR.trim()) : path.join(root, '.gnl', 'data'));
  mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  const storeFile = process.env.GNL_DEMO_SERVICE_STORE || path.join(storeDir, `demo-service-${servicePort}.json`);
  const service = spawnChild(process.execPath, [tsx, path.join(root, 'scripts', 'demo-service.ts')], {
    GNL_DEMO_SERVICE_PORT: servicePort,
    GNL_DEMO_SERVICE_STORE: storeFile,
  });
  service.on('exit', (code) => {
    if (!stopping) console.log(`studio: the demo service exited (${code}); the Demo page says so until it is back (npm run demo:service).`);
  });
}

// Which journal it reads is the Studio's own business (storageFromEnv); its pages say which.
// Node/V8 flags for the server process, space-separated (the e2e suite gives it the tests' --liftoff-only).
const serverNodeFlags = (process.env.GNL_STUDIO_NODE_FLAGS ?? '').split(' ').filter(Boolean);
const restarts = [];
function startServer() {
  console.log(`studio: starting on http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  const server = spawnChild(process.execPath, [...serverNodeFlags, path.join(root, 'scripts', 'studio-server.mjs'), '--hostname', host, '--port', port]);
  server.on('exit', (code, signal) => {
    if (stopping) return finish(code ?? 0);
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && (restarts[0] ?? 0) < now - 60_000) restarts.shift();
    if (signal && restarts.length <= 10) {
      console.log(`studio: the server was killed (${signal}); starting it again`);
      return startServer();
    }
    console.log(`studio: the server exited (${signal ?? code})`);
    finish(code ?? 1);
  });
}

function finish(code) {
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopping = true;
    for (const child of children) child.kill(signal);
    setTimeout(() => process.exit(0), 10_000).unref();
  });
}
startServer();
