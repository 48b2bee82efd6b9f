/**
 * Versions side by side: the registry holds several versions of one agent (the current one is the last
 * listed, or the one declared), and what a version declaring onChange 'continue' takes over.
 */
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type RecordedEvent, RunState, runInputDifferences } from '@/lib/durable';
import { scriptedModel, stepResult } from '@/tests/support/scripted-model';
import { absorbableChange, AgentDefinitionError, createAgentRegistry, defineAgent } from './index';

const model = scriptedModel(() => ({ text: 'x' })).model;
const refund = (schema: z.ZodType = z.object({ orderId: z.string() })) => tool({ inputSchema: schema, execute: async () => 'ok' });
const version = (system: string, extra: { tools?: Record<string, ReturnType<typeof refund>>; onChange?: 'continue' | 'pinned' } = {}) =>
  defineAgent({ name: 'support', model, system, tools: extra.tools ?? { refund: refund() }, ...(extra.onChange ? { onChange: extra.onChange } : {}) });

describe('agent versions in the registry', () => {
  it('holds versions side by side: new runs get the last listed, or the declared current one; each is found by its version', () => {
    const v1 = version('one');
    const v2 = version('two', { onChange: 'continue' });
    expect(v1.onChange).toBe('pinned');
    expect(v2.onChange).toBe('continue');
    expect(v1.version).not.toBe(v2.version);
    const registry = createAgentRegistry([v1, v2]);
    expect(registry.getAgent('support')).toBe(v2);
    expect(registry.listAgents()).toEqual([v2]);
    expect(registry.listVersions('support')).toEqual([v1, v2]);
    expect(registry.findVersion('support', v1.version)).toBe(v1);
    expect(registry.findVersion('support', 'f'.repeat(16))).toBeUndefined();
    expect(registry.listVersions('billing')).toEqual([]);
    expect(createAgentRegistry([v1, v2], { current: { support: v1.version } }).getAgent('support')).toBe(v1);
  });

  it('refuses one version listed twice, a current version that is not registered, and a bad onChange', () => {
    expect(() => createAgentRegistry([version('one'), version('one')])).toThrow(/two agents are named "support" with the same version [0-9a-f]{16}/);
    expect(() => createAgentRegistry([version('one')], { current: { support: 'f'.repeat(16) } })).toThrow(AgentDefinitionError);
    expect(() => createAgentRegistry([version('one')], { current: { billing: 'f'.repeat(16) } })).toThrow('current: "billing" has no registered version');
    expect(() => defineAgent({ name: 'support', model, tools: {}, onChange: 'always' as never })).toThrow("onChange: must be 'continue' or 'pinned'");
  });
});

describe("what a version declaring onChange 'continue' takes over", () => {
  const recorded = (agentTools: string[], calls: string[]) => {
    const events = [
      { type: 'run-start', input: { prompt: 'p', modelId: 'm', provider: 'p', toolNames: agentTools } },
      {
        type: 'model-step',
        step: 0,
        provider: 'p',
        modelId: 'm',
        latencyMs: 1,
        result: stepResult({ toolCalls: calls.map((toolName, i) => ({ toolCallId: `c${i}`, toolName, input: {} })) }),
      },
    ];
    return new RunState(events.map((e, i) => ({ ...e, seq: i + 1, at: new Date() })) as RecordedEvent[]);
  };
  const field = (name: string) => ({ field: name, recorded: 'a', given: 'b' });

  it('absorbs a new system prompt, tools added, and tools removed that the run never called', () => {
    const agent = version('two', { tools: { refund: refund(), email: refund() } });
    expect(absorbableChange({ differences: [field('system'), field('toolNames')], state: recorded(['refund', 'lookup'], ['refund']), agent })).toEqual({
      absorbed: true,
    });
  });

  it('never absorbs a changed tool schema, a removed tool the run called, a changed model, or the run’s own input', () => {
    const agent = version('two', { tools: { email: refund() } });
    const verdict = absorbableChange({
      differences: [field('tool schema: refund'), field('toolNames'), field('modelId'), field('prompt')],
      state: recorded(['refund'], ['refund']),
      agent,
    });
    expect(verdict).toEqual({
      absorbed: false,
      because: [
        'tool schema: refund changed: recorded calls may not read the same',
        `the run called refund, which version ${agent.version} does not have`,
        'modelId changed: only the system prompt and unused tools are taken over',
        'prompt changed: only the system prompt and unused tools are taken over',
      ],
    });
  });

  it('the fields it reads are the ones the core compares: a schema change is named "tool schema: <name>"', () => {
    const before = { prompt: 'p', modelId: 'm', provider: 'p', toolNames: ['refund'], toolSchemas: { refund: 'h1' } };
    expect(runInputDifferences(before, { ...before, toolSchemas: { refund: 'h2' } }).map((d) => d.field)).toEqual(['tool schema: refund']);
  });
});
