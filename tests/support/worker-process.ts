/**
 * `npm run worker` as real child processes (node --import tsx lib/executor/worker-main.ts), their JSON
 * event lines collected, with the signals the tests send them. Counts every worker started and every
 * signal sent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { childArgs, ROOT } from './child-bundles';

export interface WorkerLine {
  t: string;
  worker: string;
  pid: number;
  type: string;
  runId?: string;
  [key: string]: unknown;
}

export interface WorkerOptions {
  databaseUrl?: string;
  serviceUrl: string;
  concurrency?: number;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  graceMs?: number;
  /** Serve GET /health on this port (0: a free one; the worker's `health` line says which). */
  healthPort?: number;
  env?: Record<string, string>;
}

export const workerTotals = { started: 0, sigkill: 0, sigstop: 0, sigterm: 0 };

export class WorkerProcess {
  readonly child: ChildProcess;
  readonly lines: WorkerLine[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private listeners = new Set<() => void>();

  constructor(options: WorkerOptions) {
    const env: NodeJS.ProcessEnv = { ...process.env, GNL_DEMO_SERVICE_URL: options.serviceUrl, ...options.env };
    delete env.NODE_OPTIONS;
    if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
    else delete env.DATABASE_URL;
    const flag = (name: string, value: number | undefined) => (value === undefined ? [] : [`--${name}`, String(value)]);
    const args = [
      ...flag('concurrency', options.concurrency),
      ...flag('lease-ms', options.leaseMs),
      ...flag('heartbeat-ms', options.heartbeatMs),
      ...flag('poll-ms', options.pollMs),
      ...flag('grace-ms', options.graceMs),
      ...flag('health-port', options.healthPort),
    ];
    this.child = spawn(process.execPath, [...childArgs('lib/executor/worker-main.ts'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    workerTotals.started += 1;
    let buffer = '';
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      for (const part of parts) if (part.trim()) this.lines.push(JSON.parse(part) as WorkerLine);
      for (const listener of this.listeners) listener();
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** The lines of one type (and run). */
  events(type: string, runId?: string): WorkerLine[] {
    return this.lines.filter((line) => line.type === type && (runId === undefined || line.runId === runId));
  }

  /** Resolves with the first line that matches, waiting up to `timeoutMs`. */
  waitFor(match: (line: WorkerLine) => boolean, timeoutMs = 60_000): Promise<WorkerLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.find(match);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`worker ${this.pid}: no matching line within ${timeoutMs} ms. stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  signal(signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT' | 'SIGTERM'): void {
    this.child.kill(signal);
    if (signal === 'SIGKILL') workerTotals.sigkill += 1;
    if (signal === 'SIGSTOP') workerTotals.sigstop += 1;
    if (signal === 'SIGTERM') workerTotals.sigterm += 1;
  }

  /** Ends the worker if it still runs (SIGCONT first, in case it is stopped), for cleanup. */
  async end(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await this.exited;
  }
}

export function startWorker(options: WorkerOptions): WorkerProcess {
  return new WorkerProcess(options);
}
