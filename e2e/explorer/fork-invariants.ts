/**
 * The invariants of forks (versions.ts), judged after the parent settled and each fork the operator made
 * was run to its end, from the outside world's store before and after the fork ran (the world
 * deduplicates by key then, as a payment API does), both runs' rows and the schedule log:
 *   - the fork's rows: sequence 1..n, one run-start naming its parent, step, operator and reason, and the
 *     parent one run-forked naming the fork; model steps as the model answered them; settled, completed,
 *     or, when its parent was canceled (by its restart) holding work of unknown outcome, stopped: failed, its
 *     last run-fail SideEffectElsewhereError naming the parent and that work's key (VIOLATIONS.md 19);
 *   - the shared part is replayed: no fork process asks the model for a step before the fork point, and
 *     no key started in the copied history reaches the outside world again;
 *   - a fork's call that repeats its parent's work after the fork point (same tool, same arguments),
 *     recorded when the fork runs, is answered from the parent's record under its key and sends nothing;
 *     new work gets a key of its own; every key reaches the world at most once from the fork's processes;
 *   - the parent is unchanged, but for run-forked (and run-restarted) events appended after it settled.
 */
import { type Check, decisionsJournaled, modelCalls, modelSteps, noWaitForDecided, sequence, type Verdict } from './invariants';
import { isCopied, migrations } from './migrate-invariants';
import { workRecords } from './restart-invariants';
import type { ModelRequest } from './model-server';
import type { KeyRecord } from './outside-world';
import type { JournalRead, LogLine } from './protocol';
import type { Scenario } from './scenarios';
import { OPERATOR } from './versions';

type Store = Record<string, Record<string, KeyRecord>>;
type Row = JournalRead['events'][number];

export interface ForkEvidence {
  scenario: Scenario;
  parent: JournalRead;
  fork: JournalRead;
  childRunId: string;
  /** The world's store before and after the fork's processes ran. */
  before: Store;
  after: Store;
  /** The fork's processes' log lines, and the parent's. */
  log: LogLine[];
  parentLog: LogLine[];
  saidNotDone: boolean;
  modelRequests: ModelRequest[];
}

export function judgeFork(evidence: ForkEvidence): Verdict {
  const verdict: Verdict = { checks: 0, violations: [] };
  const check: Check = (ok, violation) => {
    verdict.checks += 1;
    if (!ok) verdict.violations.push(violation());
  };
  const { fork, parent, scenario, log } = evidence;
  const rows = { scenario, journal: fork, store: evidence.after, log, saidNotDone: evidence.saidNotDone, modelRequests: evidence.modelRequests };
  sequence(rows, check);
  modelSteps(rows, check);
  decisionsJournaled(rows, check);
  noWaitForDecided(rows, check);
  migrations({ journal: fork, log, check });
  const forkOf = (fork.events[0]?.payload.input as { forkOf?: { runId?: string; atStep?: number; by?: string; reason?: string } } | undefined)?.forkOf;
  const made = evidence.parentLog
    .concat(log)
    .find((l) => l.kind === 'version' && l.op === 'fork' && l.childRunId === evidence.childRunId && l.result === 'accepted');
  const atStep = made?.kind === 'version' ? made.atStep : undefined;
  check(
    made?.kind === 'version' &&
      forkOf?.runId === made.parent &&
      forkOf?.atStep === atStep &&
      forkOf?.by === OPERATOR &&
      made?.kind === 'version' &&
      forkOf?.reason === made.reason,
    () =>
      `the fork's run-start records forkOf ${JSON.stringify(forkOf)}, the operator forked ${made?.kind === 'version' ? made.parent : 'nothing'} at step ${atStep}`,
  );
  const linked = parent.events.filter((e) => e.type === 'run-forked' && e.payload.childRunId === evidence.childRunId);
  check(
    linked.length === 1 && linked[0]?.payload.atStep === atStep && linked[0]?.payload.by === OPERATOR,
    () => `the parent has ${linked.length} run-forked events naming the fork: ${JSON.stringify(linked.map((e) => e.payload))}`,
  );
  const status = fork.run?.status;
  const stop = stoppedByParent(evidence);
  check(
    status === 'completed' || (status === 'failed' && stop.ok),
    () => `the fork ends ${status ?? 'missing'}, not completed${status === 'failed' ? ` (${stop.why})` : ''}`,
  );
  const final = scenario.script.at(-1);
  if (status === 'completed')
    check(
      fork.events.filter((e) => e.type === 'run-complete').length === 1 && final !== undefined && 'text' in final,
      () => 'the fork has not one run-complete',
    );
  if (atStep !== undefined) sharedPartReplayed(evidence, atStep, check);
  // Every model step the fork holds was asked by one of the two runs' processes (the shared ones by the parent's).
  modelCalls({ ...rows, log: [...evidence.parentLog.filter((l) => l.kind === 'model'), ...log] }, check);
  keys(evidence, check);
  return verdict;
}

/**
 * The one way a fork may end other than completed: its parent was canceled (by its restart) holding work
 * of unknown outcome, which nothing will settle by running, and the fork's repeat of it stops with
 * SideEffectElsewhereError (the door's, related-effects.ts), naming the parent and that work's key. Any
 * other failure, or that error naming other work, is not this.
 */
function stoppedByParent(evidence: ForkEvidence): { ok: boolean; why: string } {
  const { fork, parent } = evidence;
  const fail = fork.events.filter((e) => e.type === 'run-fail').at(-1);
  const error = fail?.payload.error as { name?: string; message?: string } | undefined;
  if (error?.name !== 'SideEffectElsewhereError') return { ok: false, why: `its last run-fail names ${error?.name ?? 'nothing'}` };
  if (parent.run?.status !== 'canceled')
    return { ok: false, why: `it stopped with SideEffectElsewhereError, but its parent is ${parent.run?.status ?? 'missing'}, not canceled` };
  const parentId = (fork.events[0]?.payload.input as { forkOf?: { runId?: string } } | undefined)?.forkOf?.runId;
  const unknown = workRecords(parent.events).filter((w) => w.outcome === 'unknown');
  const named = unknown.find(
    (w) => error.message?.includes(`repeats the side effect run "${parentId}" started under key ${w.key}, whose outcome is unknown`) === true,
  );
  if (!named)
    return {
      ok: false,
      why: `it stopped with SideEffectElsewhereError (${error.message?.slice(0, 300)}), naming none of its parent's work of unknown outcome (${unknown.map((w) => w.key).join(', ') || 'none'})`,
    };
  return { ok: true, why: `stopped on its parent's ${named.toolName} of unknown outcome (key ${named.key})` };
}

/** No fork process asks the model for a step before the fork point; none sends a key of the copied history. */
function sharedPartReplayed(evidence: ForkEvidence, atStep: number, check: Check): void {
  for (const line of evidence.log) {
    if (line.kind === 'model' && line.step < atStep - 1)
      check(false, () => `fork process ${line.pid} asked the model for step ${line.step + 1}, before the fork point (step ${atStep})`);
  }
  const copiedKeys = new Set(startsOf(evidence.fork.events.filter((e) => isCopied(evidence.fork, e))).map((s) => s.key));
  for (const key of copiedKeys) {
    const sent = requestsOf(evidence.after, key) - requestsOf(evidence.before, key);
    check(sent === 0, () => `key ${key}, of the shared part, reached the outside world ${sent} more times while the fork ran`);
  }
}

/**
 * The job's record (the door's related-effects.ts): a fork's call that repeats work its parent recorded
 * (same tool, same arguments; done, or of unknown outcome) is answered from the parent's record under the
 * parent's key and sends nothing; only once every such piece of the parent's work is held does a repeat
 * become new work, under a key of its own; each key reaches the world at most once from the fork.
 */
function keys(evidence: ForkEvidence, check: Check): void {
  const { fork, parent } = evidence;
  const ownRows = fork.events.filter((e) => e.seq > 1 && !isCopied(fork, e));
  const own = startsOf(ownRows);
  const parentId = (fork.events[0]?.payload.input as { forkOf?: { runId?: string } } | undefined)?.forkOf?.runId;
  const copiedKeys = new Set(startsOf(fork.events.filter((e) => isCopied(fork, e))).map((s) => s.key));
  // The parent's work a repeat must meet: each key once, not held by the fork's copy, not known to have failed.
  const finalErrors = new Set(
    parent.events.filter((e) => e.type === 'tool-call-error' && e.payload.retryable === false).map((e) => String(e.payload.idempotencyKey)),
  );
  // The parent's recorded outputs by key: a tool-call-end's, or a person's resolution `done` of a call of unknown outcome (the call's start names the key).
  const keyOfCall = new Map(startsOf(parent.events).map((s) => [s.toolCallId, s.key]));
  const parentOutputs = new Map(
    parent.events.flatMap((e): [string, string][] => {
      if (e.type === 'tool-call-end') return [[String(e.payload.idempotencyKey), JSON.stringify(e.payload.output)]];
      const key = keyOfCall.get(String(e.payload.toolCallId));
      return e.type === 'side-effect-resolution' && e.payload.outcome === 'done' && key ? [[key, JSON.stringify(e.payload.output)]] : [];
    }),
  );
  const parentWork = uniqueByKey(startsOf(parent.events)).filter((p) => !copiedKeys.has(p.key) && !finalErrors.has(p.key));
  const parentKeys = new Set(startsOf(parent.events).map((s) => s.key));
  const answered = ownRows.filter((e) => e.type === 'tool-call-end' && e.payload.inheritedFrom !== undefined);
  for (const end of answered) {
    const key = String(end.payload.idempotencyKey);
    if (end.payload.inheritedFrom !== parentId) continue; // answered by another run of the job (a grandparent, a sibling)
    check(
      parentOutputs.get(key) === JSON.stringify(end.payload.output),
      () => `the fork answered ${String(end.payload.toolName)} from its parent's key ${key}, whose recorded output is ${parentOutputs.get(key) ?? 'missing'}`,
    );
  }
  for (const start of own) {
    check(
      !parentKeys.has(start.key),
      () => `the fork started ${start.toolName}(${start.input}) under its parent's key ${start.key}: that work was the parent's to answer`,
    );
    const same = (p: { toolName: string; input: string }) => p.toolName === start.toolName && p.input === start.input;
    const meetable = parentWork.filter(same).length;
    const met = answered.filter(
      (e) => e.seq < start.seq && String(e.payload.toolName) === start.toolName && JSON.stringify(e.payload.input) === start.input,
    ).length;
    check(
      met >= meetable,
      () =>
        `the fork executed ${start.toolName}(${start.input}) anew under ${start.key} while its parent's same work (${meetable}, ${met} answered before) was on record`,
    );
  }
  const ownKeys = new Set(own.map((s) => s.key));
  for (const [kind, byKey] of Object.entries(evidence.after)) {
    for (const [key, record] of Object.entries(byKey)) {
      const sent = record.requests - requestsOf(evidence.before, key);
      if (sent === 0) continue;
      check(ownKeys.has(key), () => `the outside world saw ${kind} under key ${key} while the fork ran, which the fork never started`);
      check(sent <= 1, () => `the fork's processes sent ${kind} under key ${key} ${sent} times`);
      check(record.executions <= 1, () => `${kind} under key ${key} executed ${record.executions} times in the outside world`);
    }
  }
}

function uniqueByKey<T extends { key: string }>(items: readonly T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(item.key) && seen.add(item.key) !== undefined);
}

/** The parent's rows now are its rows when it settled plus run-forked and run-restarted events only (links to the job's other runs). */
export function parentUnchanged(atSettle: JournalRead, now: JournalRead): Verdict {
  const verdict: Verdict = { checks: 1, violations: [] };
  const same = atSettle.events.every((e, i) => JSON.stringify(e) === JSON.stringify(now.events[i]));
  const added = now.events.slice(atSettle.events.length).map((e) => e.type);
  if (!same || added.some((t) => t !== 'run-forked' && t !== 'run-restarted'))
    verdict.violations.push(`the parent changed after it settled: events added ${added.join(',')}${same ? '' : ', earlier events rewritten'}`);
  return verdict;
}

function startsOf(events: readonly Row[]): { toolCallId: string; toolName: string; input: string; key: string; seq: number }[] {
  return events
    .filter((e) => e.type === 'tool-call-start')
    .map((e) => ({
      toolCallId: String(e.payload.toolCallId),
      toolName: String(e.payload.toolName),
      input: JSON.stringify(e.payload.input),
      key: String(e.payload.idempotencyKey),
      seq: e.seq,
    }));
}

function requestsOf(store: Store, key: string): number {
  return Object.values(store).reduce((sum, byKey) => sum + (byKey[key]?.requests ?? 0), 0);
}
