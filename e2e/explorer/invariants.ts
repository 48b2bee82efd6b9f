/**
 * The invariants judged after every schedule, from the outside world's own store, the model server's
 * record of its requests and the journal's rows (read with SQL), plus the schedule log the children
 * wrote (boundaries, real model requests, policy answers, operator requests). Pure: each check counts,
 * each failure is a sentence naming what broke.
 *   - each side effect at most once in the outside world, exactly once for a completed run unless a
 *     person said not done, rejected it, canceled the run, or a policy denied it;
 *   - every idempotency key the outside world saw was started in the journal (a tool-call-start);
 *   - no call a person rejected or a policy denied ever executes;
 *   - every operator request the journal accepted is in the journal (no decision lost), no run suspends
 *     to wait for a decision already journaled, and no side effect started after an accepted cancel is done;
 *   - sequence numbers 1..n, no event twice, none over the event limit, the run settled (completed, or
 *     canceled by an accepted cancel);
 *   - model steps 0..n-1, each the answer the model server gave for that step (a retried attempt is the
 *     same step), the model never asked again for a step the journal had recorded;
 *   - migrations (migrate-invariants.ts) and, for forks, fork-invariants.ts; for restarts (the old run
 *     canceled by restartRun, judged as a cancel here), restart-invariants.ts.
 */
import { migrations } from './migrate-invariants';
import type { ModelRequest } from './model-server';
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
  /** Every request the model server received, with its answer. */
  modelRequests: ModelRequest[];
}

const EVENT_LIMIT_BYTES = 1024 * 1024;

const SETTLED = new Set(['completed', 'waiting-approval', 'blocked', 'canceled']);

export function judge(evidence: Evidence): Verdict {
  const verdict: Verdict = { checks: 0, violations: [] };
  const check = (ok: boolean, violation: () => string) => {
    verdict.checks += 1;
    if (!ok) verdict.violations.push(violation());
  };
  const status = evidence.journal.run?.status;
  const said = peopleSaid(evidence.log);
  sequence(evidence, check);
  outsideWorld(evidence, status, said, check);
  refusalsHold(evidence, said, check);
  decisionsJournaled(evidence, check);
  nothingAfterCancel(evidence, check);
  noWaitForDecided(evidence, check);
  modelCalls(evidence, check);
  modelSteps(evidence, check);
  migrations({ journal: evidence.journal, log: evidence.log, check });
  check(status !== undefined && SETTLED.has(status), () =>
    status === 'running' ? 'the run is left running with no live holder (every process of the schedule has ended)' : `the run ends ${status ?? 'missing'}`,
  );
  // The explorer resolves every approval and block like an operator, so every schedule must end completed
  // (or canceled, when an operator's cancel was accepted).
  check(status === 'completed' || (status === 'canceled' && said.canceled), () => `the run did not complete (status ${status})`);
  const final = evidence.scenario.script.at(-1);
  const complete = evidence.journal.events.filter((e) => e.type === 'run-complete');
  if (status === 'completed')
    check(
      complete.length === 1 && final !== undefined && 'text' in final && complete[0]?.payload.text === final.text,
      () => `run-complete events: ${JSON.stringify(complete.map((e) => e.payload.text))}`,
    );
  return verdict;
}

export type Check = (ok: boolean, violation: () => string) => void;

export interface PeopleSaid {
  /** Calls a person rejected (accepted by the journal) or a policy denied. */
  refused: Map<string, string>;
  canceled: boolean;
  /** Anything that makes "exactly once" "at most once": not done, a refusal, a cancel. */
  relaxed: boolean;
}

export function peopleSaid(log: readonly LogLine[]): PeopleSaid {
  const refused = new Map<string, string>();
  let canceled = false;
  let notDone = false;
  // A policy's denial binds once its process acted on it (an append committed after it: the denial journaled,
  // the model told); one that died with its process before anything was committed was never a decision.
  const unbound = new Map<number, string[]>();
  for (const line of log) {
    if (line.kind === 'policy' && line.decision === 'denied') unbound.set(line.pid, [...(unbound.get(line.pid) ?? []), line.toolCallId]);
    if (line.kind === 'boundary' && line.label.startsWith('after:')) {
      for (const id of unbound.get(line.pid) ?? []) refused.set(id, `the policy denied it (process ${line.pid})`);
      unbound.delete(line.pid);
    }
    // A restart (restartRun) cancels the old run it restarts.
    if (line.kind === 'version' && line.op === 'restart' && line.result === 'accepted') canceled = true;
    if (line.kind !== 'operator' || line.result !== 'accepted') continue;
    if (line.action === 'reject' && line.toolCallId) refused.set(line.toolCallId, `an operator rejected it (process ${line.pid})`);
    if (line.action === 'cancel') canceled = true;
    if (line.action === 'resolve' && line.outcome === 'not-done') notDone = true;
  }
  return { refused, canceled, relaxed: refused.size > 0 || canceled || notDone };
}

/** No call a person rejected or a policy denied ever executes. */
export function refusalsHold({ journal }: Evidence, said: PeopleSaid, check: Check): void {
  for (const [toolCallId, why] of said.refused) {
    const ran = journal.events.find(
      (e) => (e.type === 'tool-call-start' || (e.type === 'tool-call-end' && e.payload.source === 'executed')) && e.payload.toolCallId === toolCallId,
    );
    check(ran === undefined, () => `call ${toolCallId} executed (${ran?.type} at seq ${ran?.seq}) though ${why}`);
  }
}

/**
 * A run never suspends to wait for a decision the journal already holds: a decision that landed while
 * a resume started (between its load and its first append) is lost to that resume if it suspends anyway,
 * and a worker that resumes on decisions has nothing left to wake it.
 */
export function noWaitForDecided({ journal }: Evidence, check: Check): void {
  const decided = new Map<string, number>();
  for (const e of journal.events) {
    if (e.type === 'tool-approval-response' || e.type === 'side-effect-resolution') decided.set(String(e.payload.toolCallId), e.seq);
    if (e.type === 'tool-call-end' && e.payload.source === 'provided') decided.set(String(e.payload.toolCallId), e.seq);
    // A new attempt after a not-done may end unknown again and rightly block again.
    if (e.type === 'tool-call-start') decided.delete(String(e.payload.toolCallId));
    if (e.type !== 'run-suspend') continue;
    for (const item of (e.payload.pending as { toolCallId?: string }[] | undefined) ?? []) {
      const at = item.toolCallId === undefined ? undefined : decided.get(item.toolCallId);
      check(at === undefined, () => `run-suspend at seq ${e.seq} waits for ${item.toolCallId}, decided at seq ${at}`);
    }
  }
}

/**
 * No side effect whose start was journaled after a cancel the journal accepted does its work (the
 * schedule log is in order: every process appends to it synchronously; the operator's line is written
 * when the journal answered). A start journaled after the cancel is the runtime's record of work it then
 * does not do; work whose start was durable before the cancel may race it and is not judged here.
 */
function nothingAfterCancel({ log }: Evidence, check: Check): void {
  let cancel: { index: number; pid: number } | undefined;
  const lastStart = new Map<number, number>();
  log.forEach((line, index) => {
    if (line.kind === 'operator' && line.action === 'cancel' && line.result === 'accepted') cancel ??= { index, pid: line.pid };
    if (line.kind === 'version' && line.op === 'restart' && line.result === 'accepted') cancel ??= { index, pid: line.pid };
    if (line.kind === 'boundary' && line.label.startsWith('after:') && line.label.includes('tool-call-start(')) lastStart.set(line.pid, index);
    if (line.kind === 'perform' && cancel !== undefined && cancel.index < (lastStart.get(line.pid) ?? -1)) {
      const by = cancel.pid;
      check(false, () => `process ${line.pid} did ${line.toolName}'s side effect, started after a cancel the journal accepted (process ${by})`);
    }
  });
}

/** Every operator request the journal accepted is in the journal: no decision lost. */
export function decisionsJournaled({ journal, log }: Evidence, check: Check): void {
  const has = (type: string, match: (p: Record<string, unknown>) => boolean = () => true) => journal.events.some((e) => e.type === type && match(e.payload));
  for (const line of log) {
    if (line.kind !== 'operator' || line.result !== 'accepted') continue;
    const id = line.toolCallId;
    const what = `${line.race ? 'a racing ' : ''}${line.action}${id ? ` of ${id}` : ''} (process ${line.pid}), accepted by the journal,`;
    if (line.action === 'approve' || line.action === 'reject')
      check(
        has('tool-approval-response', (p) => p.toolCallId === id && p.approved === (line.action === 'approve')),
        () => `${what} is not in the journal (no tool-approval-response)`,
      );
    if (line.action === 'resolve')
      check(
        has('side-effect-resolution', (p) => p.toolCallId === id),
        () => `${what} is not in the journal (no side-effect-resolution)`,
      );
    if (line.action === 'cancel') check(has('run-cancel'), () => `${what} is not in the journal (no run-cancel)`);
    if (line.action === 'resume') check(has('run-resume-request'), () => `${what} is not in the journal (no run-resume-request)`);
    if (line.action === 'provide')
      check(
        has('tool-call-end', (p) => p.toolCallId === id && p.source === 'provided'),
        () => `${what} is not in the journal (no provided tool-call-end)`,
      );
  }
}

/** No event lost, duplicated or out of order. */
export function sequence({ journal, scenario }: Evidence, check: Check): void {
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
  const big = journal.events.find((e) => JSON.stringify(e.payload).length > EVENT_LIMIT_BYTES + 4096);
  check(big === undefined, () => `event ${big?.seq} (${big?.type}) is over the event limit: ${JSON.stringify(big?.payload).length} bytes`);
  // A varying prepareStep makes replayed model calls differ by design (the journal says so); nothing else may.
  const mismatches = journal.events.filter((e) => e.type === 'replay-mismatch' && !(scenario.modelMismatchExpected && e.payload.kind === 'model-call'));
  check(mismatches.length === 0, () => `replay-mismatch events: ${JSON.stringify(mismatches.map((e) => e.payload))}`);
}

/** Each side effect at most once in the outside world; exactly once when the run completed. */
function outsideWorld({ scenario, journal, store, saidNotDone }: Evidence, status: string | undefined, said: PeopleSaid, check: Check): void {
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
    // Exactly once unless a person said not done, refused or canceled, or a policy denied (then at most once, checked above).
    const relaxed = saidNotDone || said.relaxed;
    check(executed === expected || (relaxed && executed <= expected), () => `${kind}: ${executed} executions in the outside world, expected ${expected}`);
  }
}

/** The model was never called for a step the journal had already recorded. */
export function modelCalls({ journal, log }: Evidence, check: Check): void {
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

/**
 * Model steps are 0..n-1 in the journal, each holding the answer the model server gave for that step of
 * the conversation (retried attempts of one step are one step: a retry must not shift the numbers).
 */
export function modelSteps({ journal, scenario, modelRequests }: Evidence, check: Check): void {
  const steps = journal.events.filter((e) => e.type === 'model-step');
  const numbers = steps.map((e) => Number(e.payload.step));
  check(
    numbers.every((n, i) => n === i),
    () => `model steps in the journal are numbered ${numbers.join(',')}, not 0..${numbers.length - 1}`,
  );
  for (const event of steps) {
    const step = Number(event.payload.step);
    const content = ((event.payload.result as { content?: { type: string; toolName?: string; text?: string }[] } | undefined)?.content ?? []).filter(
      (part) => part.type === 'tool-call' || part.type === 'text',
    );
    const recorded = content.map((part) => (part.type === 'tool-call' ? String(part.toolName) : 'text')).join(',');
    const planned = scenario.script[Math.min(step, scenario.script.length - 1)];
    const scripted = planned && 'toolCalls' in planned ? planned.toolCalls.map((c) => c.toolName).join(',') : 'text';
    // What the server answered for this step (an oversize answer adds a text before the calls), else the script.
    const answered = [...new Set(modelRequests.flatMap((r) => (r.step === step && r.answered ? [r.answered.join(',')] : [])))];
    const allowed = answered.length > 0 ? answered : [scripted];
    check(
      allowed.includes(recorded),
      () => `model step ${step} in the journal holds [${recorded}], the model's answer for step ${step} was [${allowed.join('] or [')}]`,
    );
    if (planned && 'text' in planned && recorded === 'text') {
      const text = content.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
      check(text === planned.text, () => `model step ${step} holds a text of ${text.length} characters, not the model's answer "${planned.text}"`);
    }
    if (modelRequests.length > 0)
      check(
        modelRequests.some((r) => r.step === step && r.answered !== undefined),
        () => `model step ${step} is in the journal but the model server never answered step ${step}`,
      );
  }
}
