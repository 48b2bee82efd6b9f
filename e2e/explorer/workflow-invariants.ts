/**
 * The invariants of a workflow scenario (workflow-scenarios.ts), judged after every schedule from the outside
 * world's own store, the schedule log and the journal's rows of the run and of its child runs (SQL). Pure.
 *   - each side effect at most once per key in the outside world, every key it saw started in a journal
 *     (the run's or a child's); a completed workflow leaves exactly the executions it expects per kind;
 *   - every step's recorded outcome (executed, check, deduplicated, a person's done) is what the world did
 *     under its key, and the completed output holds, per kind, exactly the expected results, each one the
 *     world's first result under a key it executed once;
 *   - an event: every send the journal accepted is one workflow-event, its id recorded once however often
 *     it was sent; no event delivered twice (one wait-end per event id); a completed run took it in its
 *     first wait and timed out in the second;
 *   - a sleep: the run woke (its wf.now() after the sleep) no earlier than the recorded end;
 *   - child runs: the ones the parent recorded are the scenario's, each started with its parent link,
 *     completed, and the parent's recorded outcome of each is that child's own output; a fan-out never has
 *     more than its concurrency open at once (from the schedule log: a child is open from its run-start's
 *     commit to its run-complete's, across processes and kills);
 *   - per run: sequence numbers 1..n, one run-start, no call recorded twice (invariants.ts `sequence`);
 *     every decision the journal accepted is in it; the run completed, or was canceled by an accepted cancel.
 * Blocked and stuck runs are judged as they happen (schedule.ts): only a side effect without check or
 * retrySafe may block, and a run never waits for what it already had.
 */
import { isDeepStrictEqual } from 'node:util';
import { type Check, decisionsJournaled, type Evidence, peopleSaid, sequence, type Verdict } from './invariants';
import type { KeyRecord, OpResult } from './outside-world';
import type { JournalRead, LogLine } from './protocol';
import type { Scenario } from './scenarios';

export interface WorkflowEvidence {
  scenario: Scenario;
  journal: JournalRead;
  /** The child runs the scenario declares, by run id. */
  children: Record<string, JournalRead>;
  store: Record<string, Record<string, KeyRecord>>;
  log: LogLine[];
}

type Row = JournalRead['events'][number];

export function judgeWorkflow(evidence: WorkflowEvidence): Verdict {
  const verdict: Verdict = { checks: 0, violations: [] };
  const check: Check = (ok, violation) => {
    verdict.checks += 1;
    if (!ok) verdict.violations.push(violation());
  };
  const { scenario, journal, children, store, log } = evidence;
  const base: Evidence = { scenario, journal, store, log, saidNotDone: false, modelRequests: [] };
  sequence(base, check);
  decisionsJournaled(base, check);
  // A child never started (its parent canceled first) has no rows; childRuns says whether it had to be.
  for (const [id, rows] of Object.entries(children))
    if (rows.events.length > 0) sequence({ ...base, journal: rows }, (ok, violation) => check(ok, () => `child ${id}: ${violation()}`));
  const status = journal.run?.status;
  const said = peopleSaid(log);
  check(status === 'completed' || (status === 'canceled' && said.canceled), () => `the workflow run did not complete (status ${status ?? 'missing'})`);
  const all = [journal, ...Object.values(children)];
  outsideWorld(evidence, all, status, check);
  recordedOutcomes(evidence, all, check);
  const complete = journal.events.filter((e) => e.type === 'run-complete');
  if (status === 'completed') {
    check(complete.length === 1, () => `${complete.length} run-complete events`);
    outputOf(evidence, complete[0]?.payload.output, check);
  }
  events(evidence, status, complete[0]?.payload.output, check);
  sleeps(journal, complete[0]?.payload.output, check);
  childRuns(evidence, status, check);
  fanOut(evidence, check);
  return verdict;
}

/** Each side effect at most once per key; every key started in a journal; exactly the expected executions once completed. */
function outsideWorld({ scenario, store }: WorkflowEvidence, runs: readonly JournalRead[], status: string | undefined, check: Check): void {
  const started = new Set(runs.flatMap((r) => r.events.filter((e) => e.type === 'tool-call-start').map((e) => String(e.payload.idempotencyKey))));
  for (const [kind, byKey] of Object.entries(store)) {
    for (const [key, record] of Object.entries(byKey)) {
      check(record.executions <= 1, () => `${kind} under key ${key} executed ${record.executions} times in the outside world`);
      check(started.has(key), () => `the outside world saw ${kind} under key ${key}, which no run of the workflow started`);
    }
  }
  for (const kind of new Set([...Object.keys(scenario.expected), ...Object.keys(store)])) {
    const executed = Object.values(store[kind] ?? {}).reduce((sum, r) => sum + r.executions, 0);
    const expected = scenario.expected[kind] ?? 0;
    if (status === 'completed')
      check(executed === expected, () => `${kind}: ${executed} executions in the outside world, the completed workflow expects ${expected}`);
    else check(executed <= expected, () => `${kind}: ${executed} executions in the outside world, more than the ${expected} of a whole run`);
  }
}

/** A side-effect step's recorded output (its end, or a person's done) is the world's first result under its key. */
function recordedOutcomes({ scenario, store }: WorkflowEvidence, runs: readonly JournalRead[], check: Check): void {
  for (const rows of runs) {
    const keyOf = new Map(rows.events.filter((e) => e.type === 'tool-call-start').map((e) => [String(e.payload.toolCallId), String(e.payload.idempotencyKey)]));
    for (const e of rows.events) {
      const done = e.type === 'tool-call-end' || (e.type === 'side-effect-resolution' && e.payload.outcome === 'done');
      if (!done) continue;
      const step = e.type === 'tool-call-end' ? String(e.payload.toolName) : undefined;
      const key = String(e.payload.idempotencyKey ?? keyOf.get(String(e.payload.toolCallId)));
      const kind = step ? scenario.sideEffects[step] : kindOfKey(store, key);
      if (!kind) continue;
      const first = store[kind]?.[key]?.first;
      check(
        isDeepStrictEqual(e.payload.output, first),
        () => `${e.type} at seq ${e.seq} records ${JSON.stringify(e.payload.output)} under key ${key}; the world's result there is ${JSON.stringify(first)}`,
      );
    }
  }
}

function kindOfKey(store: WorkflowEvidence['store'], key: string): string | undefined {
  return Object.keys(store).find((kind) => store[kind]?.[key] !== undefined);
}

/** The completed output's results: per kind exactly the expected count, each the world's first result under a key executed once. */
function outputOf({ scenario, store }: WorkflowEvidence, output: unknown, check: Check): void {
  const results = opResults(output);
  const perKind = new Map<string, number>();
  for (const result of results) {
    perKind.set(result.kind, (perKind.get(result.kind) ?? 0) + 1);
    const record = Object.values(store[result.kind] ?? {}).find((r) => r.first?.opId === result.opId);
    check(
      record !== undefined && isDeepStrictEqual(record.first, result) && record.executions === 1,
      () => `the output holds ${JSON.stringify(result)}, which is no key's one execution in the world (${JSON.stringify(record)})`,
    );
  }
  check(new Set(results.map((r) => r.opId)).size === results.length, () => `the output holds one result twice: ${results.map((r) => r.opId).join(', ')}`);
  for (const kind of new Set([...Object.keys(scenario.expected), ...perKind.keys()]))
    check(
      (perKind.get(kind) ?? 0) === (scenario.expected[kind] ?? 0),
      () => `the output holds ${perKind.get(kind) ?? 0} ${kind} results, expected ${scenario.expected[kind] ?? 0}`,
    );
}

function opResults(value: unknown): OpResult[] {
  if (Array.isArray(value)) return value.flatMap(opResults);
  if (value === null || typeof value !== 'object') return [];
  const v = value as Record<string, unknown>;
  if (typeof v.opId === 'string' && typeof v.kind === 'string') return [v as unknown as OpResult];
  return Object.values(v).flatMap(opResults);
}

/** Every accepted send is in the journal once; no event delivered twice; a completed run took its event once and timed out after. */
function events({ scenario, journal, log }: WorkflowEvidence, status: string | undefined, output: unknown, check: Check): void {
  const sent = journal.events.filter((e) => e.type === 'workflow-event');
  const ids = sent.map((e) => String(e.payload.eventId));
  check(new Set(ids).size === ids.length, () => `an event id recorded twice: ${ids.join(', ')}`);
  const accepted = log.filter((l) => l.kind === 'operator' && l.action === 'event' && l.result === 'accepted');
  for (const line of accepted)
    check(
      line.kind === 'operator' && ids.includes(String(line.eventId)),
      () => `an event send the journal accepted (process ${line.pid}) is not in the journal`,
    );
  const recordedNow = accepted.filter((l) => l.kind === 'operator' && l.recorded === true).length;
  check(recordedNow === new Set(ids).size, () => `${recordedNow} sends answered recorded: true, the journal holds ${ids.length} events`);
  const delivered = journal.events.filter((e) => e.type === 'workflow-wait-end' && e.payload.outcome === 'event').map((e) => String(e.payload.eventId));
  check(new Set(delivered).size === delivered.length, () => `an event delivered twice: ${delivered.join(', ')}`);
  for (const id of delivered) check(ids.includes(id), () => `a wait took event ${id}, which was never sent`);
  const event = scenario.workflow?.event;
  if (!event || status !== 'completed') return;
  const got = output as { reply?: { eventId?: string; text?: string }; again?: string } | undefined;
  check(delivered.length === 1 && delivered[0] === event.eventId, () => `the completed run took events [${delivered.join(', ')}], not ${event.eventId} once`);
  check(got?.reply?.eventId === event.eventId && got.reply.text === event.payload.text, () => `the first wait answered ${JSON.stringify(got?.reply)}`);
  check(got?.again === 'timeout', () => `the second wait answered ${JSON.stringify(got?.again)}, not a timeout: the one event was delivered twice`);
}

/** A run that slept woke no earlier than the recorded end (its wf.now() right after the sleep, in the output as wokeAt). */
function sleeps(journal: JournalRead, output: unknown, check: Check): void {
  const woke = (output as { wokeAt?: unknown } | undefined)?.wokeAt;
  for (const wait of journal.events.filter((e) => e.type === 'workflow-wait' && (e.payload.wait as { kind?: string }).kind === 'sleep')) {
    const until = Date.parse(String((wait.payload.wait as { until?: string }).until));
    const ended = journal.events.find((e) => e.type === 'workflow-wait-end' && e.payload.waitId === wait.payload.waitId);
    if (ended) check(ended.payload.outcome === 'elapsed', () => `sleep ${wait.payload.waitId} ended ${ended.payload.outcome}`);
    if (typeof woke === 'number')
      check(woke >= until, () => `the run woke at ${new Date(woke).toISOString()}, before its sleep's end ${new Date(until).toISOString()}`);
  }
}

/** The children the parent recorded are the scenario's; each started with its parent link, completed, and answered the parent with its own output. */
function childRuns({ journal, children }: WorkflowEvidence, status: string | undefined, check: Check): void {
  const waits = journal.events.filter((e) => e.type === 'workflow-wait' && (e.payload.wait as { kind?: string }).kind === 'children');
  const recorded = waits.flatMap((w) =>
    ((w.payload.wait as { children: { runId: string }[] }).children ?? []).map((c) => ({ runId: c.runId, waitId: String(w.payload.waitId) })),
  );
  const declared = Object.keys(children).sort();
  // All of them once the parent completed; before (a canceled parent), some of them.
  const named = recorded.map((c) => c.runId).sort();
  check(
    status === 'completed' ? isDeepStrictEqual(named, declared) : named.every((id) => declared.includes(id)),
    () => `the parent recorded children [${named.join(', ')}], the scenario declares [${declared.join(', ')}]`,
  );
  for (const { runId, waitId } of recorded) {
    const rows = children[runId];
    if (!rows || (rows.events.length === 0 && status !== 'completed')) continue;
    const start = rows.events.find((e: Row) => e.type === 'run-start');
    const link = (start?.payload.input as { parent?: { runId: string; waitId: string } } | undefined)?.parent;
    // A child's id is its parent's and the wait's name: `<parent>/<name>[/<k>]`.
    check(
      link?.waitId === waitId && runId.startsWith(`${link.runId}/`),
      () => `child ${runId} was started with parent link ${JSON.stringify(link)}, not wait ${waitId}`,
    );
    if (status !== 'completed') continue;
    check(rows.run?.status === 'completed', () => `child ${runId} ends ${rows.run?.status}, its parent completed`);
    const own = rows.events.find((e) => e.type === 'run-complete')?.payload.output;
    const end = journal.events.find((e) => e.type === 'workflow-wait-end' && e.payload.waitId === waitId);
    const answered = ((end?.payload.value as { runId: string; status: string; output?: unknown }[] | undefined) ?? []).find((o) => o.runId === runId);
    check(
      answered?.status === 'completed' && isDeepStrictEqual(answered.output, own),
      () => `the parent recorded ${JSON.stringify(answered)} for child ${runId}, whose own output is ${JSON.stringify(own)}`,
    );
  }
}

/** At most `concurrency` of the fan-out's children open at once, in the order the schedule log holds their boundaries. */
function fanOut({ scenario, log }: WorkflowEvidence, check: Check): void {
  const shape = scenario.workflow?.fanOut;
  if (!shape) return;
  const open = new Set<string>();
  let most = 0;
  for (const line of log) {
    if (line.kind !== 'boundary' || !line.childRun || !line.run || !line.childRun.startsWith(`${line.run}/${shape.prefix}`)) continue;
    if (line.label === 'child/after:run-start') open.add(line.childRun);
    if (line.label === 'child/after:run-complete' || line.label === 'child/after:run-fail') open.delete(line.childRun);
    most = Math.max(most, open.size);
  }
  check(most <= shape.concurrency, () => `${most} children of the fan-out open at once, its concurrency is ${shape.concurrency}`);
}
