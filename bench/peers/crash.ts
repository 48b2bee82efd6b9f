/**
 * The crash row: a process runs the agent and is SIGKILLed inside a side effect, after the effect acted
 * (counted at the outside counter) and before it was recorded; a new process of the same system then
 * recovers the run. The counter says what happened to that effect: run again (count 2), blocked for a
 * person (count 1, the run waits), or deduplicated (count 1, the run completes).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { CrashChildArgs, CrashChildOutcome } from './crash-child';
import { ExecutionCounter } from './counter';

const CRASH_STEP = 5;
const CHILD = path.join(import.meta.dirname, 'crash-child.ts');
const CHILD_TIMEOUT_MS = 120_000;

export interface CrashFinding {
  verdict: 'ran again' | 'blocked for a person' | 'deduplicated' | 'not measured';
  /** Executions of the killed effect counted outside the process. */
  count: number | null;
  crashed: string;
  recovered: CrashChildOutcome | null;
  summary: string;
}

function runChild(args: CrashChildArgs): Promise<{ signal: NodeJS.Signals | null; code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('error', (error) => reject(new Error('crash child did not start', { cause: error })));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function lastJsonLine(stdout: string): CrashChildOutcome | null {
  const line = stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .at(-1);
  return line ? (JSON.parse(line) as CrashChildOutcome) : null;
}

export async function crashScenario(system: CrashChildArgs['system'], databaseUrl: string): Promise<CrashFinding> {
  const counter = await ExecutionCounter.start();
  try {
    const runId = `peers-crash-${system}-${randomUUID()}`;
    const base = { system, runId, crashStep: CRASH_STEP, counterUrl: counter.url, databaseUrl };
    const crashed = await runChild({ ...base, mode: 'crash' });
    const key = `${runId}:${CRASH_STEP}`;
    const crashedHow =
      crashed.signal === 'SIGKILL'
        ? `SIGKILLed inside step ${CRASH_STEP}'s effect (count ${counter.count(key)})`
        : `did not die as planned: ${crashed.code ?? crashed.signal} ${crashed.stdout.trim()} ${crashed.stderr.trim().slice(-500)}`;
    if (crashed.signal !== 'SIGKILL' || counter.count(key) !== 1) {
      return { verdict: 'not measured', count: counter.count(key), crashed: crashedHow, recovered: null, summary: `not measured: ${crashedHow}` };
    }
    const recovered = await runChild({ ...base, mode: 'recover' });
    const outcome = lastJsonLine(recovered.stdout);
    const count = counter.count(key);
    const later = Array.from({ length: 20 - CRASH_STEP - 1 }, (_, i) => counter.count(`${runId}:${CRASH_STEP + 1 + i}`));
    const laterNote = `; later steps ran ${later.every((c) => c === 1) ? 'once each' : `${JSON.stringify(later)} times`}`;
    if (!outcome) {
      return {
        verdict: 'not measured',
        count,
        crashed: crashedHow,
        recovered: null,
        summary: `not measured: the recovering process printed no outcome (${recovered.code ?? recovered.signal}; ${recovered.stderr.trim().slice(-300)})`,
      };
    }
    if (count >= 2)
      return {
        verdict: 'ran again',
        count,
        crashed: crashedHow,
        recovered: outcome,
        summary: `ran again: the killed effect counted ${count}, run ${outcome.outcome}${outcome.outcome === 'completed' ? laterNote : `: ${outcome.detail}`}`,
      };
    if (outcome.outcome === 'blocked')
      return {
        verdict: 'blocked for a person',
        count,
        crashed: crashedHow,
        recovered: outcome,
        summary: `blocked for a person: count ${count}; ${outcome.detail}`,
      };
    if (outcome.outcome === 'completed')
      return { verdict: 'deduplicated', count, crashed: crashedHow, recovered: outcome, summary: `deduplicated: count ${count}, run completed${laterNote}` };
    return { verdict: 'not measured', count, crashed: crashedHow, recovered: outcome, summary: `not measured: recovery ended in error (${outcome.detail})` };
  } finally {
    await counter.close();
  }
}
