import { stepCountIs, type ToolSet, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '@/tests/support/scripted-model';
import { AgentDefinitionError, defineAgent } from './index';

const lookup = tool({ inputSchema: z.object({ orderId: z.string() }), execute: async () => ({}) });
const refund = tool({ inputSchema: z.object({ orderId: z.string(), amount: z.number() }), execute: async () => ({}) });

function agentWith(change: { model?: ReturnType<typeof scriptedModel>['model']; tools?: ToolSet; system?: string } = {}) {
  return defineAgent({
    name: 'refunds',
    model: change.model ?? scriptedModel(() => ({ text: 'x' })).model,
    tools: change.tools ?? { lookup, refund },
    system: change.system ?? 'You refund.',
    stopWhen: stepCountIs(5),
  });
}

function modelWith(fields: { provider?: string; modelId?: string }) {
  const model = scriptedModel(() => ({ text: 'x' })).model;
  for (const [key, value] of Object.entries(fields)) Object.defineProperty(model, key, { value });
  return model;
}

describe('defineAgent', () => {
  it('keeps the name, the tools, the system prompt and the other settings apart', () => {
    const agent = agentWith();
    expect(agent.name).toBe('refunds');
    expect(Object.keys(agent.tools)).toEqual(['lookup', 'refund']);
    expect(agent.system).toBe('You refund.');
    expect(Object.keys(agent.settings)).toEqual(['stopWhen']);
    expect(agent.model.modelId).toBe('scripted-v1');
  });

  it('calls a model function once, on first use, not when the agent is defined', () => {
    let calls = 0;
    const agent = defineAgent({
      name: 'lazy',
      model: () => {
        calls += 1;
        return scriptedModel(() => ({ text: 'x' })).model;
      },
      tools: {},
    });
    expect(calls).toBe(0);
    expect(agent.model.provider).toBe('scripted');
    expect(agent.version).toMatch(/^[0-9a-f]{16}$/);
    expect(calls).toBe(1);
  });

  it('refuses bad definitions, naming each problem', () => {
    const bad = (definition: Record<string, unknown>) => {
      try {
        defineAgent(definition as never);
      } catch (error) {
        expect(AgentDefinitionError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('defineAgent accepted a bad definition');
    };
    expect(bad({ name: 'Support Agent', model: 'openai/gpt-5', tools: {} })).toMatch(/defineAgent "Support Agent": name: must be lower-case letters/);
    expect(bad({ name: 'ok', tools: {} })).toContain('model: must be a language model');
    expect(bad({ name: 'ok', model: 'm', tools: { 'bad name': lookup } })).toContain('tool names are 1 to 64 letters');
    expect(bad({ name: 'ok', model: 'm', tools: { lookup: { execute: () => 1 } } })).toContain('tools.lookup: must be a tool');
    expect(bad({ name: 'ok', model: 'm', tools: {}, instructions: 'Be nice' })).toContain('instructions: the journal records `system`');
  });
});

describe('agent version', () => {
  it('is stable: two equal definitions (tools in any order) have the same version', () => {
    expect(agentWith().version).toBe(agentWith().version);
    expect(agentWith({ tools: { refund, lookup } }).version).toBe(agentWith().version);
  });

  it('changes with a tool input schema, a tool name, the model id or provider, and the system prompt, and says which part changed', () => {
    const base = agentWith();
    const changedRefund = tool({ inputSchema: z.object({ orderId: z.string(), amount: z.number(), note: z.string() }), execute: async () => ({}) });
    const variants = {
      schema: agentWith({ tools: { lookup, refund: changedRefund } }),
      toolName: agentWith({ tools: { lookup, refundOrder: refund } }),
      modelId: agentWith({ model: modelWith({ modelId: 'scripted-v2' }) }),
      provider: agentWith({ model: modelWith({ provider: 'other' }) }),
      system: agentWith({ system: 'You refund generously.' }),
    };
    const versions = new Set([base.version, ...Object.values(variants).map((a) => a.version)]);
    expect(versions.size).toBe(6);
    expect(variants.schema.fingerprint.tools.refund).not.toBe(base.fingerprint.tools.refund);
    expect(variants.schema.fingerprint.tools.lookup).toBe(base.fingerprint.tools.lookup);
    expect(variants.modelId.fingerprint).toMatchObject({ modelId: 'scripted-v2', provider: 'scripted' });
  });

  it('does not change with settings outside the fingerprint (tool descriptions, stopWhen)', () => {
    const described = tool({ description: 'Look an order up', inputSchema: z.object({ orderId: z.string() }), execute: async () => ({}) });
    const other = defineAgent({
      name: 'refunds',
      model: scriptedModel(() => ({ text: 'x' })).model,
      tools: { lookup: described, refund },
      system: 'You refund.',
    });
    expect(other.version).toBe(agentWith().version);
  });
});
