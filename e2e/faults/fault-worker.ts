/**
 * Real `npm run worker` child processes for the fault suites (through worker-entry.ts, which can move
 * the child's clock). Each worker connects under an application_name of its own (`fw-<name>`), so the
 * test can end exactly its backends and the journal audit can tell which worker wrote each event.
 * Counts processes and every signal sent.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { childArgs, ROOT } from '@/tests/support/child-bundles';

export const faultTotals = { processes: 0, sigstop: 0, sigcont: 0, sigkill: 0, sigterm: 0, terminatedBackends: 0 };

export interface WorkerLine {
  t: string;
  worker: string;
  pid: number;
  type: string;
  runId?: string;
  [key: string]: unknown;
}

export interface FaultWorkerOptions {
  name: string;
  databaseUrl: string;
  serviceUrl: string;
  concurrency?: number;
  leaseMs?: number;
  heartbeatMs?: number;
  pollMs?: number;
  graceMs?: number;
  /** Serves GET /health on a free port (`--health-port 0`): the `health` line says which. */
  health?: boolean;
  /** Moves this child's Date.now() and new Date() (GNL_FAULT_CLOCK_SKEW_MS). */
  clockSkewMs?: number;
}

/** The connection string with this worker's application_name. */
export function namedUrl(databaseUrl: string, applicationName: string): string {
  // By hand, not new URL(): a multi-host string (host1:port1,host2:port2) is no WHATWG URL.
  const [base = '', query = ''] = databaseUrl.split('?', 2);
  const params = new URLSearchParams(query);
  params.set('application_name', applicationName);
  return `${base}?${params}`;
}

export class FaultWorker {
  readonly child: ChildProcess;
  readonly applicationName: string;
  readonly lines: WorkerLine[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly listeners = new Set<() => void>();

  constructor(readonly options: FaultWorkerOptions) {
    this.applicationName = `fw-${options.name}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: namedUrl(options.databaseUrl, this.applicationName),
      GNL_DEMO_SERVICE_URL: options.serviceUrl,
      GNL_FAULT_CLOCK_SKEW_MS: String(options.clockSkewMs ?? 0),
    };
    delete env.NODE_OPTIONS;
    const flag = (name: string, value: number | undefined) => (value === undefined ? [] : [`--${name}`, String(value)]);
    const args = [
      ...flag('concurrency', options.concurrency),
      ...flag('lease-ms', options.leaseMs),
      ...flag('heartbeat-ms', options.heartbeatMs),
      ...flag('poll-ms', options.pollMs),
      ...flag('grace-ms', options.graceMs),
      ...flag('health-port', options.health ? 0 : undefined),
    ];
    this.child = spawn(process.execPath, [...childArgs('e2e/faults/worker-entry.ts'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    faultTotals.processes += 1;
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

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  events(type: string, runId?: string): WorkerLine[] {
    return this.lines.filter((line) => line.type === type && (runId === undefined || line.runId === runId));
  }

  /** Runs claimed here whose invocation has not finished (as far as the lines received tell). */
  activeRuns(): string[] {
    const open = new Map<string, number>();
    for (const line of this.lines) {
      if (!line.runId) continue;
      if (line.type === 'claimed') open.set(line.runId, (open.get(line.runId) ?? 0) + 1);
      if (line.type === 'finished') open.set(line.runId, (open.get(line.runId) ?? 0) - 1);
    }
    return [...open].filter(([, n]) => n > 0).map(([runId]) => runId);
  }

  /** Resolves with the first line that matches, waiting up to `timeoutMs` (the child exiting first rejects). */
  waitFor(match: (line: WorkerLine) => boolean, timeoutMs = 60_000): Promise<WorkerLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.find(match);
        if (found) {
          cleanup();
          resolve(found);
        } else if (!this.alive) {
          cleanup();
          reject(new Error(`worker ${this.options.name} (pid ${this.pid}) exited before the line came. stderr: ${this.stderr.slice(-2000)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`worker ${this.options.name} (pid ${this.pid}): no matching line within ${timeoutMs} ms. stderr: ${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
        this.child.off('exit', check);
      };
      this.listeners.add(check);
      this.child.on('exit', check);
      check();
    });
  }

  signal(signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT' | 'SIGTERM'): void {
    this.child.kill(signal);
    const key = signal.toLowerCase() as 'sigkill' | 'sigstop' | 'sigcont' | 'sigterm';
    faultTotals[key] += 1;
  }

  /** SIGTERM, then the exit (a clean stop exits 0). */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (!this.alive) return this.exited;
    this.signal('SIGTERM');
    return this.exited;
  }

  /** Ends the worker if it still runs (SIGCONT first, in case it is stopped), for cleanup. */
  async end(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await this.exited;
  }
}
