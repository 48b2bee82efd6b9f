/**
 * `gnl` as a real child process, with an environment of the test's choosing and nothing inherited that
 * would point it elsewhere (DATABASE_URL, GNL_DATA_DIR, a model key). It runs lib/cli/cli-entry.ts
 * precompiled (child-bundles.ts), or, with `viaBin`, through bin/gnl.mjs as npx runs it.
 * Every invocation's duration is kept, for the suites to report.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { childArgs, SPAWNED_NODE_FLAGS } from './child-bundles';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/gnl.mjs');

export interface GnlResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface GnlOptions {
  env: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed (default: closed at once, empty). */
  input?: string;
  timeoutMs?: number;
  /** Through bin/gnl.mjs (tsx) instead of the precompiled entry: the launcher a user runs. */
  viaBin?: boolean;
}

export const gnlTimings: { args: string; ms: number }[] = [];

const INHERITED_AWAY = ['DATABASE_URL', 'GNL_DATA_DIR', 'NODE_OPTIONS', 'GNL_DEMO_CRASH_AT', 'GNL_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GNL_DEBUG'];

export function gnl(args: string[], options: GnlOptions): Promise<GnlResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_AWAY) delete env[name];
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined) env[name] = value;
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.viaBin ? [...SPAWNED_NODE_FLAGS, BIN] : childArgs('lib/cli/cli-entry.ts')), ...args], {
    cwd: ROOT,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.end(options.input ?? '');
  const timeoutMs = options.timeoutMs ?? 90_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gnl ${args.join(' ')} did not exit within ${timeoutMs} ms. stdout: ${stdout.slice(-2000)} stderr: ${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      gnlTimings.push({ args: args.join(' '), ms });
      resolve({ code, signal, stdout, stderr, ms });
    });
  });
}

/** Runs gnl with --json and expects success: the parsed result. */
export async function gnlJson<T = any>(args: string[], options: GnlOptions): Promise<T> {
  const result = await gnl([...args, '--json'], options);
  if (result.code !== 0) throw new Error(`gnl ${args.join(' ')} exited ${result.code ?? result.signal}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Median and total of the invocations so far, for a suite's closing line. */
export function timingSummary(): string {
  const times = gnlTimings.map((t) => t.ms).sort((a, b) => a - b);
  if (times.length === 0) return 'no gnl invocations';
  const median = times[Math.floor(times.length / 2)] as number;
  const total = times.reduce((a, b) => a + b, 0);
  return `${times.length} gnl processes, median ${Math.round(median)} ms, slowest ${Math.round(times.at(-1) as number)} ms, total ${(total / 1000).toFixed(1)} s`;
}
