/**
 * `gnl` for the suites, with an environment of the test's choosing and nothing inherited that would
 * point it elsewhere (DATABASE_URL, GNL_DATA_DIR, a model key).
 *
 * By default a command runs in the test's own process, through the command line's own entry (`main` in
 * lib/cli/main.ts, the function cli-entry.ts calls) with its streams captured and its environment set for
 * the command's duration: the same parsing, commands, journal and exit codes, its journal opened from the
 * environment and given back at its end as a process does, without a process's start (about 0.2
 * CPU-seconds of Node and the bundle; an embedded journal opened again by a process that opened one
 * before costs about 0.13 CPU-seconds instead of 0.45: docs/testing.md). What only a process shows runs
 * as one: `process: true` (a crash point that kills the gnl process, a signal, a terminal), `--crash-at`
 * on its command line, `viaBin` (bin/gnl.mjs through tsx, as npx runs it), an environment the agents
 * read at load that differs from this process's (another deployment), a command started while another
 * runs in-process (two commands at once are two processes, as they would be), and a storage this process
 * already took from its environment. A crash point that fires in-process makes its tool call fail (the
 * test then sees no SIGKILL) instead of killing the test's process.
 * Every invocation's duration is kept, for the suites to report.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
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
  /** A real gnl process (the precompiled entry): for what only a process shows (a crash point that kills it, a signal). */
  process?: boolean;
}

export const gnlTimings: { args: string; ms: number; where: 'process' | 'in-process' }[] = [];

const INHERITED_AWAY = ['DATABASE_URL', 'GNL_DATA_DIR', 'NODE_OPTIONS', 'GNL_DEMO_CRASH_AT', 'GNL_MODEL', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GNL_DEBUG'];

/**
 * What the deployment's agents read when their modules load (agents/support.ts: the model, checks, approval
 * expiry, the embedding model), and the crash point a process arms from its environment. This process
 * loaded the agents with its own values: a command whose values differ is another deployment, so it runs
 * as a process of its own.
 */
const READ_AT_START = [
  'GNL_MODEL',
  'GNL_DEMO_CRASH_AT',
  'GNL_DEMO_CHECKS',
  'GNL_DEMO_APPROVAL_EXPIRES_MS',
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'OPENAI_BASE_URL',
  'GNL_EMBEDDING_MODEL',
];

let inProcessBusy = false;
/** This process's own environment while an in-process command has swapped in its own (the base of any command started meanwhile). */
let ownEnv: NodeJS.ProcessEnv | undefined;

/** The storage a process keeps from its environment (lib/durable/storage/storage-from-env.ts). */
const STORAGE_FROM_ENV = Symbol.for('gnl.storage.fromEnv');

/** The command's environment: this process's, less what would point it elsewhere, plus the test's. */
function commandEnv(options: GnlOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...(ownEnv ?? process.env) };
  for (const name of INHERITED_AWAY) delete env[name];
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined) env[name] = value;
  return env;
}

export function gnl(args: string[], options: GnlOptions): Promise<GnlResult> {
  const env = commandEnv(options);
  const value = (from: NodeJS.ProcessEnv, name: string) => (from[name] ?? '').trim();
  const anotherDeployment = READ_AT_START.some((name) => value(env, name) !== value(ownEnv ?? process.env, name));
  // A crash point armed on the command line fires in whichever process executes the run: this one, with --wait on PGlite.
  const armsCrash = args.some((arg) => arg === '--crash-at' || arg.startsWith('--crash-at='));
  const everyProcess = process.env.GNL_TEST_CLI_PROCESSES === '1'; // every command a process, as before: for comparing (docs/testing.md)
  // A storage this process already took from its environment (another suite's) would be the command's: a process of its own opens its own.
  const storageHeld = (globalThis as Record<symbol, unknown>)[STORAGE_FROM_ENV] !== undefined;
  if (everyProcess || options.viaBin || options.process || anotherDeployment || armsCrash || inProcessBusy || storageHeld)
    return gnlProcess(args, env, options);
  return gnlInProcess(args, env, options);
}

/** `gnl` as a child process: the precompiled entry, or bin/gnl.mjs with `viaBin`. */
function gnlProcess(args: string[], env: NodeJS.ProcessEnv, options: GnlOptions): Promise<GnlResult> {
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
      gnlTimings.push({ args: args.join(' '), ms, where: 'process' });
      resolve({ code, signal, stdout, stderr, ms });
    });
  });
}

/** A stream that keeps what is written to it. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * `gnl` in this process: `main` with captured streams, `input` on a piped (not a terminal) stdin, and
 * the command's environment in process.env while it runs (put back after). Anything else the command
 * writes to the process's streams or the console meanwhile is its output too, as it would be in a
 * process. A crash point (process.kill of this process) fails the command instead of killing vitest.
 */
async function gnlInProcess(args: string[], env: NodeJS.ProcessEnv, options: GnlOptions): Promise<GnlResult> {
  inProcessBusy = true;
  const saved = { ...process.env };
  ownEnv = saved;
  const stdout = capture();
  const stderr = capture();
  const stdin = new PassThrough();
  stdin.end(options.input ?? '');
  const restore: (() => void)[] = [];
  const redirect = <T extends object, K extends keyof T>(target: T, key: K, value: T[K]) => {
    const original = target[key];
    target[key] = value;
    restore.push(() => {
      target[key] = original;
    });
  };
  const started = performance.now();
  try {
    for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
    Object.assign(process.env, env);
    const write = (to: Writable) =>
      ((chunk: string | Uint8Array) => to.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))) as typeof process.stdout.write;
    redirect(process.stdout, 'write', write(stdout.stream));
    redirect(process.stderr, 'write', write(stderr.stream));
    const line =
      (to: Writable) =>
      (...values: unknown[]) => {
        to.write(`${values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ')}\n`);
      };
    for (const method of ['log', 'info'] as const) redirect(console, method, line(stdout.stream));
    for (const method of ['error', 'warn'] as const) redirect(console, method, line(stderr.stream));
    const kill = process.kill.bind(process);
    redirect(process, 'kill', ((pid: number, signal?: string | number) => {
      if (pid === process.pid)
        throw new Error(`gnl ${args.join(' ')} sent ${signal ?? 'SIGTERM'} to its own process in-process (a crash point?): run it with { process: true }`);
      return kill(pid, signal);
    }) as typeof process.kill);
    const { main } = await import('@/lib/cli/main');
    const timeoutMs = options.timeoutMs ?? 90_000;
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      main(['node', 'gnl', ...args], { stdout: stdout.stream, stderr: stderr.stream, stdin: stdin as unknown as NodeJS.ReadStream }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `gnl ${args.join(' ')} (in-process) did not end within ${timeoutMs} ms. stdout: ${stdout.text().slice(-2000)} stderr: ${stderr.text().slice(-2000)}`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const ms = performance.now() - started;
    gnlTimings.push({ args: args.join(' '), ms, where: 'in-process' });
    return { code, signal: null, stdout: stdout.text(), stderr: stderr.text(), ms };
  } finally {
    for (const undo of restore.reverse()) undo();
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
    ownEnv = undefined;
    // A command past its timeout (its test failed) may go on: its console output then reaches vitest's, and it reads
    // whatever environment comes next. The next command runs in-process again.
    inProcessBusy = false;
  }
}

/** Runs gnl with --json and expects success: the parsed result. */
export async function gnlJson<T = any>(args: string[], options: GnlOptions): Promise<T> {
  const result = await gnl([...args, '--json'], options);
  if (result.code !== 0) throw new Error(`gnl ${args.join(' ')} exited ${result.code ?? result.signal}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Median and total of the invocations so far, for a suite's closing line. */
export function timingSummary(): string {
  const part = (where: 'process' | 'in-process') => {
    const times = gnlTimings
      .filter((t) => t.where === where)
      .map((t) => t.ms)
      .sort((a, b) => a - b);
    if (times.length === 0) return `no gnl ${where === 'process' ? 'processes' : 'commands in-process'}`;
    const median = times[Math.floor(times.length / 2)] as number;
    const total = times.reduce((a, b) => a + b, 0);
    return `${times.length} gnl ${where === 'process' ? 'processes' : 'commands in-process'}, median ${Math.round(median)} ms, slowest ${Math.round(times.at(-1) as number)} ms, total ${(total / 1000).toFixed(1)} s`;
  };
  return `${part('in-process')}; ${part('process')}`;
}
