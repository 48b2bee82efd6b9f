/**
 * Decisions that land while an invocation begins or executes (issue 11, defect 6). A REAL journal is
 * wrapped so that a decision commits exactly between the resume's load and its first append; the
 * ledger outside the agent counts what really executed.
 */
import { tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger, leaveRefundInFlight, REFUND_INPUT, refundAgent } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { DecisionConflictError, gnlTool, idempotencyKey, type Journal, type RunHold, RunMovedError, runDurable, SideEffectRetryBlockedError } from '../index';

/** The real journal; the first `hold.load()` after `arm(action)` runs `action` once the load returned. */
function raceJournal(journal: Journal) {
  let pending: (() => Promise<unknown>) | undefined;
  const wrapHold = (hold: RunHold): RunHold => ({
    get runId() {
      return hold.runId;
    },
    load: async () => {
      const events = await hold.load();
      const action = pending;
      pending = undefined;
      if (action) await action();
      return events;
    },
    create: (input) => hold.create(input),
    append: (events) => hold.append(events),
    appendAfter: (lastSeq, events) => hold.appendAfter(lastSeq, events),
    appendStream: (batch) => hold.appendStream(batch),
    release: () => hold.release(),
    get canceled() {
      return hold.canceled;
    },
  });
  const raced: Journal = { ...bound(journal), hold: async (runId) => wrapHold(await journal.hold(runId)) };
  return {
    journal: raced,
    arm(action: () => Promise<unknown>) {
      pending = action;
    },
  };
}

function bound(journal: Journal): Journal {
  return {
    runIdOf: (runId) => journal.runIdOf(runId),
    hold: (runId) => journal.hold(runId),
    approve: (request) => journal.approve(request),
    reject: (request) => journal.reject(request),
    resolveSideEffect: (request) => journal.resolveSideEffect(request),
    provideToolResult: (request) => journal.provideToolResult(request),
    cancel: (request) => journal.cancel(request),
    requestResume: (request) => journal.requestResume(request),
    fork: (request) => journal.fork(request),
    recordRestart: (request) => journal.recordRestart(request),
    sendEvent: (request) => journal.sendEvent(request),
    importRun: (request) => journal.importRun(request),
    getRun: (runId) => journal.getRun(runId),
    listRuns: (options) => journal.listRuns(options),
    events: (runId, options) => journal.events(runId, options),
  };
}

/** Two refunds in one step, both needing approval; then a reply. */
function twoRefunds(step: number): ScriptedStep {
  if (step === 0) {
    return {
      toolCalls: [
        { toolCallId: 'call-a', toolName: 'refund', input: { orderId: 'o_1', amount: 10 } },
        { toolCallId: 'call-b', toolName: 'refund', input: { orderId: 'o_2', amount: 20 } },
      ],
    };
  }
  return { text: 'Done.' };
}

describeEachJournal('decisions landing while a run begins or executes', (target) => {
  const { journal: real } = target.open();
  const keyOf = (runId: string, toolCallId: string) => idempotencyKey({ kind: 'call', runId, toolCallId, toolName: 'refund' });

  async function waitingForTwo() {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true }, twoRefunds);
    const race = raceJournal(real);
    const call = () => runDurable({ runId, journal: race.journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund both' });
    expect((await call()).status).toBe('waiting-approval');
    await real.approve({ runId, toolCallId: 'call-a', by: 'alice@acme' });
    return { runId, agent, race, call };
  }

  it('appendAfter writes only while the event it names is the last: after a resume request from anywhere it refuses with RunMovedError and writes nothing', async () => {
    const runId = uniqueRunId();
    const hold = await real.hold(runId);
    try {
      const start = await hold.create({ prompt: 'p', modelId: 'm', provider: 'x', toolNames: [] });
      const [suspend] = await hold.appendAfter(start.seq, [{ type: 'run-suspend', status: 'waiting-approval', pending: [] }]);
      expect(suspend?.seq).toBe(2);
      await real.requestResume({ runId, by: 'ops@acme' });
      const refused = await hold.appendAfter(2, [{ type: 'run-resume', fromStatus: 'waiting-approval' }]).catch((e: unknown) => e);
      expect(RunMovedError.isInstance(refused)).toBe(true);
      expect(refused).toMatchObject({ runId, expectedLastSeq: 2, lastSeq: 3 });
      expect((await real.events(runId)).map((e) => e.type)).toEqual(['run-start', 'run-suspend', 'run-resume-request']);
      expect((await real.getRun(runId))?.status).toBe('waiting-approval');
    } finally {
      await hold.release();
    }
  });

  it('a reject that commits between the resume loading the run and its first append is seen: the rejected call never executes', async () => {
    const { runId, agent, race, call } = await waitingForTwo();
    race.arm(() => real.reject({ runId, toolCallId: 'call-b', by: 'bob@acme', reason: 'fraud' }));
    expect((await call()).status).toBe('completed');
    // A later, conflicting approval is refused: the reject stands.
    await expect(real.approve({ runId, toolCallId: 'call-b', by: 'mallory@acme' })).rejects.toMatchObject({
      name: 'DecisionConflictError',
      reason: 'already-decided',
      decidedBy: 'bob@acme',
    });
    await call();
    expect(agent.ledger.executions.get(keyOf(runId, 'call-a'))).toBe(1);
    expect(agent.ledger.executions.get(keyOf(runId, 'call-b'))).toBeUndefined();
    expect((await real.events(runId)).filter((e) => e.type === 'tool-approval-response')).toHaveLength(2);
  });

  it('an approve that commits between the resume loading the run and its first append is seen: the call executes once and is not asked again', async () => {
    const { runId, agent, race, call } = await waitingForTwo();
    race.arm(() => real.approve({ runId, toolCallId: 'call-b', by: 'bob@acme' }));
    expect((await call()).status).toBe('completed');
    await expect(real.reject({ runId, toolCallId: 'call-b', by: 'mallory@acme' })).rejects.toMatchObject({ reason: 'already-decided', decidedBy: 'bob@acme' });
    await call();
    expect(agent.ledger.executions.get(keyOf(runId, 'call-a'))).toBe(1);
    expect(agent.ledger.executions.get(keyOf(runId, 'call-b'))).toBe(1);
    expect((await real.events(runId)).filter((e) => e.type === 'tool-approval-request')).toHaveLength(2);
  });

  it('a resolve (done) that commits between the resume loading a blocked run and its first append is seen: the side effect never runs again', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true });
    const race = raceJournal(real);
    const call = () => runDurable({ runId, journal: race.journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    await leaveRefundInFlight(real, runId);
    await expect(call()).rejects.toSatisfy(SideEffectRetryBlockedError.isInstance);
    race.arm(() => real.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'done', output: { refundId: 'r_o_17', amount: 40 }, by: 'carol@acme' }));
    expect((await call()).status).toBe('completed');
    await expect(real.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'not-done', by: 'mallory@acme' })).rejects.toMatchObject({
      reason: 'already-decided',
      decidedBy: 'carol@acme',
    });
    await call();
    expect(agent.ledger.total).toBe(0);
  });

  it('a tool result provided right after a resume loaded the run (nothing provided yet, so it appends nothing) is kept for the next resume: the model gets it, nobody is asked again', async () => {
    const runId = uniqueRunId();
    const askUser = tool({ inputSchema: z.object({ question: z.string() }) });
    const model = scriptedModel((step) =>
      step === 0 ? { toolCalls: [{ toolCallId: 'q1', toolName: 'askUser', input: { question: 'Which order?' } }] } : { text: 'Thanks.' },
    );
    const race = raceJournal(real);
    const call = () => runDurable({ runId, journal: race.journal, model: model.model, tools: { askUser }, prompt: 'Which order?' });
    expect((await call()).status).toBe('waiting-tool-result');
    // A resume with nothing provided yet: the answer lands right after it loaded the run.
    race.arm(() => real.provideToolResult({ runId, toolCallId: 'q1', output: { answer: 'o_17' }, by: 'ada@acme' }));
    // It answers as of its load (waiting, without appending), like a resume of undecided approvals.
    expect((await call()).status).toBe('waiting-tool-result');
    expect((await call()).status).toBe('completed');
    expect(JSON.stringify(model.prompts.at(-1))).toContain('o_17');
    expect((await real.events(runId)).filter((e) => e.type === 'run-suspend')).toHaveLength(1);
  });

  it('a cancel that commits between the resume loading the run and its first append: the resume answers canceled and executes nothing', async () => {
    const { runId, agent, race, call } = await waitingForTwo();
    race.arm(() => real.cancel({ runId, by: 'ops@acme', reason: 'stop' }));
    expect(await call()).toMatchObject({ status: 'canceled', by: 'ops@acme', reason: 'stop' });
    expect(agent.ledger.total).toBe(0);
    expect((await real.events(runId)).map((e) => e.type)).not.toContain('run-resume');
  });

  it('a resume request that commits in the same window is replayed past: the resume goes on', async () => {
    const { runId, agent, race, call } = await waitingForTwo();
    race.arm(async () => {
      await real.reject({ runId, toolCallId: 'call-b', by: 'bob@acme' });
      await real.requestResume({ runId, by: 'bob@acme', reason: 'after rejecting call-b' });
    });
    expect((await call()).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    const types = (await real.events(runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'run-resume')).toHaveLength(1);
  });

  it('a decision while the run executes is refused as run-executing, naming since when; the run asks again and a decision then counts', async () => {
    const runId = uniqueRunId();
    const ledger = new Ledger();
    const refusals: unknown[] = [];
    const tools = {
      refund: gnlTool(
        tool({
          inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
          execute: async (input, { idempotencyKey: key, toolCallId }) => {
            if (toolCallId === 'call-a') refusals.push(await real.reject({ runId, toolCallId: 'call-b', by: 'bob@acme' }).catch((e: unknown) => e));
            return ledger.refund(key as string, input);
          },
        }),
        { sideEffect: true, needsApproval: ({ orderId }) => orderId === 'o_2' },
      ),
    };
    const model = scriptedModel((step) =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'call-a', toolName: 'refund', input: REFUND_INPUT }] }
        : step === 1
          ? { toolCalls: [{ toolCallId: 'call-b', toolName: 'refund', input: { orderId: 'o_2', amount: 20 } }] }
          : { text: 'Done.' },
    );
    const call = () => runDurable({ runId, journal: real, model: model.model, tools, prompt: 'Refund' });
    expect((await call()).status).toBe('waiting-approval');
    const [refusal] = refusals;
    expect(DecisionConflictError.isInstance(refusal)).toBe(true);
    expect(refusal).toMatchObject({ reason: 'run-executing', runId, toolCallId: 'call-b', executingSince: expect.any(Date) });
    expect((refusal as Error).message).toMatch(/is running \(its invocation began .+\).*; decide when it waits again/);
    expect((refusal as Error).message).not.toContain('no approval is requested');
    // Nothing of the refused decision was recorded; the decision made once the run waits is the one that counts.
    expect((await real.events(runId)).filter((e) => e.type === 'tool-approval-response')).toHaveLength(0);
    await real.reject({ runId, toolCallId: 'call-b', by: 'bob@acme' });
    expect((await call()).status).toBe('completed');
    expect(ledger.executions.get(keyOf(runId, 'call-a'))).toBe(1);
    expect(ledger.executions.get(keyOf(runId, 'call-b'))).toBeUndefined();
  });
});
