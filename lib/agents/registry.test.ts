import { describe, expect, it } from 'vitest';
import { getAgent, listAgents } from '@/agents';
import { toolDeclaration } from '@/lib/durable';
import { scriptedModel } from '@/tests/support/scripted-model';
import { AgentDefinitionError, AgentInputError, createAgentRegistry, defineAgent, UnknownAgentError } from './index';

const agent = (name: string) => defineAgent({ name, model: scriptedModel(() => ({ text: 'x' })).model, tools: {} });

describe('agent registry', () => {
  it('looks agents up by name and lists them sorted', () => {
    const registry = createAgentRegistry([agent('support'), agent('billing')]);
    expect(registry.getAgent('support').name).toBe('support');
    expect(registry.listAgents().map((a) => a.name)).toEqual(['billing', 'support']);
    expect(registry.hasAgent('billing')).toBe(true);
    expect(registry.hasAgent('nope')).toBe(false);
  });

  it('an unknown name is an UnknownAgentError naming the known agents', () => {
    const registry = createAgentRegistry([agent('support'), agent('billing')]);
    const error = (() => {
      try {
        registry.getAgent('suport');
      } catch (e) {
        return e;
      }
    })();
    expect(UnknownAgentError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ name: 'UnknownAgentError', agentName: 'suport', known: ['billing', 'support'] });
    expect((error as Error).message).toBe('No agent is registered as "suport". Known agents: "billing", "support".');
    expect(() => registry.getAgent('Support')).toThrow('Known agents: "billing", "support". (names are lower-case letters, digits and dashes)');
    expect(() => createAgentRegistry([]).getAgent('x')).toThrow('Known agents: none.');
  });

  it('a name that is not a non-empty string is an AgentInputError', () => {
    const registry = createAgentRegistry([agent('support')]);
    expect(() => registry.getAgent('')).toThrow(AgentInputError);
    expect(() => registry.getAgent(42 as never)).toThrow('getAgent: an agent name must be a string');
  });

  it('refuses two agents with one name, and things that are not agents', () => {
    expect(() => createAgentRegistry([agent('support'), agent('support')])).toThrow(AgentDefinitionError);
    expect(() => createAgentRegistry([agent('support'), agent('support')])).toThrow('two agents are named "support"');
    expect(() => createAgentRegistry([{ name: 'fake' } as never])).toThrow('agents[0] is not an Agent made by defineAgent');
  });

  it("the deployment's registry (agents/index.ts) has the demo support agent with its five tools, the same without check, and with four eyes on refunds", () => {
    expect(listAgents().map((a) => a.name)).toEqual(['support', 'support-four-eyes', 'support-unchecked']);
    expect(Object.keys(getAgent('support-four-eyes').tools).sort()).toEqual(['askColleague', 'createTicket', 'issueRefund', 'lookupCustomer', 'sendEmail']);
    const tools = ['askColleague', 'createTicket', 'issueRefund', 'lookupCustomer', 'sendEmail'];
    expect(Object.keys(getAgent('support').tools).sort()).toEqual(tools);
    expect(Object.keys(getAgent('support-unchecked').tools).sort()).toEqual(tools);
    const checks = (name: string) => ['issueRefund', 'sendEmail'].map((tool) => toolDeclaration(getAgent(name).tools[tool]).check);
    expect(checks('support')).toEqual([true, true]);
    expect(checks('support-unchecked')).toEqual([false, false]);
  });
});
