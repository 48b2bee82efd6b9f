/**
 * A scripted language model for tests: a real LanguageModelV4 (the SDK's MockLanguageModelV4) whose
 * answer for each step is given by a script, with its calls counted, so tests can assert that
 * replayed steps do not reach the model.
 */
import type { LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

export type ScriptedStep = { text: string } | { toolCalls: { toolCallId: string; toolName: string; input: unknown }[] };

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

export function stepResult(step: ScriptedStep, stepNumber = 0): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] =
    'text' in step
      ? [{ type: 'text', text: step.text }]
      : step.toolCalls.map((call) => ({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: JSON.stringify(call.input) }));
  return {
    content,
    finishReason: { unified: 'text' in step ? 'stop' : 'tool-calls', raw: undefined },
    usage,
    warnings: [],
    response: { id: `resp-${stepNumber}`, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, stepNumber)), modelId: 'scripted' },
  };
}

export interface ScriptedModel {
  model: MockLanguageModelV4;
  /** How many times the model was really called. */
  calls(): number;
  /** The prompt of every real call, in order. */
  prompts: unknown[][];
}

/** `script(stepNumber)` answers the n-th model call (0-based) of a run. */
export function scriptedModel(script: (stepNumber: number) => ScriptedStep): ScriptedModel {
  let calls = 0;
  const prompts: unknown[][] = [];
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-v1',
    doGenerate: async (options) => {
      calls += 1;
      prompts.push(options.prompt);
      // The step number is the number of assistant messages already in the prompt.
      const stepNumber = options.prompt.filter((m) => m.role === 'assistant').length;
      return stepResult(script(stepNumber), stepNumber);
    },
  });
  return { model, calls: () => calls, prompts };
}
