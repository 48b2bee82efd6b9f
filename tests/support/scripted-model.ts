/**
 * A scripted language model for tests: a real LanguageModelV4 (the SDK's MockLanguageModelV4) whose
 * answer for each step is given by a script, with its calls counted, so tests can assert that
 * replayed steps do not reach the model.
 */
import type { LanguageModelV4Content, LanguageModelV4GenerateResult, LanguageModelV4Prompt, LanguageModelV4StreamPart } from '@ai-sdk/provider';
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

/** `script(stepNumber, prompt)` answers the n-th model call (0-based) of a run; `prompt` is what the model was sent. */
export function scriptedModel(script: (stepNumber: number, prompt: LanguageModelV4Prompt) => ScriptedStep): ScriptedModel {
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
      return stepResult(script(stepNumber, options.prompt), stepNumber);
    },
  });
  return { model, calls: () => calls, prompts };
}

/** The stream parts a provider would send for a scripted step: text in small deltas, each call's input then the call, the finish. */
export function streamParts(step: ScriptedStep, stepNumber = 0): LanguageModelV4StreamPart[] {
  const result = stepResult(step, stepNumber);
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'response-metadata', id: `resp-${stepNumber}`, modelId: 'scripted' },
  ];
  for (const part of result.content) {
    if (part.type === 'text') {
      parts.push({ type: 'text-start', id: 't0' });
      for (let i = 0; i < part.text.length; i += 4) parts.push({ type: 'text-delta', id: 't0', delta: part.text.slice(i, i + 4) });
      parts.push({ type: 'text-end', id: 't0' });
    } else if (part.type === 'tool-call') {
      parts.push({ type: 'tool-input-start', id: part.toolCallId, toolName: part.toolName });
      parts.push({ type: 'tool-input-delta', id: part.toolCallId, delta: part.input });
      parts.push({ type: 'tool-input-end', id: part.toolCallId });
      parts.push(part);
    }
  }
  parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
  return parts;
}

/**
 * The scripted model streaming (doStream): each step's parts, or, when `fault` says so for a call (1-based,
 * counting every real call), a stream that sends the step's parts up to the finish and then fails.
 */
export function streamingModel(script: (stepNumber: number) => ScriptedStep, fault?: (call: number) => 'fail-before-finish' | undefined): ScriptedModel {
  let calls = 0;
  const prompts: unknown[][] = [];
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'scripted-v1',
    doStream: async (options) => {
      calls += 1;
      prompts.push(options.prompt);
      const stepNumber = options.prompt.filter((m) => m.role === 'assistant').length;
      const parts = streamParts(script(stepNumber), stepNumber);
      const failing = fault?.(calls) === 'fail-before-finish';
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of failing ? parts.slice(0, -1) : parts) controller.enqueue(part);
            if (failing) controller.error(Object.assign(new Error('connection reset mid-stream'), { name: 'ECONNRESET' }));
            else controller.close();
          },
        }),
      };
    },
  });
  return { model, calls: () => calls, prompts };
}
