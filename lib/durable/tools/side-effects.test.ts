import { describe, expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { tool } from 'ai';
import { z } from 'zod';
import { Ledger, leaveRefundInFlight, REFUND_INPUT, refundAgent, refundScript } from '@/tests/support/refund-agent';
import { scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, idempotencyKey, InvalidRunIdError, RunBusyError, runDurable, SideEffectRetryBlockedError } from '../index';

async function blockedError(promise: Promise<unknown>): Promise<SideEffectRetryBlockedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(SideEffectRetryBlockedError.isInstance(error)).toBe(true);
  return error as SideEffectRetryBlockedError;
}

describeEachJournal('side effects of unknown outcome', (target) => {
  const { journal } = target.open();

  it('blocks instead of guessing when a side effect started and has no outcome', async () => {
    const runId = uniqueRunId();
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true });
    const error = await blockedError(runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }));

    expect(error.name).toBe('SideEffectRetryBlockedError');
    expect(error).toBeInstanceOf(SideEffectRetryBlockedError);
    const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'refund' });
    expect({ ...error }).toMatchObject({ runId, toolCallId: 'call-refund', toolName: 'refund', input: REFUND_INPUT, idempotencyKey: key });
    expect(Object.keys(error)).toEqual(expect.arrayContaining(['runId', 'toolCallId', 'toolName', 'input', 'idempotencyKey']));
    expect(agent.ledger.total).toBe(0);
    expect(agent.scripted.calls()).toBe(0);
    const run = await journal.getRun(runId);
    expect(run?.status).toBe('blocked');
    expect(run?.pending).toEqual([expect.objectContaining({ kind: 'side-effect', toolCallId: 'call-refund', idempotencyKey: key, attempt: 1 })]);

    // It stays blocked: resuming again does not run it either.
    await blockedError(runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }));
    expect(agent.ledger.total).toBe(0);
  });

  it("resolved 'done': the operator's output becomes the tool's result and execute is never called", async () => {
    const runId = uniqueRunId();
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true });
    await blockedError(runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }));
    const decision = await journal.resolveSideEffect({
      runId,
      toolCallId: 'call-refund',
      outcome: 'done',
      output: { refundId: 'r_manual' },
      by: 'ops@acme',
      reason: 'seen in the PSP dashboard',
    });
    expect(decision).toMatchObject({ outcome: 'done', by: 'ops@acme', reason: 'seen in the PSP dashboard' });

    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(0);
    expect(agent.scripted.calls()).toBe(1); // only the step after the refund
    const lastPrompt = JSON.stringify(agent.scripted.prompts.at(-1));
    expect(lastPrompt).toContain('r_manual');
    expect((await journal.getRun(runId))?.status).toBe('completed');
  });

  it("resolved 'not-done': the next resume runs it again under the same key, as attempt 2", async () => {
    const runId = uniqueRunId();
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true });
    await blockedError(runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }));
    await journal.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'not-done', by: 'ops@acme' });
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'refund' });
    expect(agent.keys).toEqual([key]);
    expect(agent.ledger.executions.get(key)).toBe(1);
    const starts = (await journal.events(runId)).filter((e) => e.type === 'tool-call-start');
    expect(starts.map((e) => e.type === 'tool-call-start' && [e.attempt, e.idempotencyKey])).toEqual([
      [1, key],
      [2, key],
    ]);
  });

  it('a blocked run with resume requests in its journal stays blocked until resolved, then runs the call again once, replaying past them', async () => {
    const runId = uniqueRunId();
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true });
    const resume = () => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    await blockedError(resume());
    await journal.requestResume({ runId, by: 'ops@acme', reason: 'is the PSP back?' });
    await blockedError(resume());
    expect(agent.ledger.total).toBe(0);
    await journal.resolveSideEffect({ runId, toolCallId: 'call-refund', outcome: 'not-done', by: 'ops@acme' });
    await journal.requestResume({ runId, by: 'ops@acme' });
    expect((await resume()).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    expect(agent.scripted.calls()).toBe(1); // step 0 replayed
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types.slice(types.indexOf('side-effect-resolution'))).toEqual([
      'side-effect-resolution',
      'run-resume-request',
      'run-resume',
      'tool-call-start',
      'tool-call-end',
      'model-step',
      'run-complete',
    ]);
  });

  it('with retrySafe it runs again under the same key', async () => {
    const runId = uniqueRunId();
    await leaveRefundInFlight(journal, runId);
    const agent = refundAgent({ sideEffect: true, retrySafe: true });
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    expect(agent.keys).toEqual([idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'refund' })]);
  });

  it('with check: done records the outside answer, not-done runs again, unknown (or a failing check) blocks', async () => {
    for (const [answer, expected] of [
      [{ done: true, output: { refundId: 'r_from_psp' } }, 'completed-from-check'],
      [{ done: false }, 'completed-executed'],
      [{ done: 'unknown', reason: 'PSP timeout' }, 'blocked'],
      ['throw', 'blocked'],
    ] as const) {
      const runId = uniqueRunId();
      await leaveRefundInFlight(journal, runId);
      const asked: unknown[] = [];
      const agent = refundAgent({
        sideEffect: true,
        check: async (ctx) => {
          asked.push(ctx);
          if (answer === 'throw') throw new Error('PSP down');
          return answer as never;
        },
      });
      const outcome = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }).then(
        (r) => r.status,
        (e: unknown) => (SideEffectRetryBlockedError.isInstance(e) ? 'blocked' : e),
      );
      const key = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'refund' });
      expect(asked).toEqual([{ runId, toolCallId: 'call-refund', input: REFUND_INPUT, idempotencyKey: key }]);
      if (expected === 'blocked') {
        expect(outcome).toBe('blocked');
        expect(agent.ledger.total).toBe(0);
        expect((await journal.getRun(runId))?.pending[0]).toMatchObject({ kind: 'side-effect', reason: expect.stringContaining('check') });
      } else {
        expect(outcome).toBe('completed');
        expect(agent.ledger.total).toBe(expected === 'completed-executed' ? 1 : 0);
        const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end');
        expect(end).toMatchObject({ source: expected === 'completed-executed' ? 'executed' : 'check' });
      }
    }
  });

  it('with check: done with an output the journal cannot hold (a cycle) is recorded as performed, never as failed; nothing runs', async () => {
    const runId = uniqueRunId();
    await leaveRefundInFlight(journal, runId);
    const answer: Record<string, unknown> = { refundId: 'r_from_psp' };
    answer.self = answer;
    const agent = refundAgent({ sideEffect: true, check: async () => ({ done: true, output: answer }) });
    const result = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(result.status).toBe('completed');
    expect(agent.ledger.total).toBe(0);
    const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end');
    expect(end).toMatchObject({ source: 'check', output: { gnl: 'unencodable-output', performed: true, reason: expect.stringContaining('cycle') } });
    expect(JSON.stringify(agent.scripted.prompts.at(-1))).toContain('r_from_psp');
  });

  it("a side effect's toModelOutput never gets the marker that stands for an output the journal cannot hold: the model gets the marker as JSON", async () => {
    const ledger = new Ledger();
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        execute: async (input, { idempotencyKey }) => {
          const out: Record<string, unknown> = { ...ledger.refund(idempotencyKey as string, input), cents: 4000n };
          out.self = out;
          return out;
        },
        toModelOutput: ({ output }) => ({ type: 'text', value: `refund ${output.refundId} of ${(output.cents as bigint).toString()} cents` }),
      }),
      { sideEffect: true },
    );
    const scripted = scriptedModel(refundScript);
    const runId = uniqueRunId();
    expect((await runDurable({ runId, journal, model: scripted.model, tools: { refund }, prompt: 'Refund o_17' })).status).toBe('completed');
    expect(ledger.total).toBe(1);
    const sent = JSON.stringify(scripted.prompts.at(-1));
    expect(sent).toContain('"type":"json"');
    expect(sent).toContain('unencodable-output');
  });

  it('when several calls of one step are blocked, the error names one and getRun lists them all', async () => {
    const runId = uniqueRunId();
    const calls = [
      { toolCallId: 'call-a', input: { orderId: 'o_1', amount: 1 } },
      { toolCallId: 'call-b', input: { orderId: 'o_2', amount: 2 } },
    ];
    await leaveRefundInFlight(journal, runId, calls);
    const agent = refundAgent({ sideEffect: true });
    const error = await blockedError(runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }));
    expect(['call-a', 'call-b']).toContain(error.toolCallId);
    const pending = (await journal.getRun(runId))?.pending ?? [];
    expect(pending.map((p) => p.toolCallId).sort()).toEqual(['call-a', 'call-b']);
    expect(agent.ledger.total).toBe(0);
  });

  it('a side effect that finished is never executed again', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    expect(agent.ledger.total).toBe(1);
  });

  it('one job in seven spellings is one run: NFD is the NFC run, and invisible or space-padded spellings are refused, naming the character', async () => {
    const base = uniqueRunId('caf\u00e9');
    const agent = refundAgent({ sideEffect: true });
    const call = (runId: string) => runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' });
    const nfd = base.normalize('NFD');
    expect(nfd).not.toBe(base);
    const accepted = [base, nfd];
    const refused: [string, string][] = [
      [`${base} `, 'must not start or end with a space (U+0020)'],
      [`${base}\u200b`, 'U+200B (a zero-width character)'],
      [`\ufeff${base}`, 'U+FEFF (a zero-width no-break space (BOM)) at character 1'],
      [`${base}\u202e`, 'U+202E (a bidi control)'],
      // Of a length no other test uses: an id recorded under it before the rule would be found and continued (docs/limits.md).
      [' '.repeat(100 + Math.floor(Math.random() * 400)), 'must not be only spaces'],
    ];
    const outcomes: unknown[] = [];
    for (const runId of [...accepted, ...refused.map(([id]) => id)]) outcomes.push(await call(runId).catch((e: unknown) => e));
    // Counted outside: one refund, under the NFC run's key; one run recorded, under the NFC spelling.
    expect(agent.ledger.total).toBe(1);
    expect(outcomes.slice(0, 2)).toMatchObject([
      { status: 'completed', runId: base },
      { status: 'completed', runId: base },
    ]);
    refused.forEach(([runId, message], i) => {
      const error = outcomes[accepted.length + i];
      expect(InvalidRunIdError.isInstance(error), JSON.stringify(runId)).toBe(true);
      expect((error as Error).message).toContain(message);
    });
    expect([...agent.ledger.executions.keys()]).toEqual([idempotencyKey({ kind: 'call', runId: base, toolCallId: 'call-refund', toolName: 'refund' })]);
    expect((await journal.getRun(nfd))?.runId).toBe(base);
    expect(await journal.events(nfd)).toEqual(await journal.events(base));
    await expect(journal.getRun(`${base}\u200b`)).rejects.toThrow(InvalidRunIdError);
  });

  it('one run executes in one place at a time: a second call rejects with RunBusyError at once', async () => {
    const runId = uniqueRunId();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const agent = refundAgent({ sideEffect: true });
    const slowTools = {
      refund: {
        ...agent.tools.refund,
        execute: async (input: never, options: never) => {
          await gate;
          return agent.tools.refund.execute?.(input, options);
        },
      },
    };
    const first = runDurable({ runId, journal, model: agent.scripted.model, tools: slowTools as unknown as typeof agent.tools, prompt: 'Refund o_17' });
    while ((await journal.events(runId)).every((e) => e.type !== 'tool-call-start')) await new Promise((r) => setTimeout(r, 5));
    const second = await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' }).catch((e: unknown) => e);
    expect(RunBusyError.isInstance(second)).toBe(true);
    expect((second as Error).name).toBe('RunBusyError');
    expect((second as RunBusyError).runId).toBe(runId);
    release();
    expect((await first).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    // Released: the run can be called again.
    expect((await runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17' })).status).toBe('completed');
  });
});

describe('SideEffectRetryBlockedError', () => {
  it('is recognised across bundles by its marker, and its name is the class name', () => {
    const error = new SideEffectRetryBlockedError({ runId: 'r', toolCallId: 'c', toolName: 't', input: {}, idempotencyKey: 'k' });
    expect(error.name).toBe('SideEffectRetryBlockedError');
    expect(SideEffectRetryBlockedError.isInstance({ ...error, name: 'SideEffectRetryBlockedError', [Symbol.for('gnl.error')]: true })).toBe(true);
    expect(SideEffectRetryBlockedError.isInstance(new Error('x'))).toBe(false);
    expect(RunBusyError.isInstance(error)).toBe(false);
  });
});
