/**
 * The workflow judge (workflow-invariants.ts) must be able to say no: given the evidence of a clean run of
 * a workflow scenario it passes every check, and each invariant, given evidence that breaks it, names the
 * violation: a side effect twice, an outcome the world did not produce, an event recorded or delivered
 * twice, a sleep that ended early, a child's outcome misrecorded, a fan-out over its concurrency.
 */
import { describe, expect, it } from 'vitest';
import type { OpResult } from './outside-world';
import type { JournalRead, LogLine } from './protocol';
import { scenarioNamed } from './scenarios';
import { judgeWorkflow, type WorkflowEvidence } from './workflow-invariants';
import { REPLY_EVENT } from './workflow-scenarios';

type Row = Omit<JournalRead['events'][number], 'seq'>;
const rows = (status: string, events: Row[]): JournalRead => ({
  run: { status, lastSeq: events.length },
  events: events.map((e, i) => ({ seq: i + 1, ...e })),
});
const op = (kind: string, n: number): OpResult => ({ opId: `${kind}_${n}`, kind, execution: 1 });
const key = (c: string) => c.repeat(49);
const sideEffect = (toolCallId: string, toolName: string, k: string, output: OpResult): Row[] => [
  { type: 'tool-call-start', payload: { toolCallId, toolName, idempotencyKey: k, attempt: 1, sideEffect: true } },
  { type: 'tool-call-end', payload: { toolCallId, toolName, idempotencyKey: k, attempt: 1, output, source: 'executed' } },
];
const violations = (evidence: WorkflowEvidence) => judgeWorkflow(evidence).violations.join('\n');

const T = Date.parse('2026-12-05T10:00:00Z');
const CONFIRM = op('emails', 1);

/** A clean wf-sleep-event run: slept, took the reply, timed out on the second wait, confirmed once. */
function sleepEvent(): WorkflowEvidence {
  const events: Row[] = [
    { type: 'run-start', payload: { input: {} } },
    { type: 'workflow-wait', payload: { waitId: 'wf-0', name: 'cool-off', wait: { kind: 'sleep', until: new Date(T + 200).toISOString() } } },
    { type: 'run-suspend', payload: { status: 'waiting', pending: [] } },
    { type: 'run-resume', payload: {} },
    { type: 'workflow-wait-end', payload: { waitId: 'wf-0', outcome: 'elapsed' } },
    { type: 'tool-call-end', payload: { toolCallId: 'wf-1', toolName: 'now', idempotencyKey: key('n'), output: T + 220, source: 'executed' } },
    { type: 'workflow-event', payload: { eventId: REPLY_EVENT.eventId, name: REPLY_EVENT.name, payload: REPLY_EVENT.payload, by: 'ops' } },
    { type: 'workflow-wait', payload: { waitId: 'wf-2', name: 'reply', wait: { kind: 'event', event: 'reply' } } },
    { type: 'workflow-wait-end', payload: { waitId: 'wf-2', outcome: 'event', eventId: REPLY_EVENT.eventId, value: REPLY_EVENT.payload } },
    { type: 'workflow-wait', payload: { waitId: 'wf-3', name: 'reply', wait: { kind: 'event', event: 'reply', timeoutAt: new Date(T + 500).toISOString() } } },
    { type: 'workflow-wait-end', payload: { waitId: 'wf-3', outcome: 'timeout' } },
    ...sideEffect('wf-4', 'confirm', key('c'), CONFIRM),
    {
      type: 'run-complete',
      payload: { output: { wokeAt: T + 220, reply: { eventId: REPLY_EVENT.eventId, text: REPLY_EVENT.payload.text }, again: 'timeout', confirm: CONFIRM } },
    },
  ];
  const sent: LogLine = { pid: 1, kind: 'operator', action: 'event', eventId: REPLY_EVENT.eventId, result: 'accepted', recorded: true, race: false };
  const again: LogLine = { ...sent, recorded: false };
  return {
    scenario: scenarioNamed('wf-sleep-event'),
    journal: rows('completed', events),
    children: {},
    store: { emails: { [key('c')]: { requests: 1, executions: 1, first: CONFIRM } } },
    log: [sent, again],
  };
}

const P = 'explorer:wf-children:1';
const NOTICES = [0, 1, 2, 3].map((n) => op('notices', n + 1));
const CLOSE = op('tickets', 5);

/** A clean wf-children run: the audit child, the fan-out of three (two open at once), the close. */
function children(): WorkflowEvidence {
  const ids = ['audit', 'notify/0', 'notify/1', 'notify/2'].map((s) => `${P}/${s}`);
  const waitOf = (id: string) => (id.endsWith('audit') ? 'wf-0' : 'wf-1');
  const child = (id: string, k: number) =>
    rows('completed', [
      { type: 'run-start', payload: { input: { parent: { runId: P, waitId: waitOf(id) } } } },
      ...sideEffect('wf-0', 'notice', key(String(k)), NOTICES[k] as OpResult),
      { type: 'run-complete', payload: { output: NOTICES[k] } },
    ]);
  const outcome = (k: number) => ({ runId: ids[k], status: 'completed', output: NOTICES[k] });
  const refs = (from: number, to: number) => ids.slice(from, to).map((runId) => ({ runId, kind: 'workflow', name: 'wf-leaf' }));
  const events: Row[] = [
    { type: 'run-start', payload: { input: {} } },
    { type: 'workflow-wait', payload: { waitId: 'wf-0', name: 'audit', wait: { kind: 'children', children: refs(0, 1), concurrency: 1, onFailure: 'throw' } } },
    { type: 'workflow-wait-end', payload: { waitId: 'wf-0', outcome: 'children', value: [outcome(0)] } },
    {
      type: 'workflow-wait',
      payload: { waitId: 'wf-1', name: 'notify', wait: { kind: 'children', children: refs(1, 4), concurrency: 2, onFailure: 'throw' } },
    },
    { type: 'workflow-wait-end', payload: { waitId: 'wf-1', outcome: 'children', value: [outcome(1), outcome(2), outcome(3)] } },
    ...sideEffect('wf-2', 'close', key('x'), CLOSE),
    { type: 'run-complete', payload: { output: { audit: NOTICES[0], notices: NOTICES.slice(1), close: CLOSE } } },
  ];
  const line = (label: string, k: number): LogLine => ({ pid: 1, run: P, kind: 'boundary', label, childRun: ids[k] });
  return {
    scenario: scenarioNamed('wf-children'),
    journal: rows('completed', events),
    children: Object.fromEntries(ids.map((id, k) => [id, child(id, k)])),
    store: {
      notices: Object.fromEntries(NOTICES.map((first, k) => [key(String(k)), { requests: 1, executions: 1, first }])),
      tickets: { [key('x')]: { requests: 1, executions: 1, first: CLOSE } },
    },
    log: [
      line('child/after:run-start', 1),
      line('child/after:run-start', 2),
      line('child/after:run-complete', 1),
      line('child/after:run-complete', 2),
      line('child/after:run-start', 3),
      line('child/after:run-complete', 3),
    ],
  };
}

describe('the workflow judge', () => {
  it('passes clean runs of the event and the fan-out scenarios, counting every check', () => {
    for (const evidence of [sleepEvent(), children()]) {
      const verdict = judgeWorkflow(evidence);
      expect(verdict.violations).toEqual([]);
      expect(verdict.checks).toBeGreaterThan(20);
    }
  });

  it('a side effect executed twice, or not at all in a completed run, is a violation', () => {
    const twice = sleepEvent();
    twice.store = { emails: { [key('c')]: { requests: 2, executions: 2, first: CONFIRM } } };
    expect(violations(twice)).toMatch(/emails under key c+ executed 2 times in the outside world/);
    const never = sleepEvent();
    never.store = {};
    expect(violations(never)).toMatch(/emails: 0 executions in the outside world, the completed workflow expects 1/);
  });

  it('a recorded outcome or an output that is not what the world did under the key is a violation', () => {
    const evidence = sleepEvent();
    const other = op('emails', 9);
    (evidence.store.emails as Record<string, { first?: OpResult }>)[key('c')] = { requests: 1, executions: 1, first: other } as never;
    expect(violations(evidence)).toMatch(/tool-call-end at seq 13 records .* the world's result there is/);
    expect(violations(evidence)).toMatch(/the output holds .*emails_1.*, which is no key's one execution in the world/);
  });

  it('an event delivered twice (the second wait took it again) is a violation', () => {
    const evidence = sleepEvent();
    const events = evidence.journal.events;
    const second = events.find((e) => e.type === 'workflow-wait-end' && e.payload.waitId === 'wf-3');
    if (!second) throw new Error('no second wait-end');
    second.payload = { waitId: 'wf-3', outcome: 'event', eventId: REPLY_EVENT.eventId, value: REPLY_EVENT.payload };
    const complete = events.at(-1);
    if (complete) complete.payload = { output: { ...(complete.payload.output as object), again: REPLY_EVENT.eventId } };
    expect(violations(evidence)).toMatch(/an event delivered twice: reply-1, reply-1/);
    expect(violations(evidence)).toMatch(/the second wait answered "reply-1", not a timeout/);
  });

  it('one event id recorded twice, or a send the journal accepted that is not in it, is a violation', () => {
    const twice = sleepEvent();
    const sent = twice.journal.events.find((e) => e.type === 'workflow-event');
    twice.journal = rows('completed', [...twice.journal.events, { type: 'workflow-event', payload: { ...sent?.payload } }]);
    expect(violations(twice)).toMatch(/an event id recorded twice: reply-1, reply-1/);
    const lost = sleepEvent();
    lost.journal = rows(
      'completed',
      lost.journal.events.filter((e) => e.type !== 'workflow-event'),
    );
    expect(violations(lost)).toMatch(/an event send the journal accepted \(process 1\) is not in the journal/);
    expect(violations(lost)).toMatch(/a wait took event reply-1, which was never sent/);
  });

  it('a run that woke before its sleep ended is a violation', () => {
    const evidence = sleepEvent();
    const complete = evidence.journal.events.at(-1);
    if (complete) complete.payload = { output: { ...(complete.payload.output as object), wokeAt: T + 150 } };
    expect(violations(evidence)).toMatch(/the run woke at .*, before its sleep's end/);
  });

  it('a canceled run passes only with a cancel the journal accepted', () => {
    const evidence = sleepEvent();
    evidence.journal = { ...evidence.journal, run: { status: 'canceled', lastSeq: evidence.journal.events.length } };
    expect(violations(evidence)).toMatch(/the workflow run did not complete \(status canceled\)/);
  });

  it("a child's outcome the parent recorded differently from the child's own, or a wrong parent link, is a violation", () => {
    const evidence = children();
    const child = evidence.children[`${P}/notify/1`];
    const complete = child?.events.find((e) => e.type === 'run-complete');
    if (complete) complete.payload = { output: op('notices', 7) };
    expect(violations(evidence)).toMatch(/the parent recorded .* for child explorer:wf-children:1\/notify\/1, whose own output is/);
    const linked = children();
    const start = linked.children[`${P}/audit`]?.events[0];
    if (start) start.payload = { input: { parent: { runId: P, waitId: 'wf-1' } } };
    expect(violations(linked)).toMatch(/child explorer:wf-children:1\/audit was started with parent link .*, not wait wf-0/);
  });

  it('a fan-out with more children open at once than its concurrency is a violation', () => {
    const evidence = children();
    const [a, b, , , c] = evidence.log;
    evidence.log = [a, b, c].filter((l): l is LogLine => l !== undefined);
    expect(violations(evidence)).toMatch(/3 children of the fan-out open at once, its concurrency is 2/);
  });
});
