/**
 * A run's start input as runAgent → runDurable records it (`run-start`), built without running
 * anything, so that startRun can enqueue a run that any executor later resumes with the same agent, and
 * compare a repeated start with the recorded one field by field. The building and the comparison are
 * the core's own (run-input.ts), so an enqueued run and a run started by runAgent are one and the same.
 */
import type { ToolSet } from 'ai';
import type { Agent, AgentInput } from '@/lib/agents';
import { DEFAULT_MAX_STEPS, type Divergence, type RunInput } from '@/lib/durable';
// The core does not export these yet (asked for: buildRunInput and runInputDifferences on its public
// surface); this file is the only place above the core that reaches in.
import { buildRunInput, runInputDifferences } from '@/lib/durable';

export function startInputOf(agent: Agent, input: AgentInput): Promise<RunInput> {
  return buildRunInput({
    source: {
      agent: agent.name,
      agentVersion: agent.version,
      ...input,
      tools: agent.tools as ToolSet,
      ...(agent.system !== undefined ? { system: agent.system } : {}),
    },
    model: agent.model,
    defaultStepLimit: (agent.settings as { stopWhen?: unknown }).stopWhen === undefined ? DEFAULT_MAX_STEPS : undefined,
  });
}

export function startInputDifferences(recorded: RunInput, given: RunInput): Divergence[] {
  return runInputDifferences(recorded, given);
}

/**
 * What `agent` (another version of the run's agent) would record for this recorded run: its start input
 * for the same prompt, with what belongs to the run and not to a version carried over: its memory record
 * (when that version has memory: the same resource and thread, from the run's subject and conversation;
 * the messages it was given are the run's record), and its parent link (the call or wait it answers).
 * How a run's version is chosen (run-version.ts) and what a migration records (migrate-run.ts).
 */
export async function versionStartInput(agent: Agent, recorded: RunInput): Promise<RunInput> {
  const built = await startInputOf(agent, agentInputOf(recorded));
  const remembers = agent.memory !== undefined && recorded.subject !== undefined && recorded.conversationId !== undefined;
  const memory = remembers ? (recorded.memory ?? { resource: recorded.subject as string, thread: recorded.conversationId as string, messages: [] }) : undefined;
  return { ...built, ...(memory ? { memory } : {}), ...(recorded.parent ? { parent: recorded.parent } : {}) };
}

/** The input a recorded run was started with, as runAgent takes it again. */
export function agentInputOf(recorded: RunInput): AgentInput {
  const conversation = {
    ...(recorded.conversationId !== undefined ? { conversationId: recorded.conversationId } : {}),
    ...(recorded.subject !== undefined ? { subject: recorded.subject } : {}),
  };
  if (recorded.messages !== undefined) return { messages: recorded.messages as Extract<AgentInput, { messages: unknown }>['messages'], ...conversation };
  return { prompt: recorded.prompt as string, ...conversation };
}
