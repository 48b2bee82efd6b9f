/**
 * The explorer's judge must be able to say no: each invariant, given evidence that breaks it, names
 * the violation (and a clean run passes every check).
 */
import { describe, expect, it } from 'vitest';
import { type Evidence, judge } from './invariants';
import { scenarioNamed } from './scenarios';

const scenario = scenarioNamed('side-effect');
const KEY = 'k'.repeat(49);

function clean(): Evidence {
  const events = [
    { type: 'run-start', payload: {} },
    { type: 'model-step', payload: { step: 0 } },
    { type: 'tool-call-start', payload: { toolCallId: 'c-refund', attempt: 1, idempotencyKey: KEY } },
    { type: 'tool-call-end', payload: { toolCallId: 'c-refund', attempt: 1, idempotencyKey: KEY } },
    { type: 'model-step', payload: { step: 1 } },
    { type: 'run-complete', payload: { text: 'Refunded.' } },
  ].map((e, i) => ({ seq: i + 1, ...e }));
  return {
    scenario,
    journal: { run: { status: 'completed', lastSeq: events.length }, events },
    store: { refunds: { [KEY]: { requests: 1, executions: 1 } } },
    log: [
      { pid: 1, kind: 'model', step: 0 },
      { pid: 1, kind: 'boundary', label: 'after:model-step[refund]', recordedSteps: [0] },
      { pid: 1, kind: 'model', step: 1 },
      { pid: 1, kind: 'boundary', label: 'after:model-step[text]', recordedSteps: [1] },
    ],
    saidNotDone: false,
  };
}

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
    const [first, , ...rest] = evidence.journal.events;
    evidence.journal.events = [first as never, ...rest];
    expect(judge(evidence).violations.join('\n')).toMatch(/sequence numbers are not 1..n/);
    const dup = clean();
    dup.journal.events.push({ ...(dup.journal.events[3] as Evidence['journal']['events'][number]), seq: 7 });
    dup.journal.run = { status: 'completed', lastSeq: 7 };
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
});
