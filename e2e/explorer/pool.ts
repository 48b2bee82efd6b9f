/**
 * A warm pool of pre-spawned explorer children: each has loaded the bundle (and connected to Postgres
 * when the pool is for one database) and waits for a command. A child ends by its own SIGKILL at a
 * boundary; one that sent its outcome (and gave its journal back) goes back to the pool and takes later
 * commands, as a worker process takes run after run. Never two commands of one schedule (one log) in the
 * same child: every process a schedule names (its pid in the log, fresh after a kill) is one invocation.
 * Taking a child starts a replacement while fewer than `size` wait, so the next resume finds one ready;
 * a child back from a command waits too while no more than `size` do. Measured in quick mode on both
 * journals: 349 child processes before (one per command), 108 with reuse (docs/testing.md).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { ChildMessage, JournalRead, ParentMessage, RunCommand, RunOutcome } from './protocol';
import { SPAWNED_NODE_FLAGS } from '../../tests/support/child-bundles';

const CHILD_TIMEOUT_MS = 60_000;

export type ChildEnd =
  | { killed: true; signal: 'SIGKILL'; pid: number; startMs: number }
  | {
      killed: false;
      pid: number;
      result: RunOutcome;
      boundaries: number;
      startMs: number;
      stderr: string;
      journal?: JournalRead;
      others?: Record<string, JournalRead>;
    };

interface Warm {
  child: ChildProcess;
  ready: Promise<number>;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The schedules (their log files) this child has run a command of. */
  served: Set<string>;
}

export interface PoolStats {
  /** Child processes started (the warm ones that never got a command included). */
  spawned: number;
  /** Commands run, and how many of them in a child that had run another schedule's command before. */
  commands: number;
  reused: number;
  /** Spawn to `ready` (module load, and the Postgres pool connected), ms each. */
  loadMs: number[];
  /** Command sent to the journal open and decisions applied, as the child measured it, ms each. */
  openMs: number[];
  /** Time the explorer waited for a ready child, ms each. */
  waitMs: number[];
}

export class ChildPool {
  readonly stats: PoolStats = { spawned: 0, commands: 0, reused: 0, loadMs: [], openMs: [], waitMs: [] };
  private readonly warm: Warm[] = [];
  private closed = false;

  constructor(
    private readonly bundle: string,
    private readonly size: number,
    private readonly env: Record<string, string> = {},
  ) {
    for (let i = 0; i < size; i++) this.warm.push(this.spawnOne());
  }

  private spawnOne(): Warm {
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.env, EXPLORER_SPAWNED_AT: String(Date.now()) };
    delete env.NODE_OPTIONS; // vitest's loader hooks are not wanted in a precompiled child
    delete env.DATABASE_URL;
    // Liftoff only: PGlite's large WASM module is compiled by the baseline compiler and never tiered up,
    // which halves the CPU a child spends opening PGlite (measured 1.7 s against 3.0 s of CPU); and V8 on one thread (child-bundles.ts).
    const child = spawn(process.execPath, [...SPAWNED_NODE_FLAGS, this.bundle], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env });
    this.stats.spawned += 1;
    // A send on a channel that closed meanwhile is reported by the exit it follows ("ended without an outcome"), not thrown.
    child.on('error', () => {});
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-20_000);
    });
    // 'close', not 'exit': after the IPC channel too, so an outcome sent just before exit(0) is not missed.
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    const ready = new Promise<number>((resolve, reject) => {
      child.once('message', (message: ChildMessage) =>
        message.type === 'ready' ? resolve(message.loadMs) : reject(new Error(`child said ${message.type} first`)),
      );
      exited.then(({ code, signal }) => reject(new Error(`explorer child ${child.pid} exited before ready (code ${code}, signal ${signal}):\n${stderr}`)));
    });
    ready.catch(() => {});
    return { child, ready, stderr: () => stderr, exited, served: new Set() };
  }

  /**
   * Runs one command in a warm child and reports how it ended. `onMessage` hears the child's other
   * messages (hold-terminated) and may answer it with `reply`.
   */
  async run(command: RunCommand, onMessage?: (message: ChildMessage, reply: (message: ParentMessage) => void) => void): Promise<ChildEnd> {
    if (this.closed) throw new Error('the child pool is closed');
    const waited = performance.now();
    // A child that died while it waited (the machine's OOM killer, a stray signal) is dropped, not handed a command.
    const alive = (w: Warm) => w.child.connected && w.child.exitCode === null && w.child.signalCode === null;
    for (const dead of this.warm.filter((w) => !alive(w))) this.warm.splice(this.warm.indexOf(dead), 1);
    const free = this.warm.findIndex((w) => !w.served.has(command.logFile));
    const warm = free >= 0 ? (this.warm.splice(free, 1)[0] as Warm) : this.spawnOne();
    if (this.warm.length < this.size) this.warm.push(this.spawnOne());
    this.stats.commands += 1;
    if (warm.served.size > 0) this.stats.reused += 1;
    else this.stats.loadMs.push(await warm.ready);
    warm.served.add(command.logFile);
    this.stats.waitMs.push(performance.now() - waited);
    const { child } = warm;
    const pid = child.pid as number;
    const sent = performance.now();
    // The outcome is sent after the child released everything (hold, PGlite folder): no need to wait for its exit.
    let listener: ((message: ChildMessage) => void) | undefined;
    const ended = new Promise<{ message?: ChildMessage; exit?: { code: number | null; signal: NodeJS.Signals | null } }>((resolve) => {
      listener = (message: ChildMessage) => {
        if (message.type === 'outcome') resolve({ message });
        else if (message.type !== 'ready') onMessage?.(message, (answer) => child.connected && child.send(answer));
      };
      child.on('message', listener);
      warm.exited.then((exit) => setTimeout(() => resolve({ exit }), 0));
    });
    let again = false;
    child.send(command);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`explorer child ${pid} (${command.scenario}) did not end within ${CHILD_TIMEOUT_MS} ms:\n${warm.stderr()}`));
      }, CHILD_TIMEOUT_MS);
    });
    try {
      const { message, exit } = await Promise.race([ended, timeout]);
      const startMs = performance.now() - sent;
      if (exit?.signal === 'SIGKILL') return { killed: true, signal: 'SIGKILL', pid, startMs };
      if (message?.type !== 'outcome') {
        throw new Error(`explorer child ${pid} ended without an outcome (code ${exit?.code}, signal ${exit?.signal}):\n${warm.stderr()}`);
      }
      this.stats.openMs.push(message.openMs);
      again = message.reusable === true;
      return {
        killed: false,
        pid,
        result: message.result,
        boundaries: message.boundaries,
        startMs,
        stderr: warm.stderr(),
        ...(message.journal ? { journal: message.journal } : {}),
        ...(message.others ? { others: message.others } : {}),
      };
    } finally {
      clearTimeout(timer);
      if (listener) child.off('message', listener);
      // Back to the pool for another schedule's command; else let it go (it exits when its channel closes).
      if (again && !this.closed && child.connected && this.warm.length <= this.size) this.warm.push(warm);
      else if (child.connected) child.disconnect();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = this.warm.splice(0);
    for (const warm of all) warm.child.kill('SIGTERM');
    await Promise.all(all.map((w) => w.exited));
  }
}
