/**
 * The door consults the job's other runs at the moment of a call (related-effects.ts): a fork taken
 * while its parent still executes, and a restart of a run that refunded, repeat the refund under the
 * key the work already has and answer from its record; an unknown outcome there stops the run here.
 * Judged by the outside counter (the Ledger), on both journals.
 */
import { tool } from 'ai';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { PostgresStorage } from '@/lib/durable/storage';
import { DATABASE_URL, describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger, REFUND_INPUT } from '@/tests/support/refund-agent';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import {
  gnlTool,
  type Journal,
  type RecordedEvent,
  type RunHold,
  runDurable,
  SideEffectElsewhereError,
  SideEffectRetryBlockedError,
  ToolNotPerformedError,
} from '../index';

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
  let refundOutcome: 'ok' | 'crash' | 'refuse' = 'ok';
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
          if (refundOutcome === 'refuse') throw new ToolNotPerformedError('the payment service refused: nothing was refunded');
          const receipt = ledger.refund(idempotencyKey as string, input);
          if (refundOutcome === 'crash') throw new Error('connection reset after the refund was sent');
          return receipt;
        },
      }),
      { sideEffect: true, maxRetries: 0 },
    ),
  };
  return {
    ledger,
    tools,
    inTicket,
    open,
    crashRefunds: () => (refundOutcome = 'crash'),
    refuseRefunds: () => (refundOutcome = 'refuse'),
    healRefunds: () => (refundOutcome = 'ok'),
  };
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

  it('a fork made while its parent waits for its model (its last append before it) and refunding first: the parent’s refund, decided after, executes nothing and stops; one refund', async () => {
    const { ledger, tools } = world();
    // The parent's step 0 is a read-only lookup (its end is the parent's last append); its step 1 waits in the
    // model until the test lets it answer with the same refund the fork makes meanwhile.
    let atStepOne!: () => void;
    const inModel = new Promise<void>((resolve) => {
      atStepOne = resolve;
    });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const slow = scriptedModel((step) =>
      step === 0
        ? { toolCalls: [{ toolCallId: 'p-lookup', toolName: 'lookup', input: { orderId: 'o_17' } }] }
        : step === 1
          ? { toolCalls: [{ toolCallId: 'p-refund', toolName: 'refund', input: REFUND_INPUT }] }
          : { text: 'Refunded.' },
    );
    const generate = slow.model.doGenerate.bind(slow.model);
    slow.model.doGenerate = async (options) => {
      if (options.prompt.filter((m) => m.role === 'assistant').length === 1) {
        atStepOne();
        await answered;
      }
      return generate(options);
    };
    const lookup = tool({ inputSchema: z.object({ orderId: z.string() }), execute: async () => ({ found: true }) });
    const parentId = uniqueRunId('parent');
    const parent = runDurable({ journal, runId: parentId, model: slow.model, prompt: PROMPT, tools: { ...tools, lookup } }).catch((error) => error);
    await inModel;
    const forkId = uniqueRunId('fork');
    await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    const fork = await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools: { ...tools, lookup } });
    expect(fork.status).toBe('completed');
    expect(ledger.total).toBe(1);
    answer();
    const stopped = await parent;
    // The parent learned of the fork only when its refund's start was written: it looked then, under the
    // job's lock, found the fork's refund, and did not execute its own (its start ends in a final error).
    expect(SideEffectElsewhereError.isInstance(stopped)).toBe(true);
    expect(stopped).toMatchObject({ runId: parentId, toolCallId: 'p-refund', otherRunId: forkId, toolName: 'refund' });
    expect(ledger.total).toBe(1);
    const parentEvents = await journal.events(parentId);
    expect(endsOf(parentEvents, 'refund')).toEqual([]);
    expect(parentEvents.filter((e) => e.type === 'tool-call-error' && e.toolName === 'refund')).toMatchObject([
      { toolCallId: 'p-refund', retryable: false, error: { name: 'SideEffectElsewhereError' } },
    ]);
    // Resumed, the parent's model is told the call did not run here, and nothing is refunded again.
    const resumed = await runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools: { ...tools, lookup } });
    expect(resumed.status).toBe('completed');
    expect(ledger.total).toBe(1);
  });

  it('a fork and its parent deciding the same refund at once: the job’s lock lets one choose and journal its start before the other looks, so it executes once', async () => {
    const { ledger, tools, inTicket, open } = world();
    const parentId = uniqueRunId('parent');
    const parent = runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools }).catch((error) => error);
    await inTicket;
    const forkId = uniqueRunId('fork');
    await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    // The fork's look at its parent is slow: it reads (no refund yet), then waits, so the parent decides in between.
    let looked!: () => void;
    const inLook = new Promise<void>((resolve) => {
      looked = resolve;
    });
    let letLookGo!: () => void;
    const lookGate = new Promise<void>((resolve) => {
      letLookGo = resolve;
    });
    let parentReads = 0;
    const slowLook: Journal = Object.create(journal, {
      events: {
        value: async (runId: string, options?: Parameters<Journal['events']>[1]) => {
          const events = await journal.events(runId, options);
          // The first read names the job (job-lock.ts jobOf); the second is the look for the work it repeats.
          if (runId === parentId && ++parentReads === 2) {
            looked();
            await lookGate;
          }
          return events;
        },
      },
    });
    const fork = runDurable({ journal: slowLook, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools }).catch((error) => error);
    await inLook;
    open(); // the parent goes on to its refund while the fork is still deciding its own
    // Without the job's lock the parent refunds at once; with it, it waits for the fork's decision.
    for (let i = 0; i < 30 && ledger.total === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    letLookGo();
    const [parentResult, forkResult] = await Promise.all([parent, fork]);
    // The outside counter: one refund for the job, whichever run made it.
    expect(ledger.total).toBe(1);
    expect(forkResult.status).toBe('completed');
    // The parent met the fork's refund: answered from it, or stopped while it was in flight, never executed.
    const parentEnds = endsOf(await journal.events(parentId), 'refund');
    if (parentEnds.length > 0) expect(parentEnds).toMatchObject([{ source: 'deduplicated', inheritedFrom: forkId }]);
    else expect(SideEffectElsewhereError.isInstance(parentResult)).toBe(true);
  });

  it('the job’s lock keeps processes apart on Postgres (a session advisory lock); the embedded journal has one process, so none', async () => {
    const a = await journal.hold(uniqueRunId('a'));
    const other = target.name === 'postgres' ? target.open : undefined;
    try {
      if (!other) {
        expect(a.lockJob).toBeUndefined();
        return;
      }
      const second = new PostgresStorage({ connectionString: DATABASE_URL as string });
      const b = await second.runs.hold(uniqueRunId('b'));
      try {
        const releaseA = await (a.lockJob as NonNullable<RunHold['lockJob']>)('job-x');
        let bHas = false;
        const bLock = (b.lockJob as NonNullable<RunHold['lockJob']>)('job-x').then((release) => {
          bHas = true;
          return release;
        });
        await new Promise((resolve) => setTimeout(resolve, 150)); // room for a wrong grant to show
        expect(bHas).toBe(false);
        await releaseA();
        const releaseB = await bLock;
        expect(bHas).toBe(true);
        await releaseB();
      } finally {
        await b.release();
        await second.close();
      }
    } finally {
      await a.release();
    }
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

  it('a restart whose model spells the refund’s arguments in NFD, where the old run’s were NFC, repeats that refund: answered from its record, one refund', async () => {
    const { ledger, tools, open } = world();
    open();
    const spelled =
      (orderId: string) =>
      (step: number): ScriptedStep =>
        step === 0 ? { toolCalls: [{ toolCallId: `refund-${step}`, toolName: 'refund', input: { orderId, amount: 40 } }] } : { text: 'Refunded.' };
    const oldId = uniqueRunId('old-nfc');
    await runDurable({ journal, runId: oldId, model: scriptedModel(spelled('o_caf\u00e9')).model, prompt: PROMPT, tools });
    const restartedId = uniqueRunId('restarted-nfd');
    await createRestart(journal, restartedId, { runId: oldId, by: 'ops@example.com' });
    expect((await runDurable({ journal, runId: restartedId, model: scriptedModel(spelled('o_cafe\u0301')).model, prompt: PROMPT, tools })).status).toBe(
      'completed',
    );
    expect(ledger.total).toBe(1);
    expect(endsOf(await journal.events(restartedId), 'refund')).toMatchObject([{ source: 'deduplicated', inheritedFrom: oldId }]);
  });

  it('a restart meeting a refund of unknown outcome in the old run stops with SideEffectElsewhereError (thrown and journaled as such, not wrapped as a tool that threw) and executes nothing; once decided there, it answers from that decision', async () => {
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
    expect(SideEffectElsewhereError.isInstance(first)).toBe(true);
    expect(first).toMatchObject({ runId: restartedId, toolCallId: 'p-refund', otherRunId: oldId, toolName: 'refund' });
    expect((first as Error).message).toContain(oldId);
    // The run's failure as the journal holds it: the stop itself, naming the old run (VIOLATIONS.md 16).
    const fails = (await journal.events(restartedId)).flatMap((e) => (e.type === 'run-fail' ? [e.error] : []));
    expect(fails.at(-1)?.name).toBe('SideEffectElsewhereError');
    expect(fails.at(-1)?.message).toContain(oldId);
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

  it('a restart of a run whose refund a person marked not done, canceled by the restart before it tried again, refunds anew under its own key and completes: the decision is not asked again', async () => {
    const { ledger, tools, open, crashRefunds, healRefunds } = world();
    open();
    crashRefunds();
    const oldId = uniqueRunId('old-not-done');
    const old = await runDurable({ journal, runId: oldId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools }).catch((error) => error);
    expect(SideEffectRetryBlockedError.isInstance(old)).toBe(true);
    await journal.resolveSideEffect({ runId: oldId, toolCallId: 'p-refund', outcome: 'not-done', by: 'ops@example.com' });
    const [oldStart] = startsOf(await journal.events(oldId), 'refund');
    healRefunds();

    // As restartRun does: the new run, then the old one canceled (it never tries its refund again).
    const restartedId = uniqueRunId('restarted-not-done');
    await createRestart(journal, restartedId, { runId: oldId, by: 'ops@example.com' });
    await journal.cancel({ runId: oldId, by: 'ops@example.com', reason: `restarted as ${restartedId}` });
    const restarted = await runDurable({ journal, runId: restartedId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools });
    expect(restarted.status).toBe('completed');
    const [start] = startsOf(await journal.events(restartedId), 'refund');
    expect(start).toBeDefined();
    expect((start as { idempotencyKey: string }).idempotencyKey).not.toBe((oldStart as { idempotencyKey: string }).idempotencyKey);
    expect(endsOf(await journal.events(restartedId), 'refund')).toMatchObject([{ source: 'executed' }]);
    // The outside counter: the old key's one (crashed) execution, the restart's one under its own key.
    expect([...ledger.executions.values()]).toEqual([1, 1]);
  });

  it('a fork of a parent that may still retry a refund a person marked not done stops with SideEffectElsewhereError: the retry is the parent’s', async () => {
    const { ledger, tools, open, crashRefunds } = world();
    open();
    crashRefunds();
    const parentId = uniqueRunId('parent-not-done');
    const parent = await runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools }).catch((error) => error);
    expect(SideEffectRetryBlockedError.isInstance(parent)).toBe(true);
    await journal.resolveSideEffect({ runId: parentId, toolCallId: 'p-refund', outcome: 'not-done', by: 'ops@example.com' });
    // The parent is blocked, decided: its next resume refunds again under its key.
    const forkId = uniqueRunId('fork-of-live');
    await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    const fork = await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools }).catch((error) => error);
    expect(SideEffectElsewhereError.isInstance(fork)).toBe(true);
    expect(fork).toMatchObject({ otherRunId: parentId, toolName: 'refund' });
    expect(startsOf(await journal.events(forkId), 'refund')).toEqual([]);
    expect(ledger.total).toBe(1);
  });

  it('a fork of a parent whose refund ended in a final error does not take the parent’s key for it: the refund is the fork’s own new work', async () => {
    const { ledger, tools, open, refuseRefunds, healRefunds } = world();
    open();
    refuseRefunds();
    const parentId = uniqueRunId('parent-refused');
    expect((await runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    expect(ledger.total).toBe(0);
    const [parentStart] = startsOf(await journal.events(parentId), 'refund');
    const parentKey = (parentStart as { idempotencyKey: string }).idempotencyKey;
    healRefunds();
    const forkId = uniqueRunId('fork-after-refusal');
    const { plan } = await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    // The snapshot holds the key; the door reads its outcome at the call.
    expect(plan.input.forkOf?.inheritedKeys.filter((k) => k.toolName === 'refund').map((k) => k.idempotencyKey)).toEqual([parentKey]);
    expect((await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    const [forkStart] = startsOf(await journal.events(forkId), 'refund');
    expect((forkStart as { idempotencyKey: string }).idempotencyKey).not.toBe(parentKey);
    expect([...ledger.executions.keys()]).toEqual([(forkStart as { idempotencyKey: string }).idempotencyKey]);
  });

  it('a fork of a restarted parent meets the refund the restart made (the parent’s run-restarted names it): answered from the restart’s record, one refund across the job', async () => {
    const { ledger, tools, open, refuseRefunds, healRefunds } = world();
    open();
    refuseRefunds();
    const parentId = uniqueRunId('parent-restarted');
    expect((await runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    healRefunds();
    // As restartRun does for a completed run: the new run, and the old run's link to it.
    const restartId = uniqueRunId('restart');
    await createRestart(journal, restartId, { runId: parentId, by: 'ops@example.com' });
    expect(await journal.recordRestart({ runId: parentId, restartedAs: restartId, by: 'ops@example.com' })).toEqual({ recorded: true });
    expect((await runDurable({ journal, runId: restartId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    expect(ledger.total).toBe(1);
    const [restartStart] = startsOf(await journal.events(restartId), 'refund');

    const forkId = uniqueRunId('fork-of-restarted');
    await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    expect((await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    // The outside counter: the restart's refund only.
    expect(ledger.total).toBe(1);
    const forkEvents = await journal.events(forkId);
    expect(startsOf(forkEvents, 'refund')).toEqual([]);
    expect(endsOf(forkEvents, 'refund')).toMatchObject([
      { idempotencyKey: (restartStart as { idempotencyKey: string }).idempotencyKey, source: 'deduplicated', inheritedFrom: restartId },
    ]);
    // The fork's copy holds none of the parent's links.
    expect(forkEvents.filter((e) => e.type === 'run-restarted' || e.type === 'run-forked')).toEqual([]);
  });

  it('a fork made while its parent could still retry a refund marked not done, once the parent is canceled, refunds anew under its own key', async () => {
    const { ledger, tools, open, crashRefunds, healRefunds } = world();
    open();
    crashRefunds();
    const parentId = uniqueRunId('parent-then-canceled');
    await runDurable({ journal, runId: parentId, model: scriptedModel(parentScript).model, prompt: PROMPT, tools }).catch(() => undefined);
    await journal.resolveSideEffect({ runId: parentId, toolCallId: 'p-refund', outcome: 'not-done', by: 'ops@example.com' });
    const [parentStart] = startsOf(await journal.events(parentId), 'refund');
    const forkId = uniqueRunId('fork-then');
    await journal.fork({ runId: parentId, childRunId: forkId, atStep: 1, by: 'ops@example.com', reason: 'ask again' });
    healRefunds();
    const stopped = await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools }).catch((error) => error);
    expect(SideEffectElsewhereError.isInstance(stopped)).toBe(true);
    await journal.cancel({ runId: parentId, by: 'ops@example.com' });
    expect((await runDurable({ journal, runId: forkId, model: scriptedModel(forkScript).model, prompt: PROMPT, tools })).status).toBe('completed');
    const [forkStart] = startsOf(await journal.events(forkId), 'refund');
    expect((forkStart as { idempotencyKey: string }).idempotencyKey).not.toBe((parentStart as { idempotencyKey: string }).idempotencyKey);
    expect([...ledger.executions.values()]).toEqual([1, 1]);
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
