#!/usr/bin/env node
/**
 * Starts every Studio of the e2e suite at once: Playwright's first webServer (playwright.config.ts).
 *
 * Playwright starts its webServers one after another, each once the one before answers, so four Studios
 * cost four seeds and four starts in a row after the build. Here the build and every seed run side by
 * side (the seeds need no build; each writes its own data folder), then every Studio starts together.
 * The config's other webServer entries keep their URLs (Playwright still waits until each answers) with
 * a command that only waits (`--wait`), for a Studio this process starts.
 *
 * Its Studios are its children in its process group: Playwright's teardown, which kills the group, stops
 * them all. A failed build or seed fails the start, and so does a Studio that exits: each is named.
 *
 * The Studios to start come in GNL_E2E_STUDIOS, a JSON array of { name, seed, env } (seed: a script under
 * e2e/studio run with tsx into the Studio's data folder; env: the Studio's own variables).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

if (process.argv.includes('--wait')) {
  // A webServer entry whose Studio the launcher starts: Playwright polls its URL; this only holds the slot.
  setInterval(() => {}, 1 << 30);
} else {
  await main();
}

async function main() {
  const studios = parseStudios(process.env.GNL_E2E_STUDIOS);
  const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const studioScript = path.join(root, 'scripts', 'studio.mjs');
  const children = new Set();
  let stopping = false;

  const stop = (code) => {
    stopping = true;
    for (const child of children) child.kill('SIGTERM');
    process.exitCode = code;
    setTimeout(() => process.exit(code), 10_000).unref();
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0));

  /** Runs one command with its output's lines prefixed by `label`; resolves with its exit code. */
  const start = (label, args, env) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    prefixLines(child.stdout, process.stdout, label);
    prefixLines(child.stderr, process.stderr, label);
    return new Promise((resolve) => {
      child.on('error', (error) => {
        console.error(`[${label}] could not start: ${error.message}`);
        resolve(1);
      });
      child.on('exit', (code, signal) => {
        children.delete(child);
        resolve(code ?? (signal ? 128 : 1));
      });
    });
  };

  const began = performance.now();
  const steps = [
    ['build', start('build', [studioScript, '--build-only'], {})],
    ...studios.map((studio) => [`seed ${studio.name}`, start(`${studio.name} seed`, [tsx, path.join(root, 'e2e', 'studio', studio.seed)], studio.env)]),
  ];
  const codes = await Promise.all(steps.map(([, done]) => done));
  const failed = steps.flatMap(([name], index) => (codes[index] === 0 ? [] : [`${name} (exit ${codes[index]})`]));
  if (failed.length > 0) {
    console.error(`start-studios: ${failed.join(', ')} failed; no Studio is started`);
    process.exit(1);
  }
  console.log(`start-studios: built and seeded ${studios.length} journals in ${Math.round(performance.now() - began)} ms; starting the Studios`);

  for (const studio of studios) {
    start(studio.name, [studioScript], studio.env).then((code) => {
      if (stopping) return;
      console.error(`start-studios: the ${studio.name} Studio exited (${code}); stopping the others`);
      stop(code === 0 ? 1 : code);
    });
  }
}

function parseStudios(raw) {
  let studios;
  try {
    studios = JSON.parse(raw ?? '');
  } catch (error) {
    throw new Error('start-studios: GNL_E2E_STUDIOS must be a JSON array of { name, seed, env } (playwright.config.ts sets it)', { cause: error });
  }
  const valid =
    Array.isArray(studios) &&
    studios.length > 0 &&
    studios.every(
      (studio) =>
        typeof studio?.name === 'string' &&
        typeof studio.seed === 'string' &&
        /^[\w-]+\.ts$/.test(studio.seed) &&
        studio.env !== null &&
        typeof studio.env === 'object' &&
        Object.values(studio.env).every((value) => typeof value === 'string'),
    );
  if (!valid) throw new Error(`start-studios: GNL_E2E_STUDIOS is not a list of { name, seed: "<file>.ts", env: { NAME: "text" } }: ${raw}`);
  return studios;
}

/** Copies a child's output line by line, each line prefixed with `[label] `. */
function prefixLines(from, to, label) {
  let rest = '';
  from.setEncoding('utf8');
  from.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) to.write(`[${label}] ${line}\n`);
  });
  from.on('end', () => {
    if (rest) to.write(`[${label}] ${rest}\n`);
  });
}
