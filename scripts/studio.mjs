#!/usr/bin/env node
/**
 * `npm run studio`: the one command that installs, builds and starts GNL Studio on a fresh clone.
 *   1. `npm ci` when node_modules is missing or older than package-lock.json;
 *   2. `next build` when there is no build or a source file is newer than it;
 *   3. `next start` on GNL_STUDIO_HOST (default 127.0.0.1) and PORT (default 3000).
 * The Studio has no sign-in yet, so it listens on loopback unless told otherwise.
 * Plain Node on purpose: it must run before any dependency is installed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const host = process.env.GNL_STUDIO_HOST || '127.0.0.1';
const port = process.env.PORT || '3000';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const next = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');

/** Inputs of the build: a change to any of them means the built app is stale. */
const BUILD_INPUTS = ['app', 'components', 'lib', 'db', 'public', 'next.config.ts', 'tsconfig.json', 'postcss.config.mjs', 'package-lock.json'];

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
if (built === undefined || built < sources) run(process.execPath, [next, 'build']);
else console.log('studio: the build is up to date');

// Which journal it reads is the Studio's own business (storageFromEnv); its pages say which.
console.log(`studio: starting on http://${host.includes(':') ? `[${host}]` : host}:${port}`);
const server = spawn(process.execPath, [next, 'start', '--hostname', host, '--port', port], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
