/**
 * The judge of migrations and forks must be able to say no: given evidence that breaks an invariant,
 * it names the violation, and the clean evidence passes.
 */
import { describe, expect, it } from 'vitest';
import { judgeFork, parentUnchanged } from './fork-invariants';
import { migrations } from './migrate-invariants';
import type { JournalRead, LogLine } from './protocol';
import { scenarioNamed } from './scenarios';
import { OPERATOR, SYSTEMS } from './versions';

type Row = JournalRead['events'][number];
const rows = (events: Omit<Row, 'seq'>[]): Row[] => events.map((e, i) => ({ seq: i + 1, ...e }));
const step = (n: number, toolName?: string) => ({
  type: 'model-step',
  payload: {
    step: n,
    result: { content: toolName ? [{ type: 'tool-call', toolCallId: `c${n}`, toolName, input: '{}' }] : [{ type: 'text', text: 'Three refunds.' }] },
  },
});
const startOf = (id: string, key: string, amount: number) => ({
  type: 'tool-call-start',
  payload: { toolCallId: id, toolName: 'refund', attempt: 1, input: { amount }, idempotencyKey: key },
});
const endOf = (id: string, key: string) => ({
  type: 'tool-call-end',
  payload: { toolCallId: id, toolName: 'refund', attempt: 1, idempotencyKey: key, source: 'executed' },
});
const migrate = {
  type: 'run-migrate',
  payload: { input: { system: SYSTEMS['v2-prompt'] }, toVersion: 'v2hash', changed: ['system'], by: OPERATOR, reason: 'explorer: migrate' },
};
const accepted: LogLine = {
  pid: 2,
  kind: 'version',
  op: 'migrate',
  result: 'accepted',
  race: false,
  reason: 'explorer: migrate',
  to: 'v2-prompt',
  version: 'v2hash',
  force: false,
};

function judged(journal: JournalRead, log: LogLine[]): string[] {
  const violations: string[] = [];
  migrations({ journal, log, check: (ok, violation) => (ok ? undefined : violations.push(violation())) });
  return violations;
}

describe('the migration invariants', () => {
  const journal = (after: Omit<Row, 'seq'>[] = []): JournalRead => {
    const events = rows([
      { type: 'run-start', payload: { input: { system: SYSTEMS.v1 } } },
      step(0, 'refund'),
      startOf('c0', 'k0', 1),
      endOf('c0', 'k0'),
      migrate,
      ...after,
    ]);
    return { run: { status: 'completed', lastSeq: events.length }, events };
  };
  const log: LogLine[] = [{ pid: 1, kind: 'model', step: 0, system: SYSTEMS.v1 }, accepted, { pid: 2, kind: 'model', step: 1, system: SYSTEMS['v2-prompt'] }];

  it('passes a migration journaled as accepted, after which the model is asked with the new prompt', () => {
    expect(judged(journal([step(1)]), log)).toEqual([]);
  });

  it('says so when an accepted migration is not journaled, or journaled under another name', () => {
    const missing = journal();
    missing.events = missing.events.filter((e) => e.type !== 'run-migrate');
    expect(judged(missing, log).join('\n')).toContain('1 migrations accepted, 0 run-migrate events journaled');
    const other = journal();
    other.events = other.events.map((e) => (e.type === 'run-migrate' ? { ...e, payload: { ...e.payload, by: 'someone' } } : e));
    expect(judged(other, log).join('\n')).toContain('is journaled as');
  });

  it('says so when a call finished before the migration starts again after it', () => {
    expect(judged(journal([startOf('c0', 'k0', 1)]), log).join('\n')).toContain('call c0, finished before the migration at seq 5, started again at seq 6');
  });

  it('says so when the model is asked with the old version’s prompt after the migration', () => {
    const stale: LogLine[] = [...log, { pid: 2, kind: 'model', step: 2, system: SYSTEMS.v1 }];
    expect(judged(journal(), stale).join('\n')).toContain('not its version');
  });
});

describe('the fork invariants', () => {
  const scenario = scenarioNamed('agent-steps');
  const parent: JournalRead = {
    run: { status: 'completed', lastSeq: 9 },
    events: rows([
      { type: 'run-start', payload: { input: { system: SYSTEMS.v1 } } },
      step(0, 'refund'),
      startOf('c0', 'k0', 1),
      endOf('c0', 'k0'),
      step(1, 'refund'),
      startOf('c1', 'k1', 3),
      endOf('c1', 'k1'),
      step(2),
      { type: 'run-forked', payload: { childRunId: 'p:fork-0', atStep: 2, by: OPERATOR, reason: 'again' } },
    ]),
  };
  const fork = (repeatKey: string): JournalRead => ({
    run: { status: 'completed', lastSeq: repeatKey === 'k1' ? 8 : 9 },
    events: rows([
      { type: 'run-start', payload: { input: { system: SYSTEMS.v1, forkOf: { runId: 'p', atStep: 2, by: OPERATOR, reason: 'again', copiedEvents: 3 } } } },
      step(0, 'refund'),
      startOf('c0', 'k0', 1),
      endOf('c0', 'k0'),
      step(1, 'refund'),
      // The repeat of the parent's refund (amount 3, key k1): answered from the parent's record, or (a defect) executed anew.
      ...(repeatKey === 'k1'
        ? [
            {
              type: 'tool-call-end',
              payload: {
                toolCallId: 'c1',
                toolName: 'refund',
                attempt: 1,
                input: { amount: 3 },
                idempotencyKey: 'k1',
                source: 'deduplicated',
                inheritedFrom: 'p',
              },
            },
          ]
        : [startOf('c1', repeatKey, 3), endOf('c1', repeatKey)]),
      step(2),
      { type: 'run-complete', payload: { text: 'Three refunds.' } },
    ]),
  });
  const made: LogLine = {
    pid: 3,
    run: 'p',
    kind: 'version',
    op: 'fork',
    result: 'accepted',
    race: false,
    reason: 'again',
    parent: 'p',
    childRunId: 'p:fork-0',
    atStep: 2,
  };
  const evidence = (repeatKey: string, sentShared = 0) => ({
    scenario,
    parent,
    fork: fork(repeatKey),
    childRunId: 'p:fork-0',
    before: { refunds: { k0: { requests: 1, executions: 1 }, k1: { requests: 1, executions: 1 } } },
    after: {
      refunds: {
        k0: { requests: 1 + sentShared, executions: 1 },
        k1: { requests: 1, executions: 1 },
        ...(repeatKey === 'k1' ? {} : { [repeatKey]: { requests: 1, executions: 1 } }),
      },
    },
    log: [
      { pid: 4, run: 'p:fork-0', kind: 'model', step: 1 },
      { pid: 4, run: 'p:fork-0', kind: 'boundary', label: 'after:model-step[refund]', recordedSteps: [1] },
      { pid: 4, run: 'p:fork-0', kind: 'model', step: 2 },
      { pid: 4, run: 'p:fork-0', kind: 'boundary', label: 'after:model-step[text]', recordedSteps: [2] },
    ] as LogLine[],
    parentLog: [{ pid: 1, run: 'p', kind: 'model', step: 0 }, made] as LogLine[],
    saidNotDone: false,
    modelRequests: [
      { step: 0, attempt: 1, answered: ['refund'] },
      { step: 1, attempt: 1, answered: ['refund'] },
      { step: 2, attempt: 1, answered: ['text'] },
    ],
  });

  it('passes a fork whose repeat of its parent’s refund is answered from the parent’s record under its key', () => {
    expect(judgeFork(evidence('k1')).violations).toEqual([]);
  });

  it('says so when the repeat executes anew under a new key, or the shared part reaches the outside world again', () => {
    expect(judgeFork(evidence('k-new')).violations.join('\n')).toContain(
      'the fork executed refund({"amount":3}) anew under k-new while its parent\'s same work',
    );
    expect(judgeFork(evidence('k1', 1)).violations.join('\n')).toContain('key k0, of the shared part, reached the outside world 1 more times');
  });

  /** The parent canceled by its restart while its second refund (k1) was of unknown outcome; the fork's repeat of it stops with `error`. */
  const stoppedFork = (error: { name: string; message: string }, parentStatus = 'canceled') => {
    const canceledParent: JournalRead = {
      run: { status: parentStatus, lastSeq: 7 },
      events: rows([
        { type: 'run-start', payload: { input: { system: SYSTEMS.v1 } } },
        step(0, 'refund'),
        startOf('c0', 'k0', 1),
        endOf('c0', 'k0'),
        step(1, 'refund'),
        startOf('c1', 'k1', 3),
        { type: 'run-restarted', payload: { restartedAs: 'p:restart-1', by: OPERATOR } },
        { type: 'run-cancel', payload: { by: OPERATOR, reason: 'restarted as p:restart-1' } },
        { type: 'run-forked', payload: { childRunId: 'p:fork-0', atStep: 2, by: OPERATOR, reason: 'again' } },
      ]),
    };
    const stopped: JournalRead = {
      run: { status: 'failed', lastSeq: 6 },
      events: rows([
        { type: 'run-start', payload: { input: { system: SYSTEMS.v1, forkOf: { runId: 'p', atStep: 2, by: OPERATOR, reason: 'again', copiedEvents: 3 } } } },
        step(0, 'refund'),
        startOf('c0', 'k0', 1),
        endOf('c0', 'k0'),
        step(1, 'refund'),
        { type: 'run-fail', payload: { error } },
      ]),
    };
    const base = evidence('k1');
    return {
      ...base,
      parent: canceledParent,
      fork: stopped,
      log: base.log.slice(0, 2),
      modelRequests: base.modelRequests.slice(0, 2),
    };
  };
  const elsewhere = (key: string) => ({
    name: 'SideEffectElsewhereError',
    message: `Run "p:fork-0" stops: its refund call c1 repeats the side effect run "p" started under key ${key}, whose outcome is unknown. Mark it done or not done in run "p", then resume this run.`,
  });

  it('passes a fork of a parent canceled with a refund of unknown outcome that stops on it with SideEffectElsewhereError naming the parent and its key', () => {
    expect(judgeFork(stoppedFork(elsewhere('k1'))).violations).toEqual([]);
  });

  it('says so when such a fork fails otherwise: another error, SideEffectElsewhereError naming other work, or a parent that was not canceled', () => {
    const failed = (e: ReturnType<typeof stoppedFork>) => judgeFork(e).violations.join('\n');
    expect(failed(stoppedFork({ name: 'ToolCallFailedError', message: elsewhere('k1').message }))).toContain(
      'the fork ends failed, not completed (its last run-fail names ToolCallFailedError)',
    );
    expect(failed(stoppedFork(elsewhere('k0')))).toContain("naming none of its parent's work of unknown outcome (k1)");
    expect(failed(stoppedFork(elsewhere('k1'), 'completed'))).toContain('but its parent is completed, not canceled');
  });

  it('says so when the parent changed after it settled, but for run-forked and run-restarted', () => {
    const rewritten = { ...parent, events: [...parent.events, { seq: 10, type: 'tool-call-start', payload: {} }] };
    expect(parentUnchanged(parent, rewritten).violations).toHaveLength(1);
    const linked = { ...parent, events: [...parent.events, { seq: 10, type: 'run-restarted', payload: { restartedAs: 'p:restart-1', by: OPERATOR } }] };
    expect(parentUnchanged(parent, linked).violations).toEqual([]);
    expect(parentUnchanged({ ...parent, events: parent.events.slice(0, 8) }, parent).violations).toEqual([]);
  });
});
