/**
 * The benchmark's agent: a zero-latency scripted model that asks for one
 * side-effecting tool call per step for `steps` steps, then answers. The tool does nothing (zero
 * latency). The same agent runs with plain `generateText` and with `runDurable`, so the difference is
 * what durability costs.
 *
 * `stopAt`: the model throws at that step (no retry): a run recorded up to there is resumable and a
 * resume stops as soon as it reaches its first unrecorded step (figure 2).
 */
import type { LanguageModelV4, LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { createAgentRegistry, defineAgent } from '../lib/agents';
import { gnlTool, type Journal, runDurable } from '../lib/durable';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

export class UnrecordedStepReached extends Error {
  constructor(readonly step: number) {
    super(`bench: the model was asked for step ${step}, the first unrecorded one`);
    this.name = 'UnrecordedStepReached';
  }
}

function answer(step: number, steps: number): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] =
    step < steps
      ? [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: 'record', input: JSON.stringify({ item: `item-${step}`, amount: step }) }]
      : [{ type: 'text', text: 'Done.' }];
  return {
    content,
    finishReason: { unified: step < steps ? 'tool-calls' : 'stop', raw: undefined },
    usage,
    warnings: [],
    response: { id: `resp-${step}`, timestamp: new Date(Date.UTC(2026, 0, 1)), modelId: 'bench-v1' },
  };
}

export interface BenchAgentOptions {
  /** Model steps with a tool call; one more step answers. */
  steps: number;
  /** Throw at this model step (the first unrecorded one of a resume). */
  stopAt?: number;
  /** Called when the model is asked for a step (replayed steps never reach it). */
  onModelCall?: (step: number) => void;
  /** Called when the tool really executes (replayed calls never do). */
  onExecute?: (step: number) => void;
}

export function benchAgent(options: BenchAgentOptions) {
  const { steps, stopAt, onModelCall, onExecute } = options;
  // A zero-latency provider. Not the SDK's MockLanguageModelV4: that one keeps every call's options, so
  // a run of N steps held N prompts of up to N messages (767 MB at 2,000 steps, out of heap before 10,000).
  const model: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'bench-v1',
    supportedUrls: {},
    doGenerate: async (call) => {
      const step = call.prompt.filter((m) => m.role === 'assistant').length;
      onModelCall?.(step);
      if (stopAt !== undefined && step >= stopAt) throw new UnrecordedStepReached(step);
      return answer(step, steps);
    },
    doStream: async () => {
      throw new Error('bench: the bench agent does not stream');
    },
  };
  let executed = 0;
  const record = gnlTool(
    tool({
      description: 'Records an item in the outside system (a side effect).',
      inputSchema: z.object({ item: z.string(), amount: z.number() }),
      execute: async ({ item, amount }) => {
        executed += 1;
        onExecute?.(amount);
        return { recorded: item };
      },
    }),
    { sideEffect: true },
  );
  return {
    model,
    tools: { record },
    stopWhen: stepCountIs(steps + 1),
    prompt: 'Record every item.',
    maxRetries: 0,
    executed: () => executed,
  };
}

/** The agent with plain generateText (no journal). */
export async function runPlain(steps: number): Promise<void> {
  const { executed, ...agent } = benchAgent({ steps });
  const result = await generateText(agent);
  if (result.steps.length !== steps + 1 || executed() !== steps) throw new Error(`bench: plain run took ${result.steps.length} steps`);
}

/** The same agent with runDurable; throws unless it completed with every step. */
export async function runJournaled(journal: Journal, runId: string, steps: number, hooks: Omit<BenchAgentOptions, 'steps'> = {}): Promise<void> {
  const { executed, ...agent } = benchAgent({ steps, ...hooks });
  const result = await runDurable({ ...agent, runId, journal });
  if (result.status !== 'completed' || result.steps.length !== steps + 1 || executed() !== steps) {
    throw new Error(`bench: durable run ${runId} ended ${result.status} after ${'steps' in result ? result.steps.length : '?'} steps`);
  }
}

/** The agent as the executor layer runs it (workers, startRun): registered as `bench`. */
export function benchAgentDefinition(steps = 20) {
  const { model, tools, stopWhen, maxRetries } = benchAgent({ steps });
  return defineAgent({
    name: 'bench',
    description: 'The benchmark agent: one side-effecting call per step, zero-latency model.',
    model,
    tools,
    stopWhen,
    maxRetries,
  });
}

export const benchRegistry = (steps = 20) => createAgentRegistry([benchAgentDefinition(steps)]);
