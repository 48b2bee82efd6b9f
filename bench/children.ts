/** Child processes of the benchmark: bench workers, the existing bench scripts; RSS from /proc. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..');

export interface Child {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  stderr: () => string;
  waitFor(match: (line: Record<string, unknown>) => boolean, timeoutMs: number): Promise<void>;
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `node --import tsx <script> …args` (one process, so its RSS is the script's) with JSON lines collected from stdout. */
export function spawnTsx(script: string, args: string[], env: Record<string, string>): Child {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS;
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  let buffer = '';
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as Record<string, unknown>);
      } catch {
        lines.push({ text: part });
      }
    }
    for (const l of listeners) l();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    stderr: () => stderr,
    exited,
    waitFor(match, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (lines.some(match)) {
            done();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${path.basename(script)} (pid ${child.pid}): no matching line within ${timeoutMs} ms; stderr: ${stderr.slice(-1500)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exited.then(() => {
          if (listeners.has(check)) {
            done();
            reject(new Error(`${path.basename(script)} exited; stderr: ${stderr.slice(-1500)}`));
          }
        });
        check();
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 8000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident set size of a process in MB (VmRSS), or NaN when it is gone. */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

/** The pids of a process and all its descendants (from /proc). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = parents.get(ppid) ?? [];
      list.push(Number(entry));
      parents.set(ppid, list);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of parents.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}
