/**
 * The explorer's judge must be able to say no: each invariant, given evidence that breaks it, names
 * the violation (and a clean run passes every check).
 */
import { describe, expect, it } from 'vitest';
import { type Evidence, judge } from './invariants';
import { scenarioNamed } from './scenarios';

const scenario = scenarioNamed('side-effect');
const KEY = 'k'.repeat(49);

const step = (n: number, content: unknown[]) => ({ type: 'model-step', payload: { step: n, result: { content } } });
const toolCall = (toolCallId: string, toolName: string) => ({ type: 'tool-call', toolCallId, toolName, input: '{}' });

function clean(): Evidence {
  const events = [
    { type: 'run-start', payload: {} },
    step(0, [toolCall('c-look', 'lookup')]),
    { type: 'tool-call-end', payload: { toolCallId: 'c-look', attempt: 1, idempotencyKey: 'r'.repeat(49), source: 'executed' } },
    step(1, [toolCall('c-refund', 'refund')]),
    { type: 'tool-call-start', payload: { toolCallId: 'c-refund', attempt: 1, idempotencyKey: KEY } },
    { type: 'tool-call-end', payload: { toolCallId: 'c-refund', attempt: 1, idempotencyKey: KEY, source: 'executed' } },
    step(2, [{ type: 'text', text: 'Refunded.' }]),
    { type: 'run-complete', payload: { text: 'Refunded.' } },
  ].map((e, i) => ({ seq: i + 1, ...e }));
  return {
    scenario,
    journal: { run: { status: 'completed', lastSeq: events.length }, events },
    store: { refunds: { [KEY]: { requests: 1, executions: 1 } } },
    log: [
      { pid: 1, kind: 'model', step: 0 },
      { pid: 1, kind: 'boundary', label: 'after:model-step[lookup]', recordedSteps: [0] },
      { pid: 1, kind: 'model', step: 1 },
      { pid: 1, kind: 'boundary', label: 'after:model-step[refund]', recordedSteps: [1] },
      { pid: 1, kind: 'model', step: 2 },
      { pid: 1, kind: 'boundary', label: 'after:model-step[text]', recordedSteps: [2] },
    ],
    saidNotDone: false,
    modelRequests: [
      { step: 0, attempt: 1, answered: ['lookup'] },
      { step: 1, attempt: 1, fault: '429' },
      { step: 1, attempt: 2, answered: ['refund'] },
      { step: 2, attempt: 1, answered: ['text'] },
    ],
  };
}

type Row = Evidence['journal']['events'][number];
/** Puts events in at `index` (0-based) and renumbers. */
function insert(evidence: Evidence, index: number, ...rows: Omit<Row, 'seq'>[]): void {
  const events = [...evidence.journal.events];
  events.splice(index, 0, ...(rows as Row[]));
  evidence.journal.events = events.map((e, i) => ({ ...e, seq: i + 1 }));
  evidence.journal.run = { status: evidence.journal.run?.status ?? 'completed', lastSeq: events.length };
}
const violations = (evidence: Evidence) => judge(evidence).violations.join('\n');

describe('the explorer judge', () => {
  it('passes a clean completed run, counting every check', () => {
    const verdict = judge(clean());
    expect(verdict.violations).toEqual([]);
    expect(verdict.checks).toBeGreaterThan(10);
  });

  it('a side effect executed twice in the outside world is a violation', () => {
    const evidence = clean();
    evidence.store = { refunds: { [KEY]: { requests: 2, executions: 2 } } };
    expect(judge(evidence).violations.join('\n')).toMatch(/executed 2 times/);
  });

  it('a completed run whose side effect never happened is a violation', () => {
    const evidence = clean();
    evidence.store = {};
    expect(judge(evidence).violations.join('\n')).toMatch(/refunds: 0 executions in the outside world, expected 1/);
  });

  it('a gap or a duplicate in the sequence numbers is a violation', () => {
    const evidence = clean();
    const [first, second, , ...rest] = evidence.journal.events;
    evidence.journal.events = [first as never, second as never, ...rest];
    expect(judge(evidence).violations.join('\n')).toMatch(/sequence numbers are not 1..n/);
    const dup = clean();
    dup.journal.events.push({ ...(dup.journal.events[5] as Evidence['journal']['events'][number]), seq: 9 });
    dup.journal.run = { status: 'completed', lastSeq: 9 };
    expect(judge(dup).violations.join('\n')).toMatch(/tool-call-end of call recorded twice/);
  });

  it('a run left running (no process alive) is a violation', () => {
    const evidence = clean();
    evidence.journal.run = { status: 'running', lastSeq: evidence.journal.events.length };
    expect(judge(evidence).violations.join('\n')).toMatch(/left running with no live holder/);
  });

  it('a real model call for a step already recorded is a violation', () => {
    const evidence = clean();
    evidence.log.push({ pid: 2, kind: 'model', step: 0 });
    expect(judge(evidence).violations.join('\n')).toMatch(/process 2 called the model for step 0, already recorded/);
  });

  it('a key the outside world saw that the journal never started is a violation', () => {
    const evidence = clean();
    evidence.store.refunds = { ...evidence.store.refunds, ['z'.repeat(49)]: { requests: 1, executions: 1 } };
    expect(violations(evidence)).toMatch(/saw refunds under key z+, which the journal never started/);
  });

  it('a call the policy denied that executes anyway is a violation', () => {
    const evidence = clean();
    evidence.log.push({ pid: 3, kind: 'policy', toolCallId: 'c-refund', decision: 'denied' });
    // Died before anything was committed after the denial: it never took effect.
    expect(violations(evidence)).not.toMatch(/though the policy denied it/);
    evidence.log.push({ pid: 3, kind: 'boundary', label: 'after:tool-approval-response' });
    expect(violations(evidence)).toMatch(/call c-refund executed \(tool-call-start at seq 5\) though the policy denied it \(process 3\)/);
  });

  it('a call a person rejected that executes anyway is a violation; a refused reject is not a rejection', () => {
    const evidence = clean();
    evidence.log.push({ pid: 1, kind: 'operator', action: 'reject', toolCallId: 'c-refund', result: 'refused', race: true });
    expect(violations(evidence)).not.toMatch(/though an operator rejected it/);
    evidence.log.push({ pid: 1, kind: 'operator', action: 'reject', toolCallId: 'c-refund', result: 'accepted', race: true });
    expect(violations(evidence)).toMatch(/call c-refund executed .* though an operator rejected it/);
  });

  it('a decision the journal accepted that is not in the journal is a violation (a lost decision)', () => {
    const evidence = clean();
    evidence.log.push({ pid: 2, kind: 'operator', action: 'approve', toolCallId: 'c-refund', result: 'accepted', race: true });
    expect(violations(evidence)).toMatch(/a racing approve of c-refund \(process 2\), accepted by the journal, is not in the journal/);
    insert(evidence, 4, { type: 'tool-approval-response', payload: { toolCallId: 'c-refund', approved: true } });
    expect(violations(evidence)).not.toMatch(/accepted by the journal/);
    evidence.log.push({ pid: 2, kind: 'operator', action: 'resume', result: 'accepted', race: true });
    expect(violations(evidence)).toMatch(/a racing resume \(process 2\), accepted by the journal, is not in the journal \(no run-resume-request\)/);
  });

  it('a canceled run passes only when an operator cancel was accepted and journaled', () => {
    const evidence = clean();
    evidence.journal.run = { status: 'canceled', lastSeq: evidence.journal.events.length };
    expect(violations(evidence)).toMatch(/the run did not complete \(status canceled\)/);
    evidence.log.push({ pid: 1, kind: 'operator', action: 'cancel', result: 'accepted', race: true });
    expect(violations(evidence)).toMatch(/no run-cancel/);
    insert(evidence, 7, { type: 'run-cancel', payload: { by: 'x' } });
    evidence.journal.run = { status: 'canceled', lastSeq: evidence.journal.events.length };
    expect(violations(evidence)).toBe('');
  });

  it('a suspend that waits for a decision already in the journal is a violation (a decision lost to a starting resume)', () => {
    const evidence = clean();
    insert(
      evidence,
      4,
      { type: 'tool-approval-response', payload: { toolCallId: 'c-refund', approved: true } },
      { type: 'run-suspend', payload: { status: 'waiting-approval', pending: [{ kind: 'approval', toolCallId: 'c-refund' }] } },
    );
    expect(violations(evidence)).toMatch(/run-suspend at seq 6 waits for c-refund, decided at seq 5/);
  });

  it('a side effect started after a cancel the journal accepted that still does its work is a violation', () => {
    const evidence = clean();
    const start = { pid: 3, kind: 'boundary', label: 'after:tool-call-start(refund)' } as const;
    const cancel = { pid: 3, kind: 'operator', action: 'cancel', result: 'accepted', race: true } as const;
    const perform = { pid: 3, kind: 'perform', toolName: 'refund' } as const;
    // Started before the cancel: a race the judge leaves alone.
    evidence.log.push(start, cancel, perform);
    expect(violations(evidence)).not.toMatch(/after a cancel/);
    evidence.log.push(start, perform);
    expect(violations(evidence)).toMatch(/process 3 did refund's side effect, started after a cancel the journal accepted \(process 3\)/);
  });

  it('model steps numbered by attempts (a retry shifting them) are a violation', () => {
    const evidence = clean();
    (evidence.journal.events[3] as Row).payload.step = 2;
    (evidence.journal.events[6] as Row).payload.step = 3;
    expect(violations(evidence)).toMatch(/model steps in the journal are numbered 0,2,3, not 0..2/);
  });

  it("a model step holding another step's answer is a violation", () => {
    const evidence = clean();
    (evidence.journal.events[3] as Row).payload.result = { content: [toolCall('c-look', 'lookup')] };
    expect(violations(evidence)).toMatch(/model step 1 in the journal holds \[lookup\], the model's answer for step 1 was \[refund\]/);
  });

  it('an event over the event limit is a violation', () => {
    const evidence = clean();
    (evidence.journal.events[6] as Row).payload.result = { content: [{ type: 'text', text: 'x'.repeat(1024 * 1024 + 5000) }] };
    expect(violations(evidence)).toMatch(/event 7 \(model-step\) is over the event limit/);
  });
});
