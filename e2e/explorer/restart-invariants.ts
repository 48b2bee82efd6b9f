/**
 * The invariants of restarts (versions.ts: restartRun, issue 27), judged once the old run settled and its
 * restart was run until it settles or stops, from the outside world's own counters per piece of work (a
 * kind and its arguments, under any key: outside-world.ts `works`) before and after the restart ran, both
 * runs' rows and the schedule log. The old run and its restart are one job:
 *   - the restart's rows: sequence 1..n, one run-start naming the old run (`restartOf`, the operator, no
 *     new attempt); model steps as the model answered them, on the agent's current version;
 *   - the old run is finished: completed, or canceled (by the restart, or by an operator before it);
 *   - each piece of work executes at most once in the outside world across the two runs; a restart
 *     that completes leaves each piece of the script's work done exactly once (unless its own operator
 *     said not done);
 *   - a repeat of the old run's done work is answered from the old run's record (a tool-call-end
 *     `inheritedFrom` the old run, under the old key, with the old output) and sends nothing; the restart
 *     starts nothing under an old key, and executes anew only work the old run holds no record of;
 *   - a repeat of old work whose outcome is unknown sends nothing and ends the restart failed, its last
 *     run-fail naming SideEffectElsewhereError, the old run and the key (VIOLATIONS.md 16); a restart that
 *     meets no such work completes.
 */
import { decisionsJournaled, modelCalls, modelSteps, noWaitForDecided, sequence, type Verdict } from './invariants';
import { migrations } from './migrate-invariants';
import type { ModelRequest } from './model-server';
import { canonicalBody, type WorkRecord } from './outside-world';
import type { JournalRead, LogLine } from './protocol';
import type { Scenario } from './scenarios';
import { OPERATOR } from './versions';

type Works = Record<string, Record<string, WorkRecord>>;
type Row = JournalRead['events'][number];
type Outcome = 'done' | 'unknown' | 'not-performed';

export interface RestartEvidence {
  scenario: Scenario;
  old: JournalRead;
  oldRunId: string;
  restart: JournalRead;
  restartRunId: string;
  /** The world's counters per piece of work before and after the restart's processes ran. */
  before: Works;
  after: Works;
  /** The restart's processes' log lines. */
  log: LogLine[];
  saidNotDone: boolean;
  modelRequests: ModelRequest[];
}

export function judgeRestart(evidence: RestartEvidence): Verdict {
  const verdict: Verdict = { checks: 0, violations: [] };
  const check = (ok: boolean, violation: () => string) => {
    verdict.checks += 1;
    if (!ok) verdict.violations.push(violation());
  };
  const { scenario, old, restart, log } = evidence;
  const rows = { scenario, journal: restart, store: {}, log, saidNotDone: evidence.saidNotDone, modelRequests: evidence.modelRequests };
  sequence(rows, check);
  modelSteps(rows, check);
  decisionsJournaled(rows, check);
  noWaitForDecided(rows, check);
  modelCalls(rows, check);
  migrations({ journal: restart, log, check });

  const restartOf = (restart.events[0]?.payload.input as { restartOf?: { runId?: string; by?: string; newAttempt?: boolean } } | undefined)?.restartOf;
  check(
    restartOf?.runId === evidence.oldRunId && restartOf.by === OPERATOR && restartOf.newAttempt === undefined,
    () => `the restart's run-start records restartOf ${JSON.stringify(restartOf)}, the operator restarted ${evidence.oldRunId}`,
  );
  const oldStatus = old.run?.status;
  check(oldStatus === 'completed' || oldStatus === 'canceled', () => `the old run ends ${oldStatus ?? 'missing'} after its restart, not completed or canceled`);
  if (oldStatus === 'canceled')
    check(
      old.events.some((e) => e.type === 'run-cancel' && (e.payload.reason === `restarted as ${evidence.restartRunId}` || e.payload.by === OPERATOR)),
      () => `the old run is canceled, but not as restarted as ${evidence.restartRunId}`,
    );

  const workOf = (toolName: string, input: unknown) => {
    const kind = scenario.sideEffects[toolName];
    return kind === undefined ? undefined : { kind, body: canonicalBody(JSON.stringify(input ?? null)) };
  };
  const count = (works: Works, kind: string, body: string, what: keyof WorkRecord) => works[kind]?.[body]?.[what] ?? 0;

  // At most once across the job, per piece of work, whatever the key.
  for (const [kind, byBody] of Object.entries(evidence.after)) {
    for (const [body, record] of Object.entries(byBody)) {
      check(record.executions <= 1, () => `${kind} ${body} executed ${record.executions} times in the outside world across the old run and its restart`);
    }
  }

  // The old run's work, each key once, with its outcome as its rows hold it.
  const oldWork = workRecords(old.events);
  for (const work of oldWork) {
    if (work.outcome === 'not-performed') continue;
    const w = workOf(work.toolName, work.input);
    if (!w) continue;
    const sent = count(evidence.after, w.kind, w.body, 'requests') - count(evidence.before, w.kind, w.body, 'requests');
    check(sent === 0, () => `the restart sent ${work.toolName}(${work.inputText}) ${sent} times, work the old run holds (${work.outcome}, key ${work.key})`);
  }

  const oldKeys = new Set(oldWork.map((w) => w.key));
  const answered = restart.events.filter((e) => e.type === 'tool-call-end' && e.payload.inheritedFrom !== undefined);
  for (const end of answered) {
    const key = String(end.payload.idempotencyKey);
    const from = oldWork.find((w) => w.key === key);
    check(
      end.payload.inheritedFrom === evidence.oldRunId && from?.outcome === 'done' && JSON.stringify(from.output) === JSON.stringify(end.payload.output),
      () =>
        `the restart answered ${String(end.payload.toolName)} from run ${String(end.payload.inheritedFrom)} under key ${key}, the old run's record there is ${JSON.stringify(from && { outcome: from.outcome, output: from.output })}`,
    );
  }
  for (const start of restart.events.filter((e) => e.type === 'tool-call-start')) {
    check(
      !oldKeys.has(String(start.payload.idempotencyKey)),
      () => `the restart started ${String(start.payload.toolName)} under the old run's key ${String(start.payload.idempotencyKey)}`,
    );
  }

  // Walk the restart's calls in order: each repeat meets the next matching work of the old run.
  const unmet = oldWork.filter((w) => w.outcome !== 'not-performed');
  let stoppedAt: { toolCallId: string; work: WorkRecordOf } | undefined;
  for (const call of modelCallsOf(restart.events)) {
    if (!scenario.sideEffects[call.toolName]) continue;
    const i = unmet.findIndex((w) => w.toolName === call.toolName && w.inputText === call.inputText);
    const met = i >= 0 ? unmet.splice(i, 1)[0] : undefined;
    const ran = restart.events.find((e) => e.type === 'tool-call-start' && e.payload.toolCallId === call.toolCallId);
    if (met === undefined) continue;
    check(
      ran === undefined,
      () =>
        `the restart executed ${call.toolName}(${call.inputText}) anew under ${String(ran?.payload.idempotencyKey)}, work the old run holds (${met.outcome}, key ${met.key})`,
    );
    if (met.outcome === 'done') {
      const end = answered.find((e) => e.payload.toolCallId === call.toolCallId);
      const last = call.seq === lastModelStepSeq(restart.events);
      // Answered from the old record, unless the run stopped before it could (its last step, then killed or failed elsewhere).
      check(
        end !== undefined || last,
        () => `the restart's ${call.toolName}(${call.inputText}) repeats the old run's done work (key ${met.key}) but was not answered from it`,
      );
      if (end)
        check(
          end.payload.idempotencyKey === met.key,
          () => `the restart answered ${call.toolName} under ${String(end.payload.idempotencyKey)}, the old work's key is ${met.key}`,
        );
    } else {
      stoppedAt = { toolCallId: call.toolCallId, work: met };
      break;
    }
  }
  const status = restart.run?.status;
  const fail = restart.events.filter((e) => e.type === 'run-fail').at(-1);
  const failError = fail?.payload.error as { name?: string; message?: string } | undefined;
  const failName = failError?.name;
  if (stoppedAt) {
    const { work } = stoppedAt;
    // The stop as the journal holds it: SideEffectElsewhereError itself (never a ToolCallFailedError wrapping it, VIOLATIONS.md 16),
    // naming the old run and the key of the unknown work.
    const names =
      failError?.message?.includes(`repeats the side effect run "${evidence.oldRunId}" started under key ${work.key}, whose outcome is unknown`) === true;
    check(
      status === 'failed' && failName === 'SideEffectElsewhereError' && names,
      () =>
        `the restart repeats ${work.toolName}(${work.inputText}), of unknown outcome in the old run (key ${work.key}): it ends ${status}, its last run-fail names ${failName ?? 'nothing'} (${failError?.message?.slice(0, 200) ?? ''}), not SideEffectElsewhereError naming that run and key`,
    );
  } else {
    check(
      status === 'completed',
      () => `the restart meets no work of unknown outcome but ends ${status ?? 'missing'}${failName ? ` (run-fail ${failName})` : ''}, not completed`,
    );
    const final = scenario.script.at(-1);
    if (status === 'completed') {
      check(
        restart.events.filter((e) => e.type === 'run-complete').length === 1 && final !== undefined && 'text' in final,
        () => 'the restart has not one run-complete',
      );
      // Every piece of the script's work done exactly once across the job (the restart's own operator may have said not done).
      for (const step of scenario.script) {
        if (!('toolCalls' in step)) continue;
        for (const call of step.toolCalls) {
          const w = workOf(call.toolName, call.input);
          if (!w) continue;
          const done = count(evidence.after, w.kind, w.body, 'executions');
          check(
            done === 1 || (evidence.saidNotDone && done <= 1),
            () => `${call.toolName}(${w.body}): ${done} executions in the outside world across the old run and its completed restart, expected 1`,
          );
        }
      }
    }
  }
  return verdict;
}

export interface WorkRecordOf {
  toolName: string;
  input: unknown;
  inputText: string;
  key: string;
  outcome: Outcome;
  output?: unknown;
}

/** A run's side effects, each key once, in order, with the outcome its rows hold last. */
export function workRecords(events: readonly Row[]): WorkRecordOf[] {
  const byKey = new Map<string, WorkRecordOf>();
  const keyOfCall = new Map<string, string>();
  for (const e of events) {
    const key = e.payload.idempotencyKey === undefined ? undefined : String(e.payload.idempotencyKey);
    if (e.type === 'tool-call-start' && key && e.payload.sideEffect !== false) {
      keyOfCall.set(String(e.payload.toolCallId), key);
      const known = byKey.get(key);
      if (known) known.outcome = 'unknown';
      else
        byKey.set(key, {
          toolName: String(e.payload.toolName),
          input: e.payload.input,
          inputText: canonicalBody(JSON.stringify(e.payload.input ?? null)),
          key,
          outcome: 'unknown',
        });
    }
    const record = key ? byKey.get(key) : byKey.get(keyOfCall.get(String(e.payload.toolCallId)) ?? '');
    if (!record) continue;
    if (e.type === 'tool-call-end') Object.assign(record, { outcome: 'done', output: e.payload.output });
    if (e.type === 'tool-call-error' && e.payload.retryable === false) record.outcome = 'not-performed';
    if (e.type === 'side-effect-resolution')
      Object.assign(record, e.payload.outcome === 'done' ? { outcome: 'done', output: e.payload.output } : { outcome: 'not-performed' });
  }
  return [...byKey.values()].filter((w) => w.toolName !== 'undefined');
}

/** The tool calls the run's model steps asked for, in order. */
function modelCallsOf(events: readonly Row[]): { toolCallId: string; toolName: string; inputText: string; seq: number }[] {
  return events
    .filter((e) => e.type === 'model-step')
    .flatMap((e) =>
      ((e.payload.result as { content?: { type: string; toolCallId?: string; toolName?: string; input?: unknown }[] } | undefined)?.content ?? [])
        .filter((part) => part.type === 'tool-call')
        .map((part) => ({
          toolCallId: String(part.toolCallId),
          toolName: String(part.toolName),
          inputText: canonicalBody(typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? null)),
          seq: e.seq,
        })),
    );
}

function lastModelStepSeq(events: readonly Row[]): number | undefined {
  return events.filter((e) => e.type === 'model-step').at(-1)?.seq;
}
