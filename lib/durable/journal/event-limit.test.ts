/**
 * An event over MAX_EVENT_BYTES end to end: a tool output over the limit becomes that call's tool error
 * (the model sees it, the run goes on), nothing oversized is written, and a side effect is not run
 * again on that account.
 */
import { tool } from 'ai';
import { beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { gnlTool, MAX_EVENT_BYTES, runDurable } from '../index';

const script =
  (toolName: string) =>
  (step: number): ScriptedStep =>
    step === 0 ? { toolCalls: [{ toolCallId: 'c1', toolName, input: { q: 'x' } }] } : { text: 'done' };
const oversized = () => 'x'.repeat(MAX_EVENT_BYTES + 1);

describeEachJournal('event size limit', (target) => {
  const { journal, storage } = target.open();
  // Opening (and migrating) the database is slow on a loaded machine: it happens here, not in the first test.
  beforeAll(() => storage.database().then(() => undefined), 300_000);

  it("a read-only tool output over the limit is the call's tool error, naming the limit; the run completes and replays it", async () => {
    let executions = 0;
    const fetchPage = tool({
      inputSchema: z.object({ q: z.string() }),
      execute: async () => {
        executions += 1;
        return oversized();
      },
    });
    const runId = uniqueRunId();
    const model = scriptedModel(script('fetchPage'));
    const result = await runDurable({ runId, journal, model: model.model, tools: { fetchPage }, prompt: 'x' });
    expect(result.status).toBe('completed');
    expect(JSON.stringify(model.prompts.at(-1))).toContain('MAX_EVENT_BYTES');
    const events = await journal.events(runId);
    const error = events.find((e) => e.type === 'tool-call-error');
    expect(error).toMatchObject({ error: { name: 'JournalDataError', message: expect.stringContaining('the limit is 128 MiB per event') } });
    expect(events.some((e) => e.type === 'tool-call-end')).toBe(false);

    const again = await runDurable({ runId, journal, model: scriptedModel(script('fetchPage')).model, tools: { fetchPage }, prompt: 'x' });
    expect(again.status).toBe('completed');
    expect(executions).toBe(1);
  });

  it('a side effect whose output is over the limit ran once and is not run again: it is recorded as performed (unencodable-output.ts), never as failed', async () => {
    let refunds = 0;
    const refund = gnlTool(
      tool({
        inputSchema: z.object({ q: z.string() }),
        execute: async () => {
          refunds += 1;
          return { receipt: oversized() };
        },
      }),
      { sideEffect: true },
    );
    const runId = uniqueRunId();
    const first = await runDurable({ runId, journal, model: scriptedModel(script('refund')).model, tools: { refund }, prompt: 'x' });
    expect(first.status).toBe('completed');
    const again = await runDurable({ runId, journal, model: scriptedModel(script('refund')).model, tools: { refund }, prompt: 'x' });
    expect(again.status).toBe('completed');
    expect(refunds).toBe(1);
    const types = (await journal.events(runId)).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('tool-call'))).toEqual(['tool-call-start', 'tool-call-end']);
    const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end');
    expect(end).toMatchObject({ source: 'executed', output: { gnl: 'unencodable-output', performed: true } });
  });
});
