/**
 * runAgent: runDurable with an agent's definition. The run records the agent's name in its start
 * input (beside the prompt or messages, system, model and tool schemas), so a later call with a
 * changed agent is refused by runDurable with RunDivergedError naming each changed field, instead of
 * replaying a history the new definition would not have written.
 *
 * Input is checked here, at the edge, before anything touches the journal: a bad request is an
 * AgentInputError listing every problem.
 */
import { type ModelMessage, modelMessageSchema, type ToolSet } from 'ai';
import { z } from 'zod';
import {
  assertValidRunId,
  type DurableResult,
  type Journal,
  MAX_CONVERSATION_ID_LENGTH,
  type MemoryStore,
  type RunDurableOptions,
  type RunMemory,
  runDurable,
  type StreamDurableOptions,
  type StreamDurableResult,
  streamDurable,
} from '@/lib/durable';
import { type Agent, type AgentSettings, isAgent, type NotAgentSettings } from './define-agent';
import { AgentInputError } from './errors';
import { problemsOf } from './problems';
import { acceptChangeOf } from './version-change';

/**
 * What a run is asked: one prompt, or a conversation so far. Recorded in the run's start input, with the
 * conversation the run is one turn of when it is a chat's (conversationId).
 */
export type AgentInput = ({ prompt: string } | { messages: ModelMessage[] }) & { conversationId?: string; subject?: string };

export type RunAgentOptions<TOOLS extends ToolSet> = Partial<AgentSettings<TOOLS>> & {
  agent: Agent<TOOLS>;
  /** Names the job: the first attempt and every resume pass the same runId (1 to 512 printable characters). */
  runId: string;
  input: AgentInput;
  journal: Journal;
  /** Where an agent whose memory names no store of its own remembers: an executor passes its storage's (`storage.memory`). */
  memoryStore?: MemoryStore;
  /** The run's events as the caller has just read them (runDurable's `knownEvents`): an executor passes what it read. */
  knownEvents?: RunDurableOptions<TOOLS>['knownEvents'];
};

const notBlank = (what: string) => z.string().refine((s) => s.trim().length > 0, `${what} must not be empty`);

const conversationIdSchema = z
  .string()
  .min(1, 'conversationId must not be empty')
  .max(MAX_CONVERSATION_ID_LENGTH, `conversationId is at most ${MAX_CONVERSATION_ID_LENGTH} characters`)
  .optional();

const subjectSchema = z
  .string()
  .min(1, 'subject must not be empty')
  .max(MAX_CONVERSATION_ID_LENGTH, `subject is at most ${MAX_CONVERSATION_ID_LENGTH} characters`)
  .optional();

export const agentInputSchema = z.union(
  [
    z.strictObject({ prompt: notBlank('the prompt'), conversationId: conversationIdSchema, subject: subjectSchema }),
    z.strictObject({
      messages: z.array(modelMessageSchema).min(1, 'messages must not be empty'),
      conversationId: conversationIdSchema,
      subject: subjectSchema,
    }),
  ],
  { error: 'input must be { prompt: string } or { messages: ModelMessage[] }' },
);

const runIdSchema = z.string({ error: 'runId must be a string' }).superRefine((runId, ctx) => {
  try {
    assertValidRunId(runId);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const requestSchema = z.object({
  agent: z.custom<Agent>(isAgent, 'agent must be an Agent made by defineAgent'),
  runId: runIdSchema,
  input: agentInputSchema,
  journal: z.custom<Journal>((j) => typeof j === 'object' && j !== null && typeof (j as Journal).hold === 'function', 'journal must be a Journal'),
  memoryStore: z
    .custom<MemoryStore>((m) => typeof m === 'object' && m !== null && typeof (m as MemoryStore).history === 'function', 'memoryStore must be a MemoryStore')
    .optional(),
});

/** What the agent or the input fixes: given beside them, runAgent refuses instead of letting one silently win. */
const AGENT_OWNED: readonly NotAgentSettings[] = ['prompt', 'messages', 'model', 'tools', 'system', 'instructions', 'memory'];

/** Validates a runAgent request; AgentInputError lists every problem. */
export function parseRunAgentRequest(options: Record<string, unknown>): void {
  const problems: string[] = [];
  const parsed = requestSchema.safeParse(options);
  if (!parsed.success) problems.push(...problemsOf(parsed.error));
  for (const key of AGENT_OWNED) {
    if (options[key] !== undefined) problems.push(`${key}: belongs to the agent definition or the input; runAgent does not take it`);
  }
  if (problems.length > 0) throw new AgentInputError({ what: 'runAgent refused the request', problems });
}

export async function runAgent<TOOLS extends ToolSet>(options: RunAgentOptions<TOOLS>): Promise<DurableResult<TOOLS>> {
  parseRunAgentRequest(options as Record<string, unknown>);
  return runDurable(durableOptionsOf(options) as RunDurableOptions<TOOLS>);
}

export type StreamAgentOptions<TOOLS extends ToolSet> = RunAgentOptions<TOOLS> &
  Pick<StreamDurableOptions<TOOLS>, 'resumable' | 'onChunk' | 'onError' | 'onAbort'>;

/**
 * streamAgent: streamDurable with an agent's definition, the same run as runAgent's (one record: either
 * may resume what the other began). Returns streamText's result plus `durable`; with `resumable` the
 * stream is also written to the run's stream log for clients that reconnect (followRunStream).
 */
export function streamAgent<TOOLS extends ToolSet>(options: StreamAgentOptions<TOOLS>): StreamDurableResult<TOOLS> {
  parseRunAgentRequest(options as Record<string, unknown>);
  return streamDurable(durableOptionsOf(options) as StreamDurableOptions<TOOLS>);
}

/**
 * The agent's memory for a run of this input: its subject's, in its conversation's thread; none without
 * both. `given`: the store for an agent whose memory names none (an executor's storage's). startRun uses
 * it too, to record the memory a run is given in the run-start it writes.
 */
export function agentRunMemory(agent: Agent, input: AgentInput, given: MemoryStore | undefined): RunMemory | undefined {
  const { memory } = agent;
  if (!memory || input.subject === undefined || input.conversationId === undefined) return undefined;
  const store = memory.store === undefined ? given : typeof memory.store === 'function' ? memory.store() : memory.store;
  if (!store)
    throw new AgentInputError({
      what: `runAgent cannot give agent "${agent.name}" its memory`,
      problems: ['its memory names no store, and this call was given none (memoryStore: an executor passes its storage’s)'],
    });
  return {
    store,
    resource: input.subject,
    thread: input.conversationId,
    ...(memory.lastMessages !== undefined ? { lastMessages: memory.lastMessages } : {}),
    ...(memory.recall ? { recall: memory.recall } : {}),
  };
}

function durableOptionsOf<TOOLS extends ToolSet>(options: RunAgentOptions<TOOLS>): Record<string, unknown> {
  const { agent, runId, input, journal, memoryStore, ...overrides } = options;
  const memory = agentRunMemory(agent, input, memoryStore);
  return {
    ...(memory ? { memory } : {}),
    ...agent.settings,
    ...overrides,
    runId,
    journal,
    ...input,
    agent: agent.name,
    agentVersion: agent.version,
    model: agent.model,
    tools: agent.tools,
    ...(agent.system !== undefined ? { system: agent.system } : {}),
    // onChange 'continue': this version takes over a run of an earlier one when it absorbs the change.
    ...(agent.onChange === 'continue' ? { acceptChange: acceptChangeOf(agent) } : {}),
  };
}
