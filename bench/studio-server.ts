/**
 * The real Studio for figures 4 and 6: its server (scripts/studio-server.mjs, as `npm run studio` runs it) on an existing build (built first when there is
 * none), on a free loopback port, reading the bench database. When it runs from the shared checkout the
 * lock /tmp/gnl-playwright.lock (other engineers build .next too) is held by `flock` for the server's
 * lifetime, so keep it short.
 * Signing in: an operator account made with lib/accounts (addOperator, then verifyOperator with its
 * password), and the session cookie the Studio sets after a sign-in, signed with the GNL_SESSION_SECRET
 * the server is started with.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { addOperator, startOperatorSession, verifyOperator } from '../lib/accounts';
import type { PostgresStorage } from '../lib/durable/storage';
import { SESSION_COOKIE, sessionExpiry, signSessionToken } from '../lib/studio/auth/session-token';
import { ROOT } from './children';
import { sleep } from './stats';

export const LOCK = '/tmp/gnl-playwright.lock';

export interface StudioServer {
  baseUrl: string;
  cookie: string;
  /** The flock process; the server is its child (see serverPids). */
  process: ChildProcess;
  /** The built app existed (false: it was built now, under the lock). */
  reusedBuild: boolean;
  /** The folder it runs from. */
  app: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Where the built Studio is: GNL_BENCH_STUDIO_DIR (default /tmp/gnl-bench-studio) when it holds a build
 * (a snapshot of the last commit, `git archive HEAD` with node_modules hard-linked, built there: for a
 * shared checkout whose sources are mid-change and whose .next others rebuild); else this checkout,
 * built first if it has no build, under the shared lock.
 */
function studioApp(): { dir: string; shared: boolean } {
  const snapshot = process.env.GNL_BENCH_STUDIO_DIR ?? '/tmp/gnl-bench-studio';
  if (existsSync(path.join(snapshot, '.next', 'BUILD_ID'))) return { dir: snapshot, shared: false };
  return { dir: ROOT, shared: true };
}

export async function signedInCookie(storage: PostgresStorage, secret: string): Promise<string> {
  const login = `bench-${randomBytes(4).toString('hex')}`;
  const password = randomBytes(18).toString('base64url');
  await addOperator({ login, name: 'Benchmark', password, by: 'bench', storage });
  const result = await verifyOperator(login, password, { storage });
  if (!result.ok) throw new Error(`bench: the new operator could not sign in: ${result.message}`);
  const { sessionId } = await startOperatorSession({ operatorId: result.operator.id, expiresAt: sessionExpiry(), storage });
  return `${SESSION_COOKIE}=${signSessionToken({ operatorId: result.operator.id, sessionId, secret: Buffer.from(secret, 'utf8') })}`;
}

export async function startStudio(args: { url: string; storage: PostgresStorage; log: (m: string) => void; timeoutMs?: number }): Promise<StudioServer> {
  const secret = randomBytes(32).toString('base64url');
  const cookie = await signedInCookie(args.storage, secret);
  const port = await freePort();
  const next = path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next');
  const { dir: app, shared } = studioApp();
  const reusedBuild = existsSync(path.join(app, '.next', 'BUILD_ID'));
  const script = `test -f .next/BUILD_ID || "${process.execPath}" "${next}" build >&2 || exit 3; exec "${process.execPath}" scripts/studio-server.mjs --hostname 127.0.0.1 --port ${port}`;
  args.log(`studio: ${shared ? `waiting for ${LOCK}, then ` : ''}${reusedBuild ? '' : 'next build, then '}scripts/studio-server.mjs in ${app} on port ${port}`);
  // The shared checkout's .next is rebuilt by others under the lock: hold it while the server runs from it.
  const [command, commandArgs] = shared ? ['flock', ['-w', '600', LOCK, 'sh', '-c', script]] : ['sh', ['-c', script]];
  const child = spawn(command as string, commandArgs as string[], {
    cwd: app,
    env: {
      ...process.env,
      NODE_OPTIONS: '',
      DATABASE_URL: args.url,
      GNL_SESSION_SECRET: secret,
      GNL_DEMO_SERVICE: 'off',
      GNL_DEMO_SERVICE_URL: 'http://127.0.0.1:9',
      GNL_MODEL: '',
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    output += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    output += c;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // flock and sh pass no signal on: end the server (their child) first.
    const { processTree } = await import('./children');
    for (const pid of processTree(child.pid as number).reverse()) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // gone
      }
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (args.timeoutMs ?? 600_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`bench: the Studio exited (${child.exitCode}): ${output.slice(-3000)}`);
    try {
      const response = await fetch(`${baseUrl}/sign-in`, { redirect: 'manual' });
      if (response.status < 500) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`bench: the Studio did not answer within ${args.timeoutMs} ms: ${output.slice(-3000)}`);
    }
    await sleep(250);
  }
  return { baseUrl, cookie, process: child, reusedBuild, app, stop };
}

/** One SSE connection: calls onMessage for every message; `close()` aborts it. */
export function openStream(url: string, cookie: string, onMessage: (event: string, data: unknown, at: number) => void) {
  const controller = new AbortController();
  const opened = (async () => {
    const response = await fetch(url, { headers: { cookie, accept: 'text/event-stream' }, signal: controller.signal });
    if (response.status !== 200 || !response.body) throw new Error(`bench: ${url} answered ${response.status}: ${await response.text()}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const pump = async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        const at = performance.now();
        buffer += value;
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let event = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('data: ')) data += line.slice(6);
          }
          if (data) onMessage(event, JSON.parse(data), at);
          cut = buffer.indexOf('\n\n');
        }
      }
    };
    void pump();
  })();
  return { opened, close: () => controller.abort() };
}
