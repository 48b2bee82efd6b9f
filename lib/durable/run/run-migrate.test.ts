/**
 * run-migrate in the core, on both journals: a changed start input is refused unless the call's
 * acceptChange says who and why; then the migration is journaled before the resume, the recorded steps
 * replay as recorded (no mismatch, even with strictReplay), the approved side effect runs once, the next
 * model step is asked with the new system prompt, and the run is compared with its new input from then on.
 */
import { expect, it } from 'vitest';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { refundAgent } from '@/tests/support/refund-agent';
import { RunDivergedError, RunState, runDurable } from '../index';

describeEachJournal('run-migrate', (target) => {
  const { journal } = target.open();
  const call = (agent: ReturnType<typeof refundAgent>, runId: string, extra: object = {}) =>
    runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', ...extra });
  const accept = () => ({ by: 'ops@acme', reason: 'new wording' });

  it('a waiting run asked with another system prompt diverges unless acceptChange migrates it; migrated, the refund runs once and the next step sees the new prompt', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    expect((await call(agent, runId, { system: 'Be kind.', agentVersion: 'aaaaaaaaaaaaaaaa' })).status).toBe('waiting-approval');
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    const count = (await journal.events(runId)).length;

    const refused = await call(agent, runId, { system: 'Be brief.' }).catch((e: unknown) => e);
    expect(RunDivergedError.isInstance(refused) && refused.differences.map((d) => d.field)).toEqual(['system']);
    expect((await journal.events(runId)).length).toBe(count);
    expect(agent.ledger.total).toBe(0);

    const seen: string[][] = [];
    const acceptChange = (change: { differences: { field: string }[] }) => {
      seen.push(change.differences.map((d) => d.field));
      return accept();
    };
    const result = await call(agent, runId, { system: 'Be brief.', agentVersion: 'bbbbbbbbbbbbbbbb', acceptChange, strictReplay: true });
    expect(result.status).toBe('completed');
    expect(seen).toEqual([['system']]);
    expect(agent.ledger.total).toBe(1);
    const events = await journal.events(runId);
    const types = events.map((e) => e.type);
    expect(types.slice(types.indexOf('run-migrate'))).toEqual(['run-migrate', 'run-resume', 'tool-call-start', 'tool-call-end', 'model-step', 'run-complete']);
    expect(events.find((e) => e.type === 'run-migrate')).toMatchObject({
      by: 'ops@acme',
      reason: 'new wording',
      changed: ['system'],
      fromVersion: 'aaaaaaaaaaaaaaaa',
      toVersion: 'bbbbbbbbbbbbbbbb',
      input: { system: 'Be brief.' },
    });
    const state = new RunState(events);
    expect(state).toMatchObject({ agentVersion: 'bbbbbbbbbbbbbbbb', stepsBeforeMigration: 1, input: { system: 'Be brief.' } });
    expect(state.migrations).toMatchObject([{ by: 'ops@acme', changed: ['system'], stepsBefore: 1 }]);
    // The model was asked twice in all: step 0 under the old prompt, step 1 (after the migration) under the new one.
    expect(agent.scripted.prompts.map((prompt) => (prompt[0] as { content: string }).content)).toEqual(['Be kind.', 'Be brief.']);

    // From now on the run is the migrated one: the new prompt replays; the old one is the divergence.
    await call(agent, runId, { system: 'Be brief.', strictReplay: true });
    expect(agent.ledger.total).toBe(1);
    await expect(call(agent, runId, { system: 'Be kind.' })).rejects.toThrow(RunDivergedError);
  });

  it('a completed run is never migrated: acceptChange is not asked, the changed input is the divergence it always was', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true });
    expect((await call(agent, runId, { system: 'Be kind.' })).status).toBe('completed');
    const count = (await journal.events(runId)).length;
    let asked = 0;
    const acceptChange = () => {
      asked++;
      return accept();
    };
    await expect(call(agent, runId, { system: 'Be brief.', acceptChange })).rejects.toThrow(RunDivergedError);
    expect(asked).toBe(0);
    expect((await journal.events(runId)).filter((e) => e.type === 'run-migrate')).toEqual([]);
    expect((await journal.events(runId)).length).toBe(count);
  });
});
