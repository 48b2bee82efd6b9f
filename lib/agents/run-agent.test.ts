import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Journal, RunDivergedError } from '@/lib/durable';
import { describeEachJournal, uniqueRunId } from '@/tests/support/journals';
import { type ScriptedStep, scriptedModel } from '@/tests/support/scripted-model';
import { type Agent, AgentInputError, defineAgent, runAgent } from './index';

const refundSchema = z.object({ orderId: z.string(), amount: z.number() });

function refundsAgent(change: { schema?: z.ZodType; modelId?: string; system?: string; name?: string } = {}) {
  let executions = 0;
  const script = (step: number): ScriptedStep =>
    step === 0 ? { toolCalls: [{ toolCallId: 'call-1', toolName: 'refund', input: { orderId: 'o_17', amount: 40 } }] } : { text: 'Refunded.' };
  const scripted = scriptedModel(script);
  if (change.modelId) Object.defineProperty(scripted.model, 'modelId', { value: change.modelId });
  const agent = defineAgent({
    name: change.name ?? 'refunds',
    model: scripted.model,
    tools: {
      refund: tool({
        inputSchema: (change.schema ?? refundSchema) as typeof refundSchema,
        execute: async () => {
          executions += 1;
          return { ok: true };
        },
      }),
    },
    system: change.system ?? 'You refund.',
  });
  return { agent, executions: () => executions, modelCalls: scripted.calls };
}

describeEachJournal('runAgent', (target) => {
  const { journal, storage } = target.open();
  const input = { prompt: 'Refund o_17' };

  it("an agent's memory: each run of a subject's conversation is given the thread so far, and adds its turn; a run without both is given none", async () => {
    const model = scriptedModel(() => ({ text: 'Noted.' }));
    const agent = defineAgent({ name: 'remembers', model: model.model, tools: {}, memory: { store: () => storage.memory, lastMessages: 4 } });
    const subject = uniqueRunId('customer');
    const conversationId = uniqueRunId('conv');
    await runAgent({ agent, runId: uniqueRunId('turn'), input: { prompt: 'my order is o_17', subject, conversationId }, journal });
    await runAgent({ agent, runId: uniqueRunId('turn'), input: { prompt: 'is it refunded?', subject, conversationId }, journal });
    expect(JSON.stringify(model.prompts[1])).toContain('my order is o_17');
    expect(JSON.stringify(model.prompts[1])).toContain('Noted.');
    expect((await storage.memory.history({ resource: subject, thread: conversationId, limit: 10 })).map((m) => m.text)).toEqual([
      'my order is o_17',
      'Noted.',
      'is it refunded?',
      'Noted.',
    ]);
    // No conversation: no memory given, none written.
    const alone = uniqueRunId('alone');
    await runAgent({ agent, runId: alone, input: { prompt: 'hello', subject }, journal });
    expect((await journal.getRun(alone))?.input.memory).toBeUndefined();
    expect(() => defineAgent({ name: 'bad-memory', model: model.model, tools: {}, memory: { store: storage.memory, lastMessages: 500 } })).toThrow(
      /lastMessages|memory/,
    );
    // The memory is the agent's, not a per-run setting.
    await expect(runAgent({ agent, runId: uniqueRunId('x'), input, journal, memory: {} } as never)).rejects.toSatisfy(AgentInputError.isInstance);
  });

  it("runs the agent durably and records the agent's name in the run's start input", async () => {
    const { agent, executions } = refundsAgent();
    const runId = uniqueRunId('agent');
    await expect(runAgent({ agent, runId, input, journal })).resolves.toMatchObject({ status: 'completed', text: 'Refunded.' });
    const recorded = (await journal.getRun(runId))?.input;
    expect(recorded).toMatchObject({ agent: 'refunds', agentVersion: agent.version, prompt: 'Refund o_17', system: 'You refund.', toolNames: ['refund'] });
    // The fingerprint hashes tool schemas exactly as the journal does, so a recorded run can be compared with an agent.
    expect(recorded?.toolSchemas).toEqual(agent.fingerprint.tools);
    expect({ provider: recorded?.provider, modelId: recorded?.modelId }).toEqual({ provider: agent.fingerprint.provider, modelId: agent.fingerprint.modelId });
    expect(executions()).toBe(1);
  });

  it('a changed agent is refused with RunDivergedError naming what changed (tool schema, model, system, name); nothing runs', async () => {
    const runId = uniqueRunId('agent');
    await runAgent({ agent: refundsAgent().agent, runId, input, journal });
    const before = (await journal.events(runId)).length;
    const cases: [string, ReturnType<typeof refundsAgent>][] = [
      ['tool schema: refund', refundsAgent({ schema: refundSchema.extend({ note: z.string() }) })],
      ['modelId', refundsAgent({ modelId: 'scripted-v2' })],
      ['system', refundsAgent({ system: 'You refund generously.' })],
      ['agent', refundsAgent({ name: 'refunds-v2' })],
    ];
    for (const [field, changed] of cases) {
      const error = await runAgent({ agent: changed.agent, runId, input, journal }).catch((e: unknown) => e);
      expect(RunDivergedError.isInstance(error), String(error)).toBe(true);
      expect((error as RunDivergedError).differences.map((d) => d.field)).toEqual([field]);
      expect((error as Error).message).toContain(field);
      expect(changed.modelCalls()).toBe(0);
      expect(changed.executions()).toBe(0);
    }
    expect((await journal.events(runId)).length).toBe(before);
  });

  it('passes per-run settings through, and the agent keeps its own', async () => {
    const { agent } = refundsAgent();
    const steps: boolean[] = [];
    const runId = uniqueRunId('agent');
    await runAgent({ agent, runId, input, journal, onStepFinish: (step) => void steps.push(step.replayed) });
    expect(steps).toEqual([false, false]);
    // Completed: a later call answers from the record; its steps are reported, replayed.
    expect((await runAgent({ agent, runId, input, journal, onStepFinish: (step) => void steps.push(step.replayed) })).status).toBe('completed');
    expect(steps).toEqual([false, false, true, true]);
  });
});

describe('runAgent input, checked before the journal is touched', () => {
  const touched = () => Promise.reject(new Error('the journal was touched'));
  // runDurable's first touch resolves the runId, then a read (a completed run answers from it), then its hold.
  const untouchable = new Proxy({ runIdOf: touched, hold: touched, events: touched } as unknown as Journal, {});
  const agent: Agent = refundsAgent().agent;
  const refused = async (options: Record<string, unknown>) => {
    const error = await runAgent({ agent, runId: 'r1', input: { prompt: 'Refund o_17' }, journal: untouchable, ...options } as never).catch((e: unknown) => e);
    expect(AgentInputError.isInstance(error), String(error)).toBe(true);
    return (error as Error).message;
  };

  it('an empty or blank prompt, empty messages, or both at once', async () => {
    expect(await refused({ input: { prompt: '' } })).toBe('runAgent refused the request: input.prompt: the prompt must not be empty');
    expect(await refused({ input: { prompt: '   \n' } })).toContain('the prompt must not be empty');
    expect(await refused({ input: { messages: [] } })).toContain('input.messages: messages must not be empty');
    expect(await refused({ input: { prompt: 'a', messages: [{ role: 'user', content: 'a' }] } })).toContain('input must be { prompt: string } or { messages');
    expect(await refused({ input: { messages: [{ role: 'wizard', content: 'a' }] } })).toContain('input');
  });

  it('a bad runId, something that is not an agent, and settings that belong to the agent', async () => {
    expect(await refused({ runId: '' })).toContain('runId:');
    expect(await refused({ runId: 'a\nb' })).toContain('runId:');
    expect(await refused({ agent: { name: 'refunds' } })).toContain('agent: agent must be an Agent made by defineAgent');
    expect(await refused({ model: 'openai/gpt-5' })).toContain('model: belongs to the agent definition');
    expect(await refused({ system: 'Other', tools: {} })).toMatch(/tools: belongs.*system: belongs|system: belongs.*tools: belongs/);
  });

  it('accepts a conversation as messages', async () => {
    const { agent } = refundsAgent();
    const error = await runAgent({ agent, runId: 'r1', input: { messages: [{ role: 'user', content: 'Refund o_17' }] }, journal: untouchable }).catch(
      (e: unknown) => e,
    );
    expect((error as Error).message).toBe('the journal was touched');
  });
});
