/**
 * The core as users get it: build @gnldev/durable, `npm pack` it, `npm install` the tarball into a scratch
 * project in a temp folder (beside the AI SDK, zod and the drivers at the versions this repository uses,
 * from npm's cache when it has them), then type-check and run consumer/consumer.mts there against the
 * BUILT package. Nothing in the scratch project can reach this repository's sources.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = import.meta.dirname;
const root = path.resolve(here, '../..');
const tsc = path.join(root, 'node_modules/typescript/bin/tsc');

/** The environment without npm's run-script variables: an npm inside `npm test` would otherwise act on this repository. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD'));
  return { ...env, ...extra } as NodeJS.ProcessEnv;
}

function run(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}): string {
  try {
    return execFileSync(command, args, { cwd, env: cleanEnv(extraEnv), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: error });
  }
}

/** Exact versions of what the scratch app installs beside the package: the ones this repository runs on. */
function appDependencies(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const names = ['ai', 'zod', '@electric-sql/pglite', 'drizzle-orm', 'postgres'];
  const typesNode = JSON.parse(readFileSync(path.join(root, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string };
  return [...names.map((name) => `${name}@${manifest.dependencies[name]}`), `@types/node@${typesNode.version}`];
}

let scratch = '';
let packedFiles: string[] = [];
const timings: Record<string, number> = {};

function timed<T>(label: string, work: () => T): T {
  const started = performance.now();
  try {
    return work();
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

describe('@gnldev/durable, built, packed and installed into a scratch project', () => {
  beforeAll(() => {
    scratch = mkdtempSync(path.join(tmpdir(), 'gnl-package-'));
    timed('build', () => run(process.execPath, [path.join(here, 'build.mjs')], root));
    const [packed] = timed('pack', () => JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch], here))) as {
      filename: string;
      files: { path: string }[];
    }[];
    if (!packed) throw new Error('npm pack reported no package');
    packedFiles = packed.files.map((f) => f.path).sort();
    writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'scratch-ai-app', private: true, type: 'module' }));
    timed('install', () =>
      run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', `./${packed.filename}`, ...appDependencies()], scratch),
    );
    cpSync(path.join(here, 'consumer'), scratch, { recursive: true });
  }, 300_000);

  afterAll(() => {
    console.log(`package test timings (ms): ${JSON.stringify(timings)}`);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('ships only the built files, and installs as a dependency with its entry points', () => {
    expect(packedFiles.every((file) => file.startsWith('dist/') || file === 'package.json' || file === 'README.md')).toBe(true);
    expect(packedFiles).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/storage.js', 'dist/storage.d.ts', 'README.md']));
    expect(packedFiles.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toBe(false);
    const installed = path.join(scratch, 'node_modules/@gnldev/durable');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.exports)).toEqual(['.', './storage', './postgres', './package.json']);
    // The bundle imports the app's AI SDK, zod and drivers; it never embeds a copy of them.
    const js = packedFiles.filter((file) => file.endsWith('.js')).map((file) => readFileSync(path.join(installed, file), 'utf8'));
    expect(js.join('\n')).toMatch(/from "ai"/);
    expect(js.join('\n')).not.toMatch(/function generateText\b/);
    // The OpenTelemetry API is imported, never bundled: one global tracer provider, the app's (tracing.ts).
    expect(js.join('\n')).toMatch(/from "@opentelemetry\/api"/);
  });

  it('a TypeScript consumer type-checks against the published types (nodenext and bundler resolution)', () => {
    // nodenext, strict, library declarations checked: the AI SDK and drizzle report errors of their own
    // without the DOM lib and optional peers, so only errors in the consumer or in this package count.
    const output = timed('tsc-nodenext', () =>
      (() => {
        try {
          return execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: scratch, env: cleanEnv(), encoding: 'utf8' });
        } catch (error) {
          return (error as { stdout: string }).stdout;
        }
      })(),
    );
    const errors = output.split('\n').filter((line) => /^\S.*\(\d+,\d+\): error/.test(line));
    const ours = errors.filter((line) => !line.startsWith('node_modules/') || line.startsWith('node_modules/@gnldev/'));
    expect(ours).toEqual([]);
    expect(existsSync(path.join(scratch, 'out/consumer.mjs'))).toBe(true);
    timed('tsc-bundler', () =>
      run(process.execPath, [tsc, '-p', 'tsconfig.json', '--noEmit', '--module', 'preserve', '--moduleResolution', 'bundler', '--skipLibCheck'], scratch),
    );
  });

  it('runs a durable run from the built package: the resume calls the model only for the failed step, the replay not at all', () => {
    const extra: Record<string, string> = process.env.DATABASE_URL ? { CONSUMER_DATABASE_URL: process.env.DATABASE_URL } : {};
    const stdout = timed('run', () => run(process.execPath, ['out/consumer.mjs'], scratch, extra));
    const results = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    for (const journal of process.env.DATABASE_URL ? ['pglite', 'postgres'] : ['pglite']) {
      const { modelCalls, refunds, events } = results[journal] as { modelCalls: number; refunds: number; events: string[] };
      expect({ journal, modelCalls, refunds }).toEqual({ journal, modelCalls: 3, refunds: 1 });
      expect(events.filter((type) => type === 'model-step')).toHaveLength(2);
      expect(events.filter((type) => type === 'tool-call-start')).toHaveLength(1);
      expect(events.indexOf('run-fail')).toBeLessThan(events.indexOf('run-resume'));
      expect(events.at(-1)).toBe('run-complete');
    }
  });
});
