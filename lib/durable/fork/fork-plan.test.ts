/**
 * The fork plan and a fork's keys as pure functions of a journal: what is copied and what is not, the
 * side effects after the fork point, and the key a fork's new call gets (the n-th repeat takes the n-th
 * key, other work a new one, 'args' work the root's).
 */
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../journal/events';
import { forkCallKey } from './fork-keys';
import { editableResults, planFork } from './fork-plan';
import { idempotencyKey } from '../identity/idempotency-key';
import { RunState } from '../projection/run-state';

const at = new Date('2026-12-01T10:00:00Z');
const input = { prompt: 'Refund o_17 twice', modelId: 'm', provider: 'p', toolNames: ['refund'] };
const refund = { orderId: 'o_17', amount: 40 };
const call = (id: string, args = refund) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'refund', input: JSON.stringify(args) });
const step = (n: number, content: unknown[]) => ({ type: 'model-step' as const, step: n, provider: 'p', modelId: 'm', latencyMs: 1, result: { content } });
const start = (id: string, key: string) => ({
  type: 'tool-call-start' as const,
  toolCallId: id,
  toolName: 'refund',
  input: refund,
  idempotencyKey: key,
  attempt: 1,
  sideEffect: true,
});
const end = (id: string, key: string) => ({
  type: 'tool-call-end' as const,
  toolCallId: id,
  toolName: 'refund',
  idempotencyKey: key,
  attempt: 1,
  output: { ok: true },
  durationMs: 1,
  source: 'executed' as const,
});

function journal(events: object[]): RecordedEvent[] {
  return events.map((event, i) => ({ ...event, seq: i + 1, at }) as RecordedEvent);
}

/** A parent that refunded twice at step 2 (journal step 1), after a step-1 lookup, with a cancel request and a fail in between. */
const PARENT = journal([
  { type: 'run-start', input },
  step(0, [{ type: 'text', text: 'looking' }]),
  { type: 'run-fail', error: { name: 'Error', message: 'boom' } },
  { type: 'run-resume-request', by: 'bob' },
  { type: 'run-resume', fromStatus: 'failed' },
  step(1, [call('c1'), call('c2')]),
  start('c1', 'k1'),
  end('c1', 'k1'),
  start('c2', 'k2'),
  end('c2', 'k2'),
  step(2, [{ type: 'text', text: 'done' }]),
  { type: 'run-complete', text: 'done', finishReason: 'stop', steps: 3 },
]);

describe('editableResults', () => {
  it('lists the calls of the last step a fork keeps, with their recorded outputs, in the step’s order', () => {
    expect(editableResults(PARENT, 3)).toEqual([
      { toolCallId: 'c1', toolName: 'refund', output: { ok: true } },
      { toolCallId: 'c2', toolName: 'refund', output: { ok: true } },
    ]);
    // Step 2's model step made no call; step 1 keeps nothing.
    expect(editableResults(PARENT, 2)).toEqual([]);
    expect(editableResults(PARENT, 1)).toEqual([]);
  });

  it('is what planFork accepts: each listed call can be edited, a call of another step cannot', () => {
    for (const { toolCallId } of editableResults(PARENT, 3)) {
      const plan = planFork({ runId: 'p', atStep: 3, by: 'ops', reason: 'r', edit: { toolResult: { toolCallId, output: { ok: false } } } }, PARENT);
      expect(plan.history.find((e) => e.type === 'tool-call-end' && e.toolCallId === toolCallId)).toMatchObject({ output: { ok: false }, source: 'provided' });
    }
    expect(() => planFork({ runId: 'p', atStep: 2, by: 'ops', reason: 'r', edit: { toolResult: { toolCallId: 'c1', output: {} } } }, PARENT)).toThrow(
      /invalid-edit|not a tool call/,
    );
  });
});

describe('planFork', () => {
  it('copies what a replay needs before the fork point, not the parent’s endings or operator acts', () => {
    const plan = planFork({ runId: 'p', atStep: 2, by: 'ops', reason: 'again' }, PARENT);
    expect(plan.history.map((e) => e.type)).toEqual(['model-step', 'run-resume']);
    expect(plan.input.forkOf).toMatchObject({ runId: 'p', atStep: 2, rootRunId: 'p', copiedEvents: 2 });
    expect(plan.repeatable.map((r) => [r.idempotencyKey, r.step, r.outcome])).toEqual([
      ['k1', 2, 'done'],
      ['k2', 2, 'done'],
    ]);
  });

  it('a fork of a fork inherits its parent’s inherited keys and keeps the root', () => {
    const child = planFork({ runId: 'p', atStep: 2, by: 'ops', reason: 'again' }, PARENT);
    const childJournal = journal([
      { type: 'run-start', input: child.input },
      ...child.history,
      { type: 'model-step', step: 1, provider: 'p', modelId: 'm', latencyMs: 1, result: { content: [] } },
    ]);
    const grandchild = planFork({ runId: 'c', atStep: 2, by: 'ops', reason: 'again' }, childJournal);
    expect(grandchild.input.forkOf?.rootRunId).toBe('p');
    expect(grandchild.input.forkOf?.inheritedKeys.map((k) => k.idempotencyKey)).toEqual(['k1', 'k2']);
    expect(grandchild.repeatable.map((r) => r.outcome)).toEqual(['inherited', 'inherited']);
  });
});

describe('forkCallKey', () => {
  const forked = (content: unknown[]) => {
    const plan = planFork({ runId: 'p', atStep: 2, by: 'ops', reason: 'again' }, PARENT);
    return new RunState(journal([{ type: 'run-start', input: plan.input }, ...plan.history, step(1, content)]));
  };
  const key = (state: RunState, toolCallId: string, args: unknown = refund, idempotency: 'call' | 'args' = 'call') =>
    forkCallKey({ state, toolCallId, toolName: 'refund', input: args, options: { sideEffect: true, idempotency }, scheme: 1 });

  it('gives the n-th repeat of the same tool and arguments the n-th key, and a third one none (a new key is made from the fork’s id)', () => {
    const state = forked([call('x'), call('y'), call('z')]);
    expect([key(state, 'x'), key(state, 'y'), key(state, 'z')]).toEqual(['k1', 'k2', undefined]);
  });

  it('takes no inherited key of work the job knows was not performed: the n-th repeat takes the n-th key of work that may have acted', () => {
    const state = forked([call('x'), call('y')]);
    const keys = (notPerformed: string[]) =>
      ['x', 'y'].map((id) =>
        forkCallKey({
          state,
          toolCallId: id,
          toolName: 'refund',
          input: refund,
          options: { sideEffect: true },
          scheme: 1,
          notPerformed: new Set(notPerformed),
        }),
      );
    expect(keys(['k1'])).toEqual(['k2', undefined]);
    expect(keys(['k1', 'k2'])).toEqual([undefined, undefined]);
  });

  it('gives other arguments no inherited key, and makes args keys from the root run', () => {
    const other = { orderId: 'o_18', amount: 40 };
    const state = forked([call('x', other)]);
    expect(key(state, 'x', other)).toBeUndefined();
    expect(key(state, 'x', other, 'args')).toBe(idempotencyKey({ kind: 'args', runId: 'p', toolName: 'refund', input: other }, 1));
  });

  it('a fork of a copy imported under another id makes its args keys from the exported run, as the copy itself does', () => {
    const imported = { type: 'run-imported', from: { runId: 'orig', exportedAt: at.toISOString(), redacted: false }, by: 'ops' };
    const copy = journal([...PARENT.slice(0, 1), imported, ...PARENT.slice(1)]);
    const plan = planFork({ runId: 'copy', atStep: 2, by: 'ops', reason: 'again' }, copy);
    expect(plan.input.forkOf?.rootRunId).toBe('orig');
    const other = { orderId: 'o_18', amount: 40 };
    const state = new RunState(journal([{ type: 'run-start', input: plan.input }, ...plan.history, step(1, [call('x', other)])]));
    expect(key(state, 'x', other, 'args')).toBe(idempotencyKey({ kind: 'args', runId: 'orig', toolName: 'refund', input: other }, 1));
    // A copy of that copy (its export holds the first run-imported): still the origin's job.
    const again = { ...imported, from: { ...imported.from, runId: 'copy' } };
    const copyOfCopy = journal([...PARENT.slice(0, 1), imported, again, ...PARENT.slice(1)]);
    expect(planFork({ runId: 'copy2', atStep: 2, by: 'ops', reason: 'again' }, copyOfCopy).input.forkOf?.rootRunId).toBe('orig');
  });

  it('keeps the fork’s inherited keys past a run-migrate, copied from its parent or its own (a migration’s input carries no forkOf)', () => {
    const migrate = {
      type: 'run-migrate',
      input: { ...input, system: 'v2' },
      fromVersion: 'a',
      toVersion: 'b',
      changed: ['system'],
      by: 'ops',
      reason: 'deploy',
    };
    const plan = planFork({ runId: 'p', atStep: 2, by: 'ops', reason: 'again' }, journal([...PARENT.slice(0, 2), migrate, ...PARENT.slice(2)]));
    expect(plan.history.map((e) => e.type)).toContain('run-migrate');
    const copied = new RunState(journal([{ type: 'run-start', input: plan.input }, ...plan.history, step(1, [call('x'), call('y')])]));
    expect(copied.input).toMatchObject({ system: 'v2', forkOf: { runId: 'p' } });
    expect([key(copied, 'x'), key(copied, 'y')]).toEqual(['k1', 'k2']);
    const own = new RunState(journal([{ type: 'run-start', input: plan.input }, ...plan.history, migrate, step(1, [call('x')])]));
    expect(key(own, 'x')).toBe('k1');
  });

  it('starts the fork on the input the parent had at the fork point, not on a version it migrated to later', () => {
    const migrate = {
      type: 'run-migrate',
      input: { ...input, system: 'v2' },
      fromVersion: 'a',
      toVersion: 'b',
      changed: ['system'],
      by: 'ops',
      reason: 'deploy',
    };
    const later = planFork({ runId: 'p', atStep: 2, by: 'ops', reason: 'again' }, journal([...PARENT.slice(0, 6), migrate, ...PARENT.slice(6)]));
    expect(later.input.system).toBeUndefined();
    expect(later.history.map((e) => e.type)).not.toContain('run-migrate');
    const earlier = planFork({ runId: 'p', atStep: 2, by: 'ops', reason: 'again' }, journal([...PARENT.slice(0, 2), migrate, ...PARENT.slice(2)]));
    expect(earlier.input.system).toBe('v2');
  });

  it('is nothing for a run that is not a fork', () => {
    expect(key(new RunState(PARENT), 'c1')).toBeUndefined();
  });
});

describe('a workflow run’s fork', () => {
  const flow = { ...input, workflow: { name: 'refund-flow', version: 'b', input: { orderId: 'o_17' } } };
  const wfStart = (id: string, key: string, args: unknown = refund) => ({ ...start(id, key), input: args, toolName: id === 'wf-0' ? 'look-up' : 'refund' });
  const wfEnd = (id: string, key: string, output: unknown = { ok: true }) => ({ ...end(id, key), output, toolName: id === 'wf-0' ? 'look-up' : 'refund' });
  /** wf-0 a look-up, wf-1 a sleep begun beside wf-2 (a refund) and ended after it, wf-3 a refund again. */
  const PARALLEL = journal([
    { type: 'run-start', input: flow },
    { ...wfStart('wf-0', 'k0', { orderId: 'o_17' }), sideEffect: false },
    wfEnd('wf-0', 'k0', 40),
    { type: 'workflow-wait', waitId: 'wf-1', name: 'cool-off', wait: { kind: 'sleep', until: '2026-12-01T10:00:01Z' } },
    wfStart('wf-2', 'k2'),
    wfEnd('wf-2', 'k2'),
    { type: 'workflow-wait-end', waitId: 'wf-1', outcome: 'elapsed' },
    wfStart('wf-3', 'k3'),
    wfEnd('wf-3', 'k3'),
    { type: 'run-complete', text: '', finishReason: 'stop', steps: 0, output: { done: true } },
  ]);
  const request = { runId: 'flow:1', by: 'ops@acme', reason: 'again' };

  it('keeps the steps before the fork point, not a later step begun beside them; hands the repeatable side effects on with their place', () => {
    const plan = planFork({ ...request, atStep: 2 }, PARALLEL);
    expect(plan.history.map((event) => event.type)).toEqual(['tool-call-start', 'tool-call-end']);
    expect(plan.input.workflow).toEqual(flow.workflow);
    expect(plan.input.forkOf?.inheritedKeys).toEqual([
      { toolName: 'refund', input: refund, idempotencyKey: 'k2', toolCallId: 'wf-2' },
      { toolName: 'refund', input: refund, idempotencyKey: 'k3', toolCallId: 'wf-3' },
    ]);
  });

  it('refuses a fork point where a kept step had not finished (a branch beside it), naming the step to fork at instead', () => {
    expect(() => planFork({ ...request, atStep: 3 }, PARALLEL)).toThrow(/step 2 had not finished when step 3 began .* fork at step 2 or earlier/);
  });

  it('a fork’s step takes the parent’s key only at the same place with the same arguments; elsewhere it is new work', () => {
    const plan = planFork({ ...request, atStep: 2, edit: { version: 'a' } }, PARALLEL);
    expect(plan.input.workflow?.version).toBe('a');
    const state = new RunState(journal([{ type: 'run-start', input: plan.input }, ...plan.history]));
    const scheme = state.keyScheme('flow:fork');
    const key = (toolCallId: string, args: unknown) =>
      forkCallKey({ state, toolCallId, toolName: 'refund', input: args, options: { sideEffect: true }, scheme });
    expect(key('wf-2', refund)).toBe('k2');
    expect(key('wf-3', refund)).toBe('k3');
    // The same refund as another primitive (the code's order changed), or another amount at the same place: a new key (undefined: the run's own).
    expect(key('wf-4', refund)).toBeUndefined();
    expect(key('wf-2', { ...refund, amount: 25 })).toBeUndefined();
  });
});
