/**
 * A run's idempotency keys are made by the scheme its start recorded, whatever the default of the code
 * that resumes it: a key is also how the run finds its own recorded work, so keys that changed scheme
 * mid-run would hide its starts and execute them again. Both journals.
 */
import { expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { idempotencyKey, JournalDataError, type KeyScheme, runDurable } from '../index';

describeEachJournal('key schemes', (target) => {
  const { journal } = target.open();
  const call = (agent: ReturnType<typeof refundAgent>, runId: string, keyScheme?: KeyScheme) =>
    runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', ...(keyScheme ? { keyScheme } : {}) });
  const startInput = async (runId: string) => (await journal.events(runId)).find((e) => e.type === 'run-start');

  it('a run started under scheme 1 resumes under code whose default is scheme 2 or 3 with scheme-1 keys, and the reverse', async () => {
    for (const [startedWith, resumedWith] of [
      [1, 2],
      [2, 1],
      [1, 3],
      [3, 1],
    ] as const) {
      const runId = uniqueRunId(`scheme-${startedWith}`);
      const agent = refundAgent({ sideEffect: true, needsApproval: true });
      expect((await call(agent, runId, startedWith)).status).toBe('waiting-approval');
      await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
      // The code that resumes it now starts new runs under the other scheme.
      expect((await call(agent, runId, resumedWith)).status).toBe('completed');
      const expected = idempotencyKey({ kind: 'call', runId, toolCallId: 'call-refund', toolName: 'refund' }, startedWith);
      expect(agent.keys).toEqual([expected]);
      expect(expected.startsWith(`gnl${startedWith}c_`)).toBe(true);
      const start = await startInput(runId);
      expect(start?.type === 'run-start' ? start.input.keyScheme : 'none').toBe(startedWith === 1 ? undefined : startedWith);
      // Replayed under either default, nothing runs again.
      expect((await call(agent, runId, resumedWith)).status).toBe('completed');
      expect((await call(agent, runId)).status).toBe('completed');
      expect(agent.ledger.total).toBe(1);
    }
  });

  it('a start input recording a scheme this code does not know is refused before anything executes, naming the run', async () => {
    const runId = uniqueRunId('scheme-future');
    const hold = await journal.hold(runId);
    await hold.create({ prompt: 'Refund o_17', modelId: 'scripted-v1', provider: 'scripted', toolNames: ['refund'], keyScheme: 7 });
    await hold.release();
    const agent = refundAgent({ sideEffect: true });
    const refused = await call(agent, runId).catch((error: unknown) => error);
    expect(JournalDataError.isInstance(refused)).toBe(true);
    expect((refused as Error).message).toContain(`Run "${runId}" records key scheme 7`);
    expect(agent.ledger.total).toBe(0);
  });

  it('keyScheme must be a scheme GNL knows', async () => {
    const agent = refundAgent({ sideEffect: true });
    const refused = await call(agent, uniqueRunId('scheme-bad'), 4 as KeyScheme).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'JournalDataError', message: 'keyScheme must be one of 1, 2, 3, got 4.' });
    expect(agent.scripted.calls()).toBe(0);
  });
});
