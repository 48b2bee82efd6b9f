/**
 * One schedule: a scenario run from its start to its end in successive child processes, the k-th
 * process that passes boundary `kills[k]` (counted since the schedule began, then since the previous
 * kill) dying there by its own SIGKILL. After a kill the run is resumed in another process with the same
 * runId (one that ran nothing of this schedule: pool.ts); a run waiting for approval is approved, a blocked side effect is resolved as an operator would
 * (the outside world's own store says whether it was executed: done with its result, else not done), a
 * failed run is resumed, a client-side tool's call is answered with provideToolResult, until it completes
 * or is canceled. Besides the kills the schedule's Faults (faults.ts) play: the model server answers
 * with the drawn provider faults and id shapes, the children race the drawn operator requests at their
 * boundaries and terminate their hold's session inside a side effect, a rival process resuming the run
 * while that execute waits. An agent scenario's operator migrates, forks and restarts the run
 * (versions.ts); once the parent settled, its restart is run until it settles or stops (failed with
 * SideEffectElsewhereError), then each fork made to its end (the service deduplicating by key from then
 * on). Then the invariants are judged: the parent's (invariants.ts), the restart's (restart-invariants.ts),
 * each fork's (fork-invariants.ts). A workflow scenario (workflow-scenarios.ts) is run the same way, its
 * event sent when the run waits for it (twice under one id) or where the schedule races it, and judged
 * with its child runs by workflow-invariants.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeFaults, type Faults, NO_FAULTS } from './faults';
import { judgeFork, parentUnchanged } from './fork-invariants';
import { judge } from './invariants';
import { judgeRestart } from './restart-invariants';
import { judgeWorkflow } from './workflow-invariants';
import type { JournalTarget } from './journal-targets';
import { startModelServer } from './model-server';
import { startOutsideWorld } from './outside-world';
import type { ChildPool } from './pool';
import type { CommandVersionOp, JournalRead, LogLine, OperatorDecision, RunCommand, RunOutcome } from './protocol';
import { DEDUPE_KINDS, FLAKY_KINDS, type Scenario } from './scenarios';

const MAX_INVOCATIONS = 25;

type KnownStore = ReturnType<Awaited<ReturnType<typeof startOutsideWorld>>['store']>;
type KnownWorks = ReturnType<Awaited<ReturnType<typeof startOutsideWorld>>['works']>;

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
  /** Migrations the journal accepted, forks made and run to their end, restarts made and run (versions.ts). */
  migrations: number;
  forks: number;
  restarts: number;
  busyRetries: number;
  /** The operator requests the journal accepted, in order: `resolve done`, `race event recorded`, `event not recorded` (a second send of one id). */
  decisions: string[];
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
    migrations: 0,
    forks: 0,
    restarts: 0,
    busyRetries: 0,
    decisions: [],
    checks: 0,
    violations: [],
    ms: 0,
  };
  try {
    let sinceKill = 0;
    const killedPids: number[] = [];
    const forkOps = (faults.versions ?? []).flatMap((op, i) => (op.kind === 'fork' ? [{ op, childRunId: `${runId}:fork-${i}` }] : []));
    const restartOps = (faults.versions ?? []).flatMap((op, i) => (op.kind === 'restart' ? [{ op, childRunId: `${runId}:restart-${i}` }] : []));
    /** The operator's migrations, forks and restarts of the parent's process `invocation`, as that process makes them. */
    const versionOpsOf = (invocation: number): CommandVersionOp[] =>
      (faults.versions ?? []).flatMap((op, i): CommandVersionOp[] => {
        if (op.invocation !== invocation) return [];
        if (op.kind === 'migrate') return [{ kind: 'migrate', to: op.to, force: op.force, boundary: op.boundary }];
        if (op.kind === 'restart') return [{ kind: 'restart', parent: runId, childRunId: `${runId}:restart-${i}`, boundary: op.boundary }];
        return [
          {
            kind: 'fork',
            parent: runId,
            childRunId: `${runId}:fork-${i}`,
            fraction: op.fraction,
            ...(op.instruction ? { instruction: op.instruction } : {}),
            boundary: op.boundary,
          },
        ];
      });
    /**
     * Runs `id` in successive processes until it settles: kills (counted across the whole schedule),
     * decisions, retries. The parent's processes get the schedule's races and version operations; a
     * fork's first process may make the fork itself (`firstOps`) and must then find it (`mustExist`).
     */
    const drive = async (id: string, options: { parent: boolean; firstOps?: CommandVersionOp[]; mustExist?: boolean; alsoRead?: string[] }) => {
      let decisions: OperatorDecision[] = [];
      let saidNotDone = false;
      let last: RunOutcome | undefined;
      let settled = false;
      let absent = false;
      let read: JournalRead | undefined;
      let others: Record<string, JournalRead> | undefined;
      for (let invocation = 0; invocation < MAX_INVOCATIONS && !settled; invocation++) {
        const next = kills[result.kills];
        const killAt = next === undefined ? null : next - sinceKill;
        const versionOps = options.parent ? versionOpsOf(invocation) : invocation === 0 ? (options.firstOps ?? []) : [];
        // A workflow's event: sent before this process runs, or at its boundaries (racing the wait), as the schedule says.
        const sends = options.parent ? (faults.events ?? []).filter((e) => e.invocation === invocation) : [];
        const event = scenario.workflow?.event;
        if (event && sends.some((e) => e.boundary === 'before')) decisions = [...decisions, { kind: 'event', ...event }];
        const eventSends = sends.flatMap((e) => (e.boundary === 'before' ? [] : [{ boundary: e.boundary }]));
        const command: RunCommand = {
          type: 'run',
          scenario: scenario.name,
          runId: id,
          journal: journal.location,
          serviceUrl: world.url,
          modelUrl: model.url,
          invocation,
          ...(faults.stream ? { stream: true } : {}),
          races: options.parent ? faults.races.filter((r) => r.invocation === invocation).map(({ boundary, action }) => ({ boundary, action })) : [],
          terminateHold: options.parent && faults.terminateHold?.invocation === invocation,
          logFile,
          killAt,
          decisions,
          ...(eventSends.length > 0 ? { eventSends } : {}),
          readJournal: journal.readByChild,
          ...(scenario.agent ? { agent: true } : {}),
          ...(versionOps.length > 0 ? { versionOps } : {}),
          ...(options.mustExist ? { mustExist: true } : {}),
          ...(options.alsoRead ? { alsoRead: options.alsoRead } : {}),
        };
        // The child lost its hold session inside a side effect and waits: resume the run in a rival process meanwhile.
        const end = await pool.run(command, (message, reply) => {
          if (message.type !== 'hold-terminated') return;
          const rival = {
            ...command,
            invocation: invocation + 1,
            races: [],
            versionOps: [],
            terminateHold: false,
            killAt: null,
            decisions: [],
            readJournal: false,
          };
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
          case 'absent':
            settled = true;
            absent = end.result.outcome === 'absent';
            read = end.journal;
            others = end.others;
            break;
          case 'waiting-approval':
            decisions = end.result.pending.map((p) => ({ kind: 'approve', toolCallId: p.toolCallId }));
            break;
          case 'waiting-tool-result':
            decisions = end.result.pending.map((p) => ({ kind: 'provide', toolCallId: p.toolCallId, output: { answer: 'yes', by: 'explorer' } }));
            break;
          case 'blocked': {
            // Only a side effect without check or retrySafe may stop a workflow for a person.
            if (scenario.workflow && !scenario.workflow.mayBlock.includes(end.result.toolName))
              result.violations.push(`process ${end.pid}: the run is blocked on step ${end.result.toolName}, which has a check or is retrySafe`);
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
            // A repeat of the job's work of unknown outcome in another run: nothing here decides it, the run stays stopped.
            if (end.result.name === 'SideEffectElsewhereError') {
              settled = true;
              read = end.journal;
              others = end.others;
              break;
            }
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
          case 'waiting': {
            // A workflow waits for its event: sent now, twice under its one id (a retried send), before the next process runs.
            const event = scenario.workflow?.event;
            if (event && end.result.waitingFor.some((w) => w.kind === 'event' && w.event === event.name))
              decisions = [
                { kind: 'event', ...event },
                { kind: 'event', ...event },
              ];
            else {
              result.violations.push(`process ${end.pid}: the run waits for ${JSON.stringify(end.result.waitingFor)}, which nothing in the schedule will send`);
              settled = true;
            }
            break;
          }
          case 'stuck':
            result.violations.push(`process ${end.pid}: the run is stuck: ${end.result.detail}`);
            settled = true;
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
      if (!settled) result.violations.push(`run ${id} did not settle in ${MAX_INVOCATIONS} invocations (last outcome ${JSON.stringify(last)})`);
      return { saidNotDone, absent, read, others };
    };

    // A workflow's child runs are read and judged with it (PGlite: by the settling child, as the parent's rows are).
    const childRunIds = (scenario.workflow?.children ?? []).map((suffix) => `${runId}/${suffix}`);
    const parent = await drive(runId, { parent: true, ...(childRunIds.length > 0 ? { alsoRead: childRunIds } : {}) });
    const settledStore = world.store();
    const parentAtSettle = parent.read ?? (await journal.read(runId));
    const childRows: Record<string, JournalRead> = {};
    for (const id of childRunIds) childRows[id] = parent.others?.[id] ?? (await journal.read(id));
    let parentRows = parentAtSettle;
    const restarts: { childRunId: string; rows: JournalRead; before: KnownWorks; after: KnownWorks; saidNotDone: boolean }[] = [];
    // The restart phase, before any fork runs: the old run and its restart are judged on the world's counters per piece of work.
    for (const { op, childRunId } of restartOps) {
      const made = readLog(logFile).some((l) => l.kind === 'version' && l.op === 'restart' && l.childRunId === childRunId && l.result === 'accepted');
      if (op.invocation !== 'after' && !made) continue;
      const before = world.works();
      const firstOps: CommandVersionOp[] = op.invocation === 'after' ? [{ kind: 'restart', parent: runId, childRunId, boundary: 'before' }] : [];
      const driven = await drive(childRunId, { parent: false, firstOps, mustExist: true, alsoRead: [runId] });
      if (driven.others?.[runId]) parentRows = driven.others[runId];
      if (driven.absent) continue;
      result.restarts += 1;
      restarts.push({ childRunId, rows: driven.read ?? (await journal.read(childRunId)), before, after: world.works(), saidNotDone: driven.saidNotDone });
    }
    if (restarts.length > 0 && !journal.readByChild) parentRows = await journal.read(runId);
    const forks: { childRunId: string; rows: JournalRead; before: KnownStore; after: KnownStore; saidNotDone: boolean }[] = [];
    if (forkOps.length > 0) {
      // The fork phase: the service deduplicates by key from here, as a payment API would; a fork's repeat must meet it under the parent's key.
      world.dedupeAll();
      for (const { op, childRunId } of forkOps) {
        const made = readLog(logFile).some((l) => l.kind === 'version' && l.op === 'fork' && l.childRunId === childRunId && l.result === 'accepted');
        if (op.invocation !== 'after' && !made) continue;
        const before = world.store();
        const firstOps: CommandVersionOp[] =
          op.invocation === 'after'
            ? [
                {
                  kind: 'fork',
                  parent: runId,
                  childRunId,
                  fraction: op.fraction,
                  ...(op.instruction ? { instruction: op.instruction } : {}),
                  boundary: 'before',
                },
              ]
            : [];
        const driven = await drive(childRunId, { parent: false, firstOps, mustExist: true, alsoRead: [runId] });
        if (driven.others?.[runId]) parentRows = driven.others[runId];
        if (driven.absent) continue;
        result.forks += 1;
        forks.push({ childRunId, rows: driven.read ?? (await journal.read(childRunId)), before, after: world.store(), saidNotDone: driven.saidNotDone });
      }
      if (!journal.readByChild) parentRows = await journal.read(runId);
    }
    const log = readLog(logFile);
    result.boundaries = log.flatMap((line) => (line.kind === 'boundary' ? [line.label] : []));
    result.killedAt = killLabels(log, killedPids);
    result.migrations = log.filter((l) => l.kind === 'version' && l.op === 'migrate' && l.result === 'accepted').length;
    result.decisions = log.flatMap((l) =>
      l.kind === 'operator' && l.result === 'accepted'
        ? [
            [l.race ? 'race' : '', l.action, l.outcome ?? '', l.recorded === undefined ? '' : l.recorded ? 'recorded' : 'not recorded']
              .filter(Boolean)
              .join(' '),
          ]
        : [],
    );
    const parentLog = log.filter((l) => l.run === undefined || l.run === runId);
    const verdict = scenario.workflow
      ? judgeWorkflow({ scenario, journal: parentRows, children: childRows, store: settledStore, log: parentLog })
      : judge({
          scenario,
          journal: parentRows,
          store: settledStore,
          log: parentLog,
          saidNotDone: parent.saidNotDone,
          modelRequests: model.requests(),
        });
    result.checks = verdict.checks;
    result.violations.push(...verdict.violations);
    if (forkOps.length > 0) {
      const unchanged = parentUnchanged(parentAtSettle, parentRows);
      result.checks += unchanged.checks;
      result.violations.push(...unchanged.violations);
    }
    for (const restart of restarts) {
      const restartVerdict = judgeRestart({
        scenario,
        old: parentRows,
        oldRunId: runId,
        restart: restart.rows,
        restartRunId: restart.childRunId,
        before: restart.before,
        after: restart.after,
        log: log.filter((l) => l.run === restart.childRunId),
        saidNotDone: restart.saidNotDone,
        modelRequests: model.requests(),
      });
      result.checks += restartVerdict.checks;
      result.violations.push(...restartVerdict.violations.map((v) => `restart ${restart.childRunId}: ${v}`));
    }
    for (const fork of forks) {
      const forkVerdict = judgeFork({
        scenario,
        parent: parentRows,
        fork: fork.rows,
        childRunId: fork.childRunId,
        before: fork.before,
        after: fork.after,
        log: log.filter((l) => l.run === fork.childRunId),
        parentLog,
        saidNotDone: fork.saidNotDone,
        modelRequests: model.requests(),
      });
      result.checks += forkVerdict.checks;
      result.violations.push(...forkVerdict.violations.map((v) => `fork ${fork.childRunId}: ${v}`));
    }
    // EXPLORER_DUMP=1: a violation comes with the journal's events and the schedule log, to read what happened.
    if (process.env.EXPLORER_DUMP && result.violations.length > 0)
      result.violations.push(
        `journal and log:\n${dump(parentRows, log)}${restarts.map((r) => `\n  restart ${r.childRunId}:\n${dump(r.rows, [])}`).join('')}${forks.map((f) => `\n  fork ${f.childRunId}:\n${dump(f.rows, [])}`).join('')}`,
      );
    else if (process.env.EXPLORER_DUMP === 'always')
      console.error(
        `[explorer] ${scenario.name}: journal and log:\n${dump(parentRows, log)}${restarts.map((r) => `\n  restart ${r.childRunId}:\n${dump(r.rows, [])}`).join('')}${forks.map((f) => `\n  fork ${f.childRunId}:\n${dump(f.rows, [])}`).join('')}`,
      );
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
