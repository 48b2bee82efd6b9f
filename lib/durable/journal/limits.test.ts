/**
 * The journal's limits end to end, through runDurable with a scripted model on both journals: a tool
 * output over MAX_EVENT_BYTES (129 MiB), outputs JSON cannot carry, the runId length, the events-per-run limit. Each is a clear,
 * named error, before anything is written; nothing is silently cut.
 */
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { tool } from 'ai';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { query } from '@/lib/durable/storage/sql-rows';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { Ledger, REFUND_INPUT, refundAgent } from '@/tests/support/refund-agent';
import { type ScriptedModel, type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, InvalidRunIdError, JournalDataError, MAX_EVENT_BYTES, MAX_EVENTS_PER_RUN, MAX_RUN_ID_LENGTH, RunEventLimitError, runDurable } from '../index';

const callOnce =
  (toolName: string) =>
  (step: number): ScriptedStep =>
    step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName, input: { q: 'x' } }] } : { text: 'done' };

/** Calls `toolName` at every step until `steps` steps were asked, then answers. */
const callEachStep =
  (toolName: string, steps: number) =>
  (step: number): ScriptedStep =>
    step < steps ? { toolCalls: [{ toolCallId: `c${step}`, toolName, input: { q: String(step) } }] } : { text: 'done' };

const returning = (output: () => unknown, counter = { calls: 0 }) =>
  tool({
    inputSchema: z.object({ q: z.string() }),
    execute: async () => {
      counter.calls += 1;
      return output();
    },
  });

describeEachJournal('limits end to end', (target) => {
  const { journal, storage } = target.open();
  // Opening (and migrating) the database is slow on a loaded machine: it happens here, not in the first test.
  beforeAll(() => storage.database().then(() => undefined), 300_000);

  async function rows(runId: string) {
    const db = await storage.database();
    const [row] = await query<{ events: string | number; largest: string | number | null; runs: string | number }>(
      db,
      sql`select (select count(*) from gnl.run_events where run_id = ${runId}) as events,
                 (select max(octet_length(payload::text) + coalesce(octet_length(answer::text), 0)) from gnl.run_events where run_id = ${runId}) as largest,
                 (select count(*) from gnl.runs where run_id = ${runId}) as runs`,
    );
    return { events: Number(row?.events), largest: Number(row?.largest ?? 0), runs: Number(row?.runs) };
  }

  it('a tool returning 129 MiB is refused with the size and the limit (never cut): the model sees the error, nothing of it is stored', async () => {
    const runId = uniqueRunId();
    const counter = { calls: 0 };
    const fetchPage = returning(() => ({ html: 'x'.repeat(MAX_EVENT_BYTES + 1024 * 1024) }), counter);
    const model = scriptedModel(callOnce('fetchPage'));
    const thrown: unknown[] = [];
    const onStepFinish = (step: { content: readonly { type: string; error?: unknown }[] }) => {
      for (const part of step.content) if (part.type === 'tool-error') thrown.push(part.error);
    };
    const result = await runDurable({ runId, journal, model: model.model, tools: { fetchPage }, prompt: 'x', onStepFinish });
    expect(result.status).toBe('completed');
    // The refusal the tool call throws carries the size itself (callers branch on tooLarge, never on the message).
    expect(thrown).toHaveLength(1);
    expect(JournalDataError.isInstance(thrown[0]) && thrown[0].tooLarge).toMatchObject({ eventType: 'tool-call-end', limit: MAX_EVENT_BYTES });
    const error = (await journal.events(runId)).find((e) => e.type === 'tool-call-error');
    expect(error).toMatchObject({
      toolName: 'fetchPage',
      retryable: false,
      error: {
        name: 'JournalDataError',
        message: expect.stringMatching(/A tool-call-end event of 129 MiB cannot be journaled: the limit is 128 MiB per event \(MAX_EVENT_BYTES\)/),
      },
    });
    expect(JSON.stringify(model.prompts.at(-1))).toContain('MAX_EVENT_BYTES');
    expect((await rows(runId)).largest).toBeLessThan(64 * 1024);
    // Replayed, not run again.
    await runDurable({ runId, journal, model: scriptedModel(callOnce('fetchPage')).model, tools: { fetchPage }, prompt: 'x' });
    expect(counter.calls).toBe(1);
  });

  it('a side effect returning 129 MiB ran once and is recorded as performed, with the size and the start of the value; the model is told so', async () => {
    const runId = uniqueRunId();
    const counter = { calls: 0 };
    const archive = gnlTool(
      returning(() => ({ html: 'x'.repeat(MAX_EVENT_BYTES + 1024 * 1024) }), counter),
      { sideEffect: true },
    );
    const model = scriptedModel(callOnce('archive'));
    const result = await runDurable({ runId, journal, model: model.model, tools: { archive }, prompt: 'x' });
    expect(result.status).toBe('completed');
    expect(counter.calls).toBe(1);
    const events = await journal.events(runId);
    expect(events.some((e) => e.type === 'tool-call-error')).toBe(false);
    const end = events.find((e) => e.type === 'tool-call-end');
    expect(end).toMatchObject({
      source: 'executed',
      output: {
        gnl: 'unencodable-output',
        performed: true,
        reason: expect.stringMatching(/129 MiB .*MAX_EVENT_BYTES/),
        preview: expect.stringMatching(/^\{ html: 'xxx/),
      },
    });
    expect(JSON.stringify(model.prompts.at(-1))).toContain('"performed":true');
    expect((await rows(runId)).largest).toBeLessThan(64 * 1024);
  });

  it('a tool returning a cycle, a function or a bigint gets a final tool error naming what and where; the run completes', async () => {
    const cyclic: Record<string, unknown> = { id: 1 };
    cyclic.parent = { child: cyclic };
    const cases = [
      { output: () => cyclic, message: /Output of t cannot be journaled: .*the value at output\.parent\.child refers back to itself \(a cycle\)/ },
      { output: () => ({ ok: true, format: () => 'x' }), message: /Output of t cannot be journaled: .*the value at output\.format is a function/ },
      { output: () => ({ total: 10n }), message: /Output of t cannot be sent to the model as JSON: .*BigInt/ },
    ];
    for (const { output, message } of cases) {
      const runId = uniqueRunId();
      const model = scriptedModel(callOnce('t'));
      const result = await runDurable({ runId, journal, model: model.model, tools: { t: returning(output) }, prompt: 'x' });
      expect(result.status).toBe('completed');
      const events = await journal.events(runId);
      expect(events.find((e) => e.type === 'tool-call-error')).toMatchObject({
        retryable: false,
        error: { name: 'JournalDataError', message: expect.stringMatching(message) },
      });
      expect(events.some((e) => e.type === 'tool-call-end')).toBe(false);
      expect(JSON.stringify(model.prompts.at(-1))).toMatch(/cannot be (journaled|sent to the model)/);
    }
  });

  // A refund that acted and returns what the journal cannot hold or the model cannot read. The model
  // asks again whenever it is told the refund failed (up to three times), as a model would.
  const unreadableRefunds = {
    'an object with a method': (refund: { refundId: string; amount: number }) => ({ ...refund, describe: () => 'a refund' }),
    'a cycle': (refund: { refundId: string; amount: number }) => {
      const out: Record<string, unknown> = { ...refund };
      out.self = out;
      return out;
    },
    'a bigint': (refund: { refundId: string; amount: number }) => ({ ...refund, cents: 4000n }),
  };
  for (const [what, shape] of Object.entries(unreadableRefunds)) {
    it(`a side effect that acted and returns ${what} is recorded as performed: one refund, the model is told it succeeded, a replay returns the same`, async () => {
      const ledger = new Ledger();
      const refund = gnlTool(
        tool({
          inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
          execute: async (input, { idempotencyKey }) => shape(ledger.refund(idempotencyKey as string, input)),
        }),
        { sideEffect: true },
      );
      const notify = tool({ inputSchema: z.object({}), needsApproval: true, execute: async () => 'sent' });
      const refundResults = (prompt: LanguageModelV4Prompt) =>
        prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).filter((p) => p.type === 'tool-result' && p.toolName === 'refund');
      const script = (step: number, prompt: LanguageModelV4Prompt): ScriptedStep => {
        const last = refundResults(prompt).at(-1);
        const failed = last?.type === 'tool-result' && last.output.type.startsWith('error');
        if (step === 0 || (failed && step < 3)) return { toolCalls: [{ toolCallId: `call-refund-${step}`, toolName: 'refund', input: REFUND_INPUT }] };
        if (!failed && !prompt.some((m) => m.role === 'tool' && m.content.some((p) => p.type === 'tool-result' && p.toolName === 'notify'))) {
          return { toolCalls: [{ toolCallId: 'call-notify', toolName: 'notify', input: {} }] };
        }
        return { text: failed ? 'The refund failed.' : 'Refunded.' };
      };
      const runId = uniqueRunId();
      const call = (model: ScriptedModel) => runDurable({ runId, journal, model: model.model, tools: { refund, notify }, prompt: 'Refund o_17' });
      const first = scriptedModel(script);
      const firstResult = await call(first);
      expect(ledger.total).toBe(1);
      expect(firstResult.status).toBe('waiting-approval');
      // The model's next prompt says the refund was performed, with what can be shown of its output.
      const told = refundResults(first.prompts.at(-1) as LanguageModelV4Prompt);
      expect(told).toHaveLength(1);
      expect(told[0]).toMatchObject({ output: { type: 'json', value: { gnl: 'unencodable-output', performed: true, reason: expect.any(String) } } });
      expect(JSON.stringify(told[0])).toContain('r_o_17');
      const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end' && e.toolName === 'refund');
      expect(end).toMatchObject({ source: 'executed', output: { gnl: 'unencodable-output', performed: true } });
      expect((await journal.events(runId)).some((e) => e.type === 'tool-call-error')).toBe(false);

      // Resumed: the refund is replayed from the journal (not executed), and the model is told the same.
      await journal.approve({ runId, toolCallId: 'call-notify', by: 'alice@acme' });
      const second = scriptedModel(script);
      expect((await call(second)).status).toBe('completed');
      expect(ledger.total).toBe(1);
      expect(refundResults(second.prompts.at(-1) as LanguageModelV4Prompt)).toEqual(told);
    });
  }

  it(`a runId over ${MAX_RUN_ID_LENGTH} characters is refused before anything is written; ${MAX_RUN_ID_LENGTH} four-byte characters are fine`, async () => {
    const base = uniqueRunId('long');
    const tooLong = base + 'x'.repeat(MAX_RUN_ID_LENGTH + 1 - base.length);
    const model = scriptedModel(callOnce('t'));
    const error = await runDurable({ runId: tooLong, journal, model: model.model, tools: { t: returning(() => 1) }, prompt: 'x' }).catch((e: unknown) => e);
    expect(InvalidRunIdError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(`runId is ${MAX_RUN_ID_LENGTH + 1} characters long; the limit is ${MAX_RUN_ID_LENGTH}.`);
    expect(model.calls()).toBe(0);
    expect(await rows(tooLong)).toMatchObject({ events: 0, runs: 0 });
    await expect(journal.hold(tooLong)).rejects.toThrow(InvalidRunIdError);
    await expect(journal.cancel({ runId: tooLong, by: 'ops' })).rejects.toThrow(/runId is 513 characters long/);

    const longest = `${base}:${'🙂'.repeat(MAX_RUN_ID_LENGTH - base.length - 1)}`;
    expect([...longest]).toHaveLength(MAX_RUN_ID_LENGTH);
    const ok = await runDurable({ runId: longest, journal, model: scriptedModel(callOnce('t')).model, tools: { t: returning(() => 1) }, prompt: 'x' });
    expect(ok.status).toBe('completed');
    expect((await journal.getRun(longest))?.runId).toBe(longest);
  });

  it('the events-per-run limit stops a run with RunEventLimitError before the event past it, records the failure, and a higher limit resumes it', async () => {
    expect(MAX_EVENTS_PER_RUN).toBe(100_000);
    const runId = uniqueRunId();
    const counter = { calls: 0 };
    const tools = { t: returning(() => 'ok', counter) };
    const start = () => runDurable({ runId, journal, model: scriptedModel(callEachStep('t', 3)).model, tools, prompt: 'x', maxEventsPerRun: 6 });
    // run-start, then model step / tool end pairs, each pair one append (the step rides with its call's
    // end, RunSession.defer): the third pair would be events 6 and 7.
    const error = await start().catch((e: unknown) => e);
    expect(RunEventLimitError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /has 5 events; appending 2 more would pass the limit of 6 events per run \(maxEventsPerRun\)\. Nothing was appended\./,
    );
    const events = await journal.events(runId);
    expect(events.map((e) => e.type)).toEqual(['run-start', 'model-step', 'tool-call-end', 'model-step', 'tool-call-end', 'run-fail']);
    expect(events.at(-1)).toMatchObject({ error: { name: 'RunEventLimitError' } });
    expect((await journal.getRun(runId))?.status).toBe('failed');

    // Resumed under the same limit: refused at once, nothing appended.
    const again = await start().catch((e: unknown) => e);
    expect(RunEventLimitError.isInstance(again)).toBe(true);
    expect(await journal.events(runId)).toHaveLength(6);

    // A higher limit: it goes on from where it stopped and completes.
    const model = scriptedModel(callEachStep('t', 3));
    const done = await runDurable({ runId, journal, model: model.model, tools, prompt: 'x', maxEventsPerRun: 100 });
    expect(done.status).toBe('completed');
    // The two recorded tool-calling steps were replayed; the third (refused with its call's end) is asked again, then the answer.
    expect(model.calls()).toBe(2);

    await expect(runDurable({ runId: uniqueRunId(), journal, model: model.model, tools, prompt: 'x', maxEventsPerRun: 1 })).rejects.toThrow(
      /maxEventsPerRun must be a whole number of at least 2/,
    );
    // The window to record an outcome while the database is away: ms from 0 to an hour; anything else is refused before a write.
    for (const bad of [-1, 1.5, 3_600_001, '30000'] as unknown as number[]) {
      const refusedId = uniqueRunId();
      await expect(runDurable({ runId: refusedId, journal, model: model.model, tools, prompt: 'x', recordOutcomeWithinMs: bad })).rejects.toThrow(
        /recordOutcomeWithinMs must be a whole number of ms from 0 to 3600000/,
      );
      expect(await journal.events(refusedId)).toEqual([]);
    }
    // Tool retries as gnlTool's own: whole numbers >= 0 (Infinity would retry for ever), refused before a write.
    for (const toolRetry of [{ maxRetries: Number.POSITIVE_INFINITY }, { initialDelayMs: Number.NaN }, { maxRetries: -1 }]) {
      const refusedId = uniqueRunId();
      await expect(runDurable({ runId: refusedId, journal, model: model.model, tools, prompt: 'x', toolRetry })).rejects.toThrow(
        /runDurable: toolRetry\.(maxRetries|initialDelayMs) must be a whole number >= 0/,
      );
      expect(await journal.events(refusedId)).toEqual([]);
    }
  });

  it('a run waiting for a person with no room left to resume is failed with RunEventLimitError, not left waiting; asking again writes nothing', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const call = (maxEventsPerRun: number) =>
      runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', maxEventsPerRun });
    expect((await call(100)).status).toBe('waiting-approval');
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    const full = (await journal.getRun(runId))?.lastSeq as number;
    await expect(call(full)).rejects.toThrow(RunEventLimitError);
    expect(await journal.getRun(runId)).toMatchObject({ status: 'failed', lastSeq: full + 1 });
    expect((await journal.events(runId)).at(-1)).toMatchObject({ type: 'run-fail', error: { name: 'RunEventLimitError' } });
    await expect(call(full)).rejects.toThrow(RunEventLimitError);
    expect((await journal.getRun(runId))?.lastSeq).toBe(full + 1);
    expect(agent.ledger.total).toBe(0);
    expect((await call(100)).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
  });

  it('a migration at the limit needs room for two events (run-migrate and run-resume): with room for one it is refused, never past the limit', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent({ sideEffect: true, needsApproval: true });
    const call = (maxEventsPerRun: number, system: string) =>
      runDurable({
        runId,
        journal,
        model: agent.scripted.model,
        tools: agent.tools,
        prompt: 'Refund o_17',
        system,
        maxEventsPerRun,
        acceptChange: () => ({ by: 'ops@acme', reason: 'new wording' }),
      });
    expect((await call(100, 'Be kind.')).status).toBe('waiting-approval');
    await journal.approve({ runId, toolCallId: 'call-refund', by: 'alice@acme' });
    const full = (await journal.getRun(runId))?.lastSeq as number;
    // Room for one more event: a resume alone would fit, a migration and its resume would not.
    await expect(call(full + 1, 'Be brief.')).rejects.toThrow(RunEventLimitError);
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types.slice(full)).toEqual(['run-fail']);
    expect(types).not.toContain('run-migrate');
    expect(agent.ledger.total).toBe(0);
  });

  it('a side effect never starts past the limit: its start is refused before execute', async () => {
    const runId = uniqueRunId();
    const counter = { calls: 0 };
    const charge = gnlTool(
      returning(() => ({ ok: true }), counter),
      { sideEffect: true },
    );
    // run-start, then the model step with the call's start (one append, RunSession.defer) would be 3 > 2.
    await expect(
      runDurable({ runId, journal, model: scriptedModel(callOnce('charge')).model, tools: { charge }, prompt: 'x', maxEventsPerRun: 2 }),
    ).rejects.toThrow(RunEventLimitError);
    expect(counter.calls).toBe(0);
    expect((await journal.events(runId)).map((e) => e.type)).toEqual(['run-start', 'run-fail']);
  });

  it('a side effect with room for its start but not its outcome does not execute; a higher limit executes it once', async () => {
    const runId = uniqueRunId();
    const agent = refundAgent();
    const call = (maxEventsPerRun: number) =>
      runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund o_17', maxEventsPerRun });
    // run-start, then the model step with the refund's start (events 2 and 3): its end would be event 4.
    const error = await call(3).catch((e: unknown) => e);
    expect(agent.ledger.total).toBe(0);
    expect(RunEventLimitError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/has 1 events; appending 2 more and keeping room for 1 side effect's outcome would pass the limit of 3/);
    expect((await journal.events(runId)).map((e) => e.type)).toEqual(['run-start', 'run-fail']);
    expect((await journal.getRun(runId))?.status).toBe('failed');
    expect((await call(100)).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
    expect((await call(100)).status).toBe('completed');
    expect(agent.ledger.total).toBe(1);
  });

  it("parallel side effects: one call's start never takes the room kept for another's outcome", async () => {
    const runId = uniqueRunId();
    const script = (step: number): ScriptedStep =>
      step === 0
        ? { toolCalls: [1, 2, 3].map((n) => ({ toolCallId: `call-${n}`, toolName: 'refund', input: { orderId: `o_${n}`, amount: n } })) }
        : { text: 'done' };
    const agent = refundAgent({ sideEffect: true }, script);
    const call = (maxEventsPerRun: number) =>
      runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund all', maxEventsPerRun });
    // run-start and the model step, then a start and an end per refund: room for two refunds (6 events), not three (8).
    // The second and third starts are appended together: each counts the other's and the first's kept room.
    await expect(call(6)).rejects.toThrow(RunEventLimitError);
    expect(agent.ledger.total).toBe(2);
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types.filter((t) => t === 'tool-call-start')).toHaveLength(2);
    expect(types.filter((t) => t === 'tool-call-end')).toHaveLength(2);
    expect(types).toHaveLength(7);
    expect(types.at(-1)).toBe('run-fail');
    expect((await call(100)).status).toBe('completed');
    expect(agent.ledger.total).toBe(3);
    expect([...agent.ledger.executions.values()]).toEqual([1, 1, 1]);
  });
});
