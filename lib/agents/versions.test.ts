/**
 * Versions side by side: the registry holds several versions of one agent (the current one is the last
 * listed, or the one declared), and what a version declaring onChange 'continue' takes over.
 */
import { type ToolSet, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type RecordedEvent, RunState, runInputDifferences } from '@/lib/durable';
import { scriptedModel, stepResult } from '@/tests/support/scripted-model';
import { absorbableChange, AgentDefinitionError, createAgentRegistry, defineAgent, planMigration } from './index';

const model = scriptedModel(() => ({ text: 'x' })).model;
const refund = (schema: z.ZodType = z.object({ orderId: z.string() })) => tool({ inputSchema: schema, execute: async () => 'ok' });
const version = (system: string, extra: { tools?: ToolSet; onChange?: 'continue' | 'pinned' } = {}) =>
  defineAgent({ name: 'support', model, system, tools: extra.tools ?? { refund: refund() }, ...(extra.onChange ? { onChange: extra.onChange } : {}) });

const field = (name: string) => ({ field: name, recorded: 'a', given: 'b' });

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

describe('the migration plan', () => {
  const at = new Date();
  const state = () =>
    new RunState(
      (
        [
          { type: 'run-start', input: { prompt: 'p', modelId: 'm', provider: 'p', toolNames: ['lookup', 'refund'] } },
          {
            type: 'model-step',
            step: 0,
            provider: 'p',
            modelId: 'm',
            latencyMs: 1,
            result: stepResult({ toolCalls: [{ toolCallId: 'c-lookup', toolName: 'lookup', input: { orderId: 'o_17' } }] }),
          },
          {
            type: 'tool-call-end',
            toolCallId: 'c-lookup',
            toolName: 'lookup',
            idempotencyKey: 'k-lookup',
            attempt: 1,
            output: 40,
            durationMs: 1,
            input: { orderId: 'o_17' },
            source: 'executed',
          },
          {
            type: 'model-step',
            step: 1,
            provider: 'p',
            modelId: 'm',
            latencyMs: 1,
            result: stepResult({ toolCalls: [{ toolCallId: 'c-refund', toolName: 'refund', input: { orderId: 'o_17' } }] }, 1),
          },
          { type: 'tool-approval-request', toolCallId: 'c-refund', toolName: 'refund', input: { orderId: 'o_17' }, requestedAt: at.toISOString() },
        ] as const
      ).map((e, i) => ({ ...e, seq: i + 1, at })) as unknown as RecordedEvent[],
    );
  const lookup = tool({ inputSchema: z.object({ orderId: z.string() }), execute: async () => 40 });

  it('keeps every finished call with its key, runs the unfinished one on the new tool, and asks the next step on the new version', async () => {
    const agent = version('two', { tools: { lookup, refund: refund(z.object({ orderId: z.string(), note: z.string().optional() })) } });
    const plan = await planMigration({ state: state(), agent, differences: [field('tool schema: refund')] });
    expect(plan).toMatchObject({
      kept: [{ toolCallId: 'c-lookup', toolName: 'lookup', idempotencyKey: 'k-lookup', outcome: 'output' }],
      reruns: [{ toolCallId: 'c-refund', toolName: 'refund', toolChanged: true, action: 'waits' }],
      nextStep: 2,
      refusals: [],
    });
  });

  it('refuses a recorded call the new schema does not accept, and one to a tool the new version lacks', async () => {
    const stricter = version('two', { tools: { lookup, refund: refund(z.object({ orderId: z.string(), amount: z.number() })) } });
    const refused = await planMigration({ state: state(), agent: stricter, differences: [field('tool schema: refund')] });
    expect(refused.refusals).toEqual([
      `recorded call c-refund (step 2) to refund: its recorded arguments do not match version ${stricter.version}'s input schema`,
    ]);
    const withoutLookup = version('two', { tools: { refund: refund() } });
    const missing = await planMigration({ state: state(), agent: withoutLookup, differences: [field('toolNames')] });
    expect(missing.refusals).toEqual([`recorded call c-lookup (step 1) is to lookup, which version ${withoutLookup.version} does not have`]);
  });
});
