/**
 * The invariants judged after every schedule, from the outside world's own store and the journal's rows
 * (read with SQL), plus the schedule log the children's scripted model wrote. Pure: each check counts,
 * each failure is a sentence naming what broke.
 */
import type { KeyRecord } from './outside-world';
import type { JournalRead, LogLine } from './protocol';
import type { Scenario } from './scenarios';

export interface Verdict {
  checks: number;
  violations: string[];
}

export interface Evidence {
  scenario: Scenario;
  journal: JournalRead;
  /** The outside world's store: kind → key → record. */
  store: Record<string, Record<string, KeyRecord>>;
  log: LogLine[];
  /** Did the operator ever say a side effect was not done. */
  saidNotDone: boolean;
}

const SETTLED = new Set(['completed', 'waiting-approval', 'blocked', 'canceled']);

export function judge(evidence: Evidence): Verdict {
  const verdict: Verdict = { checks: 0, violations: [] };
  const check = (ok: boolean, violation: () => string) => {
    verdict.checks += 1;
    if (!ok) verdict.violations.push(violation());
  };
  const status = evidence.journal.run?.status;
  sequence(evidence, check);
  outsideWorld(evidence, status, check);
  modelCalls(evidence, check);
  check(status !== undefined && SETTLED.has(status), () =>
    status === 'running' ? 'the run is left running with no live holder (every process of the schedule has ended)' : `the run ends ${status ?? 'missing'}`,
  );
  // The explorer resolves every approval and block like an operator, so every schedule must end completed.
  check(status === 'completed', () => `the run did not complete (status ${status})`);
  const final = evidence.scenario.script.at(-1);
  const complete = evidence.journal.events.filter((e) => e.type === 'run-complete');
  if (status === 'completed')
    check(
      complete.length === 1 && final !== undefined && 'text' in final && complete[0]?.payload.text === final.text,
      () => `run-complete events: ${JSON.stringify(complete.map((e) => e.payload.text))}`,
    );
  return verdict;
}

type Check = (ok: boolean, violation: () => string) => void;

/** No event lost, duplicated or out of order. */
function sequence({ journal }: Evidence, check: Check): void {
  const seqs = journal.events.map((e) => e.seq);
  check(
    seqs.every((seq, i) => seq === i + 1),
    () => `sequence numbers are not 1..n: ${seqs.join(',')}`,
  );
  check(journal.run?.lastSeq === seqs.length, () => `runs.last_seq is ${journal.run?.lastSeq}, the run has ${seqs.length} events`);
  check(
    journal.events[0]?.type === 'run-start' && journal.events.filter((e) => e.type === 'run-start').length === 1,
    () => 'run-start is not the one first event',
  );
  const once = (what: string, keyOf: (payload: Record<string, unknown>) => string, type: string) => {
    const keys = journal.events.filter((e) => e.type === type).map((e) => keyOf(e.payload));
    const dup = keys.find((k, i) => keys.indexOf(k) !== i);
    check(dup === undefined, () => `${what} recorded twice: ${dup}`);
  };
  once('model step', (p) => String(p.step), 'model-step');
  once('tool-call-end of call', (p) => String(p.toolCallId), 'tool-call-end');
  once('tool-call-start of call and attempt', (p) => `${p.toolCallId}#${p.attempt}`, 'tool-call-start');
  const mismatches = journal.events.filter((e) => e.type === 'replay-mismatch');
  check(mismatches.length === 0, () => `replay-mismatch events: ${JSON.stringify(mismatches.map((e) => e.payload))}`);
}

/** Each side effect at most once in the outside world; exactly once when the run completed. */
function outsideWorld({ scenario, journal, store, saidNotDone }: Evidence, status: string | undefined, check: Check): void {
  const journalKeys = new Set(journal.events.filter((e) => e.type === 'tool-call-start').map((e) => String(e.payload.idempotencyKey)));
  for (const [kind, byKey] of Object.entries(store)) {
    for (const [key, record] of Object.entries(byKey)) {
      check(record.executions <= 1, () => `${kind} under key ${key} executed ${record.executions} times in the outside world`);
      check(journalKeys.has(key), () => `the outside world saw ${kind} under key ${key}, which the journal never started`);
    }
  }
  if (status !== 'completed') return;
  for (const kind of new Set([...Object.keys(scenario.expected), ...Object.keys(store)])) {
    const executed = Object.values(store[kind] ?? {}).reduce((sum, r) => sum + r.executions, 0);
    const expected = scenario.expected[kind] ?? 0;
    // Exactly once unless an operator said not-done (then a service that does not deduplicate may act twice: at most once is checked above).
    check(executed === expected || (saidNotDone && executed <= expected), () => `${kind}: ${executed} executions in the outside world, expected ${expected}`);
  }
}

/** The model was never called for a step the journal had already recorded. */
function modelCalls({ journal, log }: Evidence, check: Check): void {
  const recorded = new Set<number>();
  const called = new Set<number>();
  for (const line of log) {
    if (line.kind === 'boundary') for (const step of line.recordedSteps ?? []) recorded.add(step);
    if (line.kind !== 'model') continue;
    check(!recorded.has(line.step), () => `process ${line.pid} called the model for step ${line.step}, already recorded in the journal`);
    called.add(line.step);
  }
  for (const event of journal.events.filter((e) => e.type === 'model-step')) {
    const step = Number(event.payload.step);
    check(called.has(step), () => `model step ${step} is in the journal but the model was never called for it`);
  }
}
