/**
 * One schedule: a scenario run from its start to its end in successive child processes, the k-th
 * process that passes boundary `kills[k]` (counted since the schedule began, then since the previous
 * kill) dying there by its own SIGKILL. After a kill the run is resumed in a fresh process with the same
 * runId; a run waiting for approval is approved, a blocked side effect is resolved as an operator would
 * (the outside world's own store says whether it was executed: done with its result, else not done), a
 * failed run is resumed, a client-side tool's call is answered with provideToolResult, until it completes
 * or is canceled. Besides the kills the schedule's Faults (faults.ts) play: the model server answers
 * with the drawn provider faults and id shapes, the children race the drawn operator requests at their
 * boundaries and terminate their hold's session inside a side effect, a rival process resuming the run
 * while that execute waits. Then the invariants are judged.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeFaults, type Faults, NO_FAULTS } from './faults';
import { judge } from './invariants';
import type { JournalTarget } from './journal-targets';
import { startModelServer } from './model-server';
import { startOutsideWorld } from './outside-world';
import type { ChildPool } from './pool';
import type { JournalRead, LogLine, OperatorDecision, RunCommand, RunOutcome } from './protocol';
import { DEDUPE_KINDS, FLAKY_KINDS, type Scenario } from './scenarios';

const MAX_INVOCATIONS = 25;

export interface ScheduleResult {
  scenario: string;
  journal: string;
  /** The planned kill points. */
  schedule: number[];
  /** The schedule's other faults, as describeFaults writes them, and the plan that replays it (JSON). */
  faults: string;
  replay: string;
  /** Kills that happened (a planned one beyond the run's last boundary does not). */
  kills: number;
  /** The boundary label at each kill. */
  killedAt: string[];
  /** Every boundary passed, in order, across the schedule's processes. */
  boundaries: string[];
  children: number;
  busyRetries: number;
  checks: number;
  violations: string[];
  ms: number;
}

export async function runSchedule(args: {
  scenario: Scenario;
  target: JournalTarget;
  pool: ChildPool;
  kills: readonly number[];
  faults?: Faults;
  seed?: number;
}): Promise<ScheduleResult> {
  const { scenario, target, pool, kills } = args;
  const faults = args.faults ?? NO_FAULTS;
  const seed = args.seed ?? 0;
  const started = performance.now();
  const world = await startOutsideWorld({ dedupe: DEDUPE_KINDS, flaky: FLAKY_KINDS });
  const model = await startModelServer({ script: scenario.script, faults: faults.provider, ids: faults.ids, seed });
  const journal = await target.forSchedule();
  const logDir = mkdtempSync(path.join(tmpdir(), 'gnl-explorer-log-'));
  const logFile = path.join(logDir, 'schedule.jsonl');
  const runId = `explorer:${scenario.name}:${randomUUID()}`;
  const result: ScheduleResult = {
    scenario: scenario.name,
    journal: target.kind,
    schedule: [...kills],
    faults: describeFaults(faults),
    replay: JSON.stringify({ scenario: scenario.name, kills, faults, seed }),
    kills: 0,
    killedAt: [],
    boundaries: [],
    children: 0,
    busyRetries: 0,
    checks: 0,
    violations: [],
    ms: 0,
  };
  try {
    let sinceKill = 0;
    const killedPids: number[] = [];
    let decisions: OperatorDecision[] = [];
    let saidNotDone = false;
    let last: RunOutcome | undefined;
    let settled = false;
    let read: JournalRead | undefined;
    for (let invocation = 0; invocation < MAX_INVOCATIONS && !settled; invocation++) {
      const next = kills[result.kills];
      const killAt = next === undefined ? null : next - sinceKill;
      const command: RunCommand = {
        type: 'run',
        scenario: scenario.name,
        runId,
        journal: journal.location,
        serviceUrl: world.url,
        modelUrl: model.url,
        invocation,
        ...(faults.stream ? { stream: true } : {}),
        races: faults.races.filter((r) => r.invocation === invocation).map(({ boundary, action }) => ({ boundary, action })),
        terminateHold: faults.terminateHold?.invocation === invocation,
        logFile,
        killAt,
        decisions,
        readJournal: journal.readByChild,
      };
      // The child lost its hold session inside a side effect and waits: resume the run in a rival process meanwhile.
      const end = await pool.run(command, (message, reply) => {
        if (message.type !== 'hold-terminated') return;
        const rival = { ...command, invocation: invocation + 1, races: [], terminateHold: false, killAt: null, decisions: [], readJournal: false };
        pool
          .run(rival)
          .then((rivalEnd) => {
            result.children += 1;
            if (!rivalEnd.killed && rivalEnd.result.outcome === 'error') {
              result.violations.push(`rival ${rivalEnd.pid} failed: ${rivalEnd.result.name}: ${rivalEnd.result.message}\n${rivalEnd.result.stack ?? ''}`);
            }
          })
          .catch((error: unknown) => result.violations.push(`rival resume failed to run: ${String(error)}`))
          .finally(() => reply({ type: 'continue' }));
      });
      result.children += 1;
      decisions = [];
      if (end.killed) {
        result.kills += 1;
        killedPids.push(end.pid);
        sinceKill = 0;
        last = undefined;
        continue;
      }
      sinceKill += end.boundaries;
      last = end.result;
      switch (end.result.outcome) {
        case 'completed':
        case 'canceled':
          settled = true;
          read = end.journal;
          break;
        case 'waiting-approval':
          decisions = end.result.pending.map((p) => ({ kind: 'approve', toolCallId: p.toolCallId }));
          break;
        case 'waiting-tool-result':
          decisions = end.result.pending.map((p) => ({ kind: 'provide', toolCallId: p.toolCallId, output: { answer: 'yes', by: 'explorer' } }));
          break;
        case 'blocked': {
          const kind = scenario.sideEffects[end.result.toolName];
          const found = kind ? world.store()[kind]?.[end.result.idempotencyKey]?.first : undefined;
          if (found) decisions = [{ kind: 'resolve', toolCallId: end.result.toolCallId, outcome: 'done', output: found }];
          else {
            saidNotDone = true;
            decisions = [{ kind: 'resolve', toolCallId: end.result.toolCallId, outcome: 'not-done' }];
          }
          break;
        }
        case 'failed':
          // Only the explorer ends a hold's session, and only where the schedule says: any other loss is the runtime's.
          if (end.result.name === 'ConnectionError') {
            result.violations.push(
              `process ${end.pid}: a journal call failed on a connection the server had ended (${end.result.message}); the storage must replace connections idle_session_timeout ends`,
            );
          }
          if (end.result.name === 'HoldLostError' && !command.terminateHold) {
            result.violations.push(
              `process ${end.pid} lost its hold though nobody ended its session (the database's idle_session_timeout?): ${end.result.message}`,
            );
          }
          break;
        case 'busy':
          // The killed holder's session may take a moment to end on the server: resume again.
          result.busyRetries += 1;
          await new Promise((resolve) => setTimeout(resolve, 50));
          break;
        case 'error':
          result.violations.push(`child ${end.pid} failed: ${end.result.name}: ${end.result.message}\n${end.result.stack ?? ''}\n${end.stderr}`);
          settled = true;
          break;
      }
    }
    if (!settled) result.violations.push(`the run did not settle in ${MAX_INVOCATIONS} invocations (last outcome ${JSON.stringify(last)})`);
    const log = readLog(logFile);
    result.boundaries = log.flatMap((line) => (line.kind === 'boundary' ? [line.label] : []));
    result.killedAt = killLabels(log, killedPids);
    const rows = read ?? (await journal.read(runId));
    const verdict = judge({ scenario, journal: rows, store: world.store(), log, saidNotDone, modelRequests: model.requests() });
    result.checks = verdict.checks;
    result.violations.push(...verdict.violations);
    // EXPLORER_DUMP=1: a violation comes with the journal's events and the schedule log, to read what happened.
    if (process.env.EXPLORER_DUMP && result.violations.length > 0) result.violations.push(`journal and log:\n${dump(rows, log)}`);
    else if (process.env.EXPLORER_DUMP === 'always') console.error(`[explorer] ${scenario.name}: journal and log:\n${dump(rows, log)}`);
  } finally {
    await world.close();
    await model.close();
    await journal.dispose();
    rmSync(logDir, { recursive: true, force: true });
  }
  result.ms = performance.now() - started;
  return result;
}

function readLog(file: string): LogLine[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogLine);
}

/** The boundary each killed process died at: the last one it passed. */
function killLabels(log: LogLine[], killedPids: number[]): string[] {
  const lastByPid = new Map<number, string>();
  for (const line of log) if (line.kind === 'boundary') lastByPid.set(line.pid, line.label);
  return killedPids.map((pid) => lastByPid.get(pid) ?? '(none)');
}

function dump(rows: JournalRead, log: LogLine[]): string {
  const brief = (p: Record<string, unknown>) =>
    ['step', 'toolCallId', 'toolName', 'attempt', 'source', 'status', 'approved', 'outcome', 'kind', 'fromStatus', 'retryable']
      .filter((k) => p[k] !== undefined)
      .map((k) => `${k}=${JSON.stringify(p[k])}`)
      .join(' ');
  const events = rows.events.map((e) => `    #${e.seq} ${e.type} ${brief(e.payload)}`);
  const lines = log
    .filter((l) => l.kind !== 'boundary' || !l.label.startsWith('before:'))
    .map((l) => `    [${l.pid}] ${JSON.stringify({ ...l, pid: undefined })}`);
  return [`    status ${rows.run?.status}`, ...events, '    --- log', ...lines].join('\n');
}
