import { expect, it } from 'vitest';
import { z } from 'zod';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { scriptedModel } from '@/tests/support/scripted-model';
import { askPerson, JournalDataError, runDurable } from '../index';

const decision = z.object({ approved: z.boolean(), limit: z.number().positive(), note: z.string().optional() });

function managerAgent() {
  const scripted = scriptedModel((step) =>
    step === 0 ? { toolCalls: [{ toolCallId: 'ask-1', toolName: 'askManager', input: { question: 'May I refund 300 EUR?' } }] } : { text: 'Done.' },
  );
  const askManager = askPerson({
    description: 'Ask the shift manager when a refund is over the limit.',
    inputSchema: z.object({ question: z.string() }),
    outputSchema: decision,
  });
  return { scripted, tools: { askManager } };
}

describeEachJournal('askPerson', (target) => {
  const { journal } = target.open();
  const call = (agent: ReturnType<typeof managerAgent>, runId: string) =>
    runDurable({ runId, journal, model: agent.scripted.model, tools: agent.tools, prompt: 'Refund 300 EUR' });

  it('waits for a person; an answer off its output schema is refused naming every field; the answer given reaches the model', async () => {
    const runId = uniqueRunId();
    const agent = managerAgent();
    expect(await call(agent, runId)).toMatchObject({ status: 'waiting-tool-result', pending: [{ toolCallId: 'ask-1', toolName: 'askManager' }] });
    const outputSchema = agent.tools.askManager.outputSchema;

    const refused = await journal
      .provideToolResult({ runId, toolCallId: 'ask-1', by: 'manager@acme', output: { approved: 'yes', limit: -1 }, outputSchema })
      .catch((error: unknown) => error);
    expect(JournalDataError.isInstance(refused)).toBe(true);
    expect((refused as InstanceType<typeof JournalDataError>).outputMismatch?.issues.map((i) => i.path).sort()).toEqual(['approved', 'limit']);
    expect((await journal.getRun(runId))?.pending[0]?.decision).toBeUndefined();

    const answer = { approved: true, limit: 250, note: 'not more' };
    await journal.provideToolResult({ runId, toolCallId: 'ask-1', by: 'manager@acme', output: answer, outputSchema });
    expect((await call(agent, runId)).status).toBe('completed');
    expect(JSON.stringify(agent.scripted.prompts[1])).toContain('"limit":250');
    const end = (await journal.events(runId)).find((e) => e.type === 'tool-call-end');
    expect(end).toMatchObject({ source: 'provided', by: 'manager@acme', output: answer });
    expect(agent.scripted.calls()).toBe(2);
  });
});
