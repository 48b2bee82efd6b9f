/**
 * A sub-agent as a tool (docs/workflows.md, "Sub-agents"): the model hands a task to another registered
 * agent, which runs as a child run of its own, with a parent link, its own steps, approvals and side
 * effects, visible and decided like any run's. Like askPerson the tool has no execute: the parent run
 * waits (waiting-tool-result) holding no worker; the executor starts the child, and when the child
 * settles it gives the parent the child's outcome as the call's result, through the journal
 * (provideToolResult, by "run <child>"), and wakes it (lib/executor/sub-agents.ts).
 */
import { type Tool, tool } from 'ai';
import { z } from 'zod';

const SUB_AGENT = Symbol.for('gnl.subAgent');

export const subAgentInput = z.object({ task: z.string().min(1).describe('What the sub-agent is to do, with everything it needs to know') });

/** What the parent's model gets back: the child's answer, or why there is none. */
export const subAgentOutput = z.object({
  runId: z.string(),
  status: z.enum(['completed', 'failed', 'canceled']),
  answer: z.string().optional(),
  error: z.string().optional(),
});
export type SubAgentOutput = z.infer<typeof subAgentOutput>;

export interface SubAgentDeclaration {
  /** The registered agent the child run runs. */
  agent: string;
}

export function subAgentTool(args: { agent: string; description: string }): Tool<z.infer<typeof subAgentInput>, SubAgentOutput> {
  if (typeof args?.agent !== 'string' || args.agent.length === 0) throw new TypeError('subAgentTool: give the registered name of the agent it runs (agent).');
  // No execute: the SDK's loop leaves the call unanswered and the run waits for its result, as for askPerson.
  const made = tool({ description: args.description, inputSchema: subAgentInput, outputSchema: subAgentOutput } as never) as Tool<
    z.infer<typeof subAgentInput>,
    SubAgentOutput
  >;
  Object.defineProperty(made, SUB_AGENT, { value: Object.freeze({ agent: args.agent }), enumerable: false });
  return made;
}

/** The sub-agent a tool runs, if it is a subAgentTool. */
export function subAgentOf(value: unknown): SubAgentDeclaration | undefined {
  return typeof value === 'object' && value !== null ? ((value as Record<symbol, SubAgentDeclaration | undefined>)[SUB_AGENT] ?? undefined) : undefined;
}

/** A child's runId for a call: the job's, so a resumed or replayed parent finds the same child. */
export function subAgentRunId(parentRunId: string, toolCallId: string): string {
  return `${parentRunId}/${toolCallId}`;
}
