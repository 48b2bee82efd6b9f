/**
 * The door consults the job's other runs at the moment of a call (related-effects.ts): a fork taken
 * while its parent still executes, and a restart of a run that refunded, repeat the refund under the
 * key the work already has and answer from its record; an unknown outcome there stops the run here.
 * Judged by the outside counter (the Ledger), on both journals.
 */
import { tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger, REFUND_INPUT } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, type Journal, type RecordedEvent, runDurable, SideEffectElsewhereError, SideEffectRetryBlockedError, ToolCallFailedError } from '../index';

const PROMPT = 'Refund o_17';

/** A ticket tool that waits at a gate the test opens, and a counted refund. */
function world() {
  const ledger = new Ledger();
  let entered!: () => void;
  const inTicket = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let refundOutcome: 'ok' | 'crash' = 'ok';
  const tools = {
    ticket: gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string() }),
        execute: async () => {
          entered();
          await gate;
          return { ticketId: 't_1' };
        },
      }),
      { sideEffect: true },
    ),
    refund: gnlTool(
      tool({
        inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
        execute: async (input, { idempotencyKey }) => {
          const receipt = ledger.refund(idempotencyKey as string, input);
          if (refundOutcome === 'crash') throw new Error('connection reset after the refund was sent');
          return receipt;
        },
      }),
      { sideEffect: true, maxRetries: 0 },
    ),
  };
  return { ledger, tools, inTicket, open, crashRefunds: () => (refundOutcome = 'crash') };
}

const parentScript = (step: number): ScriptedStep =>
  step === 0
    ? { toolCalls: [{ toolCallId: 'p-ticket', toolName: 'ticket', input: { orderId: 'o_17' } }] }
    : step === 1
      ? { toolCalls: [{ toolCallId: 'p-refund', toolName: 'refund', input: REFUND_INPUT }] }
      : { text: 'Refunded.' };

/** The fork, asked again at its first step, goes straight to the same refund (a provider's call ids differ). */
const forkScript = (step: number): ScriptedStep =>
  step === 0 ? { toolCalls: [{ toolCallId: 'f-refund', toolName: 'refund', input: REFUND_INPUT }] } : { text: 'Refunded (fork).' };

const startsOf = (events: RecordedEvent[], toolName: string) => events.filter((e) => e.type === 'tool-call-start' && e.toolName === toolName);
const endsOf = (events: RecordedEvent[], toolName: string) => events.flatMap((e) => (e.type === 'tool-call-end' && e.toolName === toolName ? [e] : []));

describeEachJournal('related runs of one job', (target) => {
  const { journal } = target.open();

  it('a fork taken while its parent executes repeats the refund the parent makes after it under the parent’s key, answered from the parent’s record: one refund', async () => {
    const { ledger, tools, inTicket, open } = world();
    const parentId = uniqueRunId('parent');
    const parent = runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools });
    await inTicket; // the parent is mid-step: its step 0 and the ticket's start are journaled, the refund is not yet asked for
    const forkId = uniqueRunId('fork');
    await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    open();
    expect((await parent).status).toBe('completed');
    expect(ledger.total).toBe(1);
    const [parentRefund] = startsOf(await journal.events(parentId), 'refund');

    const fork = await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools });
    expect(fork.status).toBe('completed');
    // The outside service's own count: the fork's refund did not execute again.
    expect(ledger.total).toBe(1);
    const forkEvents = await journal.events(forkId);
    expect(startsOf(forkEvents, 'refund')).toEqual([]);
    expect(endsOf(forkEvents, 'refund')).toMatchObject([
      { toolCallId: 'f-refund', idempotencyKey: (parentRefund as { idempotencyKey: string }).idempotencyKey, source: 'deduplicated', inheritedFrom: parentId },
    ]);
    // A replay of the fork answers from its own record now.
    const again = await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools });
    expect(again.status).toBe('completed');
    expect(ledger.total).toBe(1);
  });

  it('a parent that goes on after its fork refunded meets the fork’s refund (made while the parent executed) and answers from it: one refund', async () => {
    const { ledger, tools, inTicket, open } = world();
    const parentId = uniqueRunId('parent');
    const parent = runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools });
    await inTicket;
    const forkId = uniqueRunId('fork');
    await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    // The fork runs to its end first (the parent still waits inside its ticket): its refund executes.
    const fork = await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools });
    expect(fork.status).toBe('completed');
    expect(ledger.total).toBe(1);
    const [forkRefund] = startsOf(await journal.events(forkId), 'refund');
    open();
    expect((await parent).status).toBe('completed');
    expect(ledger.total).toBe(1);
    expect(endsOf(await journal.events(parentId), 'refund')).toMatchObject([
      { toolCallId: 'p-refund', idempotencyKey: (forkRefund as { idempotencyKey: string }).idempotencyKey, source: 'deduplicated', inheritedFrom: forkId },
    ]);
  });

  it('a restart of a run that refunded answers the repeated refund from the old run’s record; with a new attempt asked for, it executes under a new key', async () => {
    const { ledger, tools, open } = world();
    open();
    const oldId = uniqueRunId('old');
    expect((await runDurable({ journal, runId: oldId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    expect(ledger.total).toBe(1);

    const restartedId = uniqueRunId('restarted');
    await createRestart(journal, restartedId, { runId: oldId, by: 'ops@example.com' });
    const restarted = await runDurable({ journal, runId: restartedId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools });
    expect(restarted.status).toBe('completed');
    expect(ledger.total).toBe(1);
    expect(endsOf(await journal.events(restartedId), 'refund')).toMatchObject([{ source: 'deduplicated', inheritedFrom: oldId }]);

    const freshId = uniqueRunId('fresh');
    await createRestart(journal, freshId, { runId: oldId, by: 'ops@example.com', newAttempt: true });
    expect((await runDurable({ journal, runId: freshId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    expect(ledger.total).toBe(2);
    expect(ledger.executions.size).toBe(2);
  });

  it('a restart meeting a refund of unknown outcome in the old run stops with SideEffectElsewhereError and executes nothing; once decided there, it answers from that decision', async () => {
    const { ledger, tools, open, crashRefunds } = world();
    open();
    crashRefunds();
    const oldId = uniqueRunId('old');
    const old = await runDurable({ journal, runId: oldId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools }).catch((error) => error);
    expect(SideEffectRetryBlockedError.isInstance(old)).toBe(true);
    expect(ledger.total).toBe(1);

    const restartedId = uniqueRunId('restarted');
    await createRestart(journal, restartedId, { runId: oldId, by: 'ops@example.com' });
    const first = await runDurable({ journal, runId: restartedId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools }).catch((error) => error);
    expect(ToolCallFailedError.isInstance(first) && SideEffectElsewhereError.isInstance(first.cause)).toBe(true);
    expect((first as Error).message).toContain(oldId);
    expect(await journal.getRun(restartedId)).toMatchObject({ status: 'failed' });
    expect(ledger.total).toBe(1);

    const [oldStart] = startsOf(await journal.events(oldId), 'refund');
    const key = (oldStart as { idempotencyKey: string }).idempotencyKey;
    await journal.resolveSideEffect({
      runId: oldId,
      toolCallId: 'p-refund',
      outcome: 'done',
      output: { refundId: 'r_o_17', amount: 40 },
      by: 'ops@example.com',
    });
    const second = await runDurable({ journal, runId: restartedId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools });
    expect(second.status).toBe('completed');
    expect(ledger.total).toBe(1);
    expect(endsOf(await journal.events(restartedId), 'refund')).toMatchObject([{ idempotencyKey: key, inheritedFrom: oldId, output: { refundId: 'r_o_17' } }]);
  });
});

/** What restartRun writes: the old run's input as a new run, linked by `restartOf`. */
async function createRestart(journal: Journal, runId: string, restartOf: { runId: string; by: string; newAttempt?: boolean }) {
  const old = await journal.getRun(restartOf.runId);
  const hold = await journal.hold(runId);
  try {
    await hold.create({ ...(old?.input as NonNullable<typeof old>['input']), restartOf });
  } finally {
    await hold.release();
  }
}
