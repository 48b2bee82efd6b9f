/**
 * The agent every system runs: GNL's benchmark agent (bench/agent.ts), a zero-latency scripted model
 * that asks for one side-effecting `record` call per step for 20 steps, then answers. Here the tool's
 * effect is pluggable (the crash scenario counts it at an outside counter), so each system wraps the
 * same model and the same tool its own way.
 *
 * Checkpoints per run: 21 model calls (20 with a tool call, then the answer) + 20 tool calls = 41.
 */
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { benchAgent } from '../agent';

export const STEPS = 20;
export const CHECKPOINTS = 2 * STEPS + 1;
export const PROMPT = 'Record every item.';

/** What the tool does besides answering (nothing in the timed runs). */
export type Effect = (step: number) => Promise<void>;

export function scriptedModel() {
  return benchAgent({ steps: STEPS }).model;
}

export function recordTool(effect?: Effect) {
  return tool({
    description: 'Records an item in the outside system (a side effect).',
    inputSchema: z.object({ item: z.string(), amount: z.number() }),
    execute: async ({ item, amount }) => {
      await effect?.(amount);
      return { recorded: item };
    },
  });
}

export const loopSettings = { stopWhen: stepCountIs(STEPS + 1), prompt: PROMPT, maxRetries: 0 } as const;

/** The finished run as every system reports it: checked the same way. */
export interface AgentAnswer {
  text: string;
  steps: number;
}

export function checkAnswer(system: string, answer: AgentAnswer): AgentAnswer {
  if (answer.text !== 'Done.' || answer.steps !== STEPS + 1) {
    throw new Error(`${system}: the agent ended with ${answer.steps} steps and text ${JSON.stringify(answer.text)}`);
  }
  return answer;
}

/** The same agent with plain generateText: no durability. */
export async function runPlain(): Promise<AgentAnswer> {
  const result = await generateText({ model: scriptedModel(), tools: { record: recordTool() }, ...loopSettings });
  return checkAnswer('plain', { text: result.text, steps: result.steps.length });
}
