/**
 * Starts crash-agent.ts children for the crash suite and reads what they leave: their one-line outcome
 * (or the SIGKILL that ended them) and the model log of real model calls. Counts every child and kill.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AgentMode, type AgentOutcome, APPEND_BEGIN, type CrashPoint, ENV, type JournalKind, type ModelLogLine, type Scenario } from './protocol';
import { childArgs, ROOT } from '@/tests/support/child-bundles';

const CHILD_TIMEOUT_MS = 45_000;

export interface AgentConfig {
  journal: JournalKind;
  /** PGlite data folder shared by the successive children. */
  dataDir?: string;
  databaseUrl?: string;
  runId: string;
  scenario: Scenario;
  crashPoint: CrashPoint;
  /** The refund service (refund-service.ts); none in 'mcp' mode. */
  serviceUrl?: string;
  modelLog: string;
  /** runDurable (default) or streamDurable (protocol.ts). */
  mode?: AgentMode;
  /** 'mcp' mode: the MCP server's ledger file (the child starts the server: tests/support/mcp-server.ts). */
  mcpLedger?: string;
  /** With crashPoint 'announce-appends': the test SIGKILLs the child `delayMs` after its `nth` append began (aiming inside it). */
  killInsideAppend?: { nth: number; delayMs: number };
}

export interface ChildEnd {
  pid: number;
  /** Ended by SIGKILL (its own, or the test's). */
  killed: boolean;
  code: number | null;
  signal: NodeJS.Signals | null;
  outcome?: AgentOutcome;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface RunningChild {
  pid: number;
  ended: Promise<ChildEnd>;
}

export const totals = { children: 0, kills: 0, childMs: 0 };

export function startAgent(config: AgentConfig): RunningChild {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  Object.assign(env, {
    [ENV.journal]: config.journal,
    [ENV.runId]: config.runId,
    [ENV.scenario]: config.scenario,
    [ENV.crashPoint]: config.crashPoint,
    [ENV.modelLog]: config.modelLog,
    ...(config.serviceUrl ? { [ENV.serviceUrl]: config.serviceUrl } : {}),
    ...(config.mode ? { [ENV.mode]: config.mode } : {}),
    ...(config.mcpLedger ? { [ENV.mcpLedger]: config.mcpLedger, [ENV.mcpServer]: JSON.stringify(childArgs('tests/support/mcp-server.ts')) } : {}),
    ...(config.dataDir ? { [ENV.dataDir]: config.dataDir } : {}),
    ...(config.databaseUrl ? { [ENV.databaseUrl]: config.databaseUrl } : {}),
  });
  const started = performance.now();
  const child = spawn(process.execPath, childArgs('e2e/crash/crash-agent.ts'), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error('crash-agent did not start');
  totals.children += 1;
  let stdout = '';
  let stderr = '';
  let appendsBegun = 0;
  const aim = config.killInsideAppend;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (!aim) return;
    const before = appendsBegun;
    appendsBegun += chunk.split(APPEND_BEGIN).length - 1;
    if (before < aim.nth && appendsBegun >= aim.nth) setTimeout(() => child.kill('SIGKILL'), aim.delayMs);
  });
  const pid = child.pid;
  const ended = new Promise<ChildEnd>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`crash-agent ${pid} (${config.scenario}, ${config.crashPoint}) did not end within ${CHILD_TIMEOUT_MS} ms.\nstderr:\n${stderr}`));
    }, CHILD_TIMEOUT_MS);
    child.on('error', reject);
    // 'close': the process has exited (and been reaped) and its output is fully read.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = performance.now() - started;
      totals.childMs += ms;
      const killed = signal === 'SIGKILL';
      if (killed) totals.kills += 1;
      const line = stdout.trim().split('\n').filter(Boolean).at(-1);
      let outcome: AgentOutcome | undefined;
      if (line) {
        try {
          outcome = JSON.parse(line) as AgentOutcome;
        } catch {
          outcome = undefined;
        }
      }
      resolve({ pid, killed, code, signal, outcome, stdout, stderr, ms });
    });
  });
  return { pid, ended };
}

export function runAgent(config: AgentConfig): Promise<ChildEnd> {
  return startAgent(config).ended;
}

/** A fresh, empty model log file. */
export function newModelLog(): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'gnl-crash-log-')), 'model-calls.jsonl');
  writeFileSync(file, '');
  return file;
}

function readModelLog(modelLog: string): ModelLogLine[] {
  return readFileSync(modelLog, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ModelLogLine);
}

/** Real model calls per step number, from the model log. */
export function modelCallsByStep(modelLog: string): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const line of readModelLog(modelLog)) if ('step' in line) counts[line.step] = (counts[line.step] ?? 0) + 1;
  return counts;
}

/** Real model calls made for a step after some process had recorded that step (each one a bug), and calls a process made twice. */
export function repeatedModelCalls(modelLog: string): string[] {
  const problems: string[] = [];
  const recorded = new Map<number, number>();
  const called = new Set<string>();
  for (const line of readModelLog(modelLog)) {
    if ('recorded' in line) {
      recorded.set(line.recorded, line.pid);
      continue;
    }
    if (!('step' in line)) continue; // an embedding call ('recall' mode)
    const by = recorded.get(line.step);
    if (by !== undefined) problems.push(`process ${line.pid} called the model for step ${line.step}, already recorded by process ${by}`);
    if (called.has(`${line.pid}:${line.step}`)) problems.push(`process ${line.pid} called the model twice for step ${line.step}`);
    called.add(`${line.pid}:${line.step}`);
  }
  return problems;
}

/** A readable account of a child that did not end as expected. */
export function describeEnd(end: ChildEnd): string {
  return `child ${end.pid}: code=${end.code} signal=${end.signal} outcome=${JSON.stringify(end.outcome)}\nstderr:\n${end.stderr}`;
}
