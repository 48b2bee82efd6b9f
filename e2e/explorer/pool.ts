/**
 * A warm pool of pre-spawned explorer children: each has loaded the bundle (and connected to Postgres
 * when the pool is for one database) and waits for its command. Taking one starts a replacement, so
 * the next resume finds a child ready. Each child runs one command and ends: by its own SIGKILL at a
 * boundary, or by exiting after it sent its outcome.
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
}

export interface PoolStats {
  spawned: number;
  /** Spawn to `ready` (module load, and the Postgres pool connected), ms each. */
  loadMs: number[];
  /** Command sent to the journal open and decisions applied, as the child measured it, ms each. */
  openMs: number[];
  /** Time the explorer waited for a ready child, ms each. */
  waitMs: number[];
}

export class ChildPool {
  readonly stats: PoolStats = { spawned: 0, loadMs: [], openMs: [], waitMs: [] };
  private readonly warm: Warm[] = [];
  private closed = false;

  constructor(
    private readonly bundle: string,
    size: number,
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
    return { child, ready, stderr: () => stderr, exited };
  }

  /**
   * Runs one command in a warm child and reports how it ended. `onMessage` hears the child's other
   * messages (hold-terminated) and may answer it with `reply`.
   */
  async run(command: RunCommand, onMessage?: (message: ChildMessage, reply: (message: ParentMessage) => void) => void): Promise<ChildEnd> {
    if (this.closed) throw new Error('the child pool is closed');
    const waited = performance.now();
    const warm = this.warm.shift() ?? this.spawnOne();
    this.warm.push(this.spawnOne());
    const loadMs = await warm.ready;
    this.stats.loadMs.push(loadMs);
    this.stats.waitMs.push(performance.now() - waited);
    const { child } = warm;
    const pid = child.pid as number;
    const sent = performance.now();
    // The outcome is sent after the child released everything (hold, PGlite folder): no need to wait for its exit.
    const ended = new Promise<{ message?: ChildMessage; exit?: { code: number | null; signal: NodeJS.Signals | null } }>((resolve) => {
      child.on('message', (message: ChildMessage) => {
        if (message.type === 'outcome') resolve({ message });
        else if (message.type !== 'ready') onMessage?.(message, (answer) => child.connected && child.send(answer));
      });
      warm.exited.then((exit) => setTimeout(() => resolve({ exit }), 0));
    });
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
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = this.warm.splice(0);
    for (const warm of all) warm.child.kill('SIGTERM');
    await Promise.all(all.map((w) => w.exited));
  }
}
