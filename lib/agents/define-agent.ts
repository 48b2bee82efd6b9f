/**
 * defineAgent: an agent is a name plus what runDurable needs to run it (model, tools, system prompt,
 * stop condition and any other generateText setting). The name is what a run records, so that any
 * process can find the same agent to resume it (`agents/index.ts` lists them); the version says
 * whether the definition still matches what a run was started with.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { EmbeddingModel, LanguageModel, ToolSet } from 'ai';
import { z } from 'zod';
import { type MemoryStore, type RunDurableOptions, resolveModel } from '@/lib/durable';
import { type AgentFingerprint, agentFingerprint, versionOf } from './agent-version';
import { AgentDefinitionError } from './errors';
import { problemsOf } from './problems';
import { type RetryPolicy, type RetryPolicyInput, resolveRetryPolicy, retryPolicySchema } from './retry-policy';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * What an agent fixes itself (model, tools, system), what each run supplies (runId, journal, prompt or
 * messages), and `instructions`, which the journal does not record (use `system`): none are settings.
 */
export type NotAgentSettings =
  | 'runId'
  | 'journal'
  | 'agent'
  | 'prompt'
  | 'messages'
  | 'model'
  | 'tools'
  | 'system'
  | 'instructions'
  | 'acceptChange'
  | 'memory'
  | 'knownEvents';

/**
 * An agent's memory (docs/memory.md): each run of it whose input names a `subject` (the resource) and a
 * `conversationId` (the thread) is given that thread's last messages and, with `recall`, the resource's
 * most similar items, and its turn is appended to the thread (runDurable's memory option). A run without
 * both is given no memory. Not part of the version.
 */
export interface AgentMemory {
  /**
   * The store: the journal's own (`storage.memory`), or a function that returns it on first use. Absent:
   * the store of whoever runs the run (an executor passes its storage's: runAgent's `memoryStore`), so an
   * agent defined without a database still remembers in the one its runs are journaled in.
   */
  store?: MemoryStore | (() => MemoryStore);
  lastMessages?: number;
  recall?: { embeddingModel: EmbeddingModel; topK?: number };
}

/**
 * What this definition, deployed as a new version, means for runs started on an earlier one
 * (version-change.ts): 'pinned' (the default) — they finish on their own version while it is registered
 * (and stop, stranded, when none of theirs is); 'continue' — this version takes them over at their next
 * step when the change is one a recorded run can absorb (system prompt, tools added or unused tools
 * removed; never a changed tool input schema or model).
 */
export type OnChange = 'continue' | 'pinned';

/** The other runDurable / generateText settings an agent may fix: stopWhen, temperature, maxOutputTokens, toolChoice, prepareStep, providerOptions, callbacks… */
export type AgentSettings<TOOLS extends ToolSet> = DistributiveOmit<RunDurableOptions<TOOLS>, NotAgentSettings>;

export type AgentDefinition<TOOLS extends ToolSet> = AgentSettings<TOOLS> & {
  /** Lower-case letters, digits and dashes, starting with a letter, at most 64 characters: it goes in runs, URLs and command lines. */
  name: string;
  /** One line for people (the Studio, `gnl` listings). */
  description?: string;
  /**
   * The model, or a function that returns it. A function is called once, on first use: choose a
   * provider from the environment there, so that importing the agent reads nothing and throws nothing.
   */
  model: LanguageModel | (() => LanguageModel);
  tools: TOOLS;
  /** The system prompt. Part of the version: a run started with one prompt does not resume with another (unless onChange is 'continue'). */
  system?: string;
  /** What this version means for open runs of an earlier one. Default 'pinned'. Not part of the version. */
  onChange?: OnChange;
  /**
   * How the executor retries a run that failed on a transient error (retry-policy.ts). Not part of the
   * version. Default { attempts: 5, initialDelayMs: 5 000, maxDelayMs: 300 000 }; `{ attempts: 1 }`: never.
   */
  retry?: RetryPolicyInput;
  /**
   * How long this agent's ended runs (completed or canceled) are kept, in whole days after their last
   * event; then the retention job drops them (lib/executor/retention/retention.ts). 'forever': never, whatever the
   * fleet default (GNL_RETENTION_DAYS). Default: the fleet default. The current version's applies. Not part of the version.
   */
  retentionDays?: number | 'forever';
  /** Memory across its runs (AgentMemory): keyed by each run's subject and conversationId. */
  memory?: AgentMemory;
};

/** `Agent` without a type argument is any agent: a registry holds agents of different tool sets. */
export interface Agent<TOOLS extends ToolSet = any> {
  readonly name: string;
  readonly description: string | undefined;
  readonly tools: TOOLS;
  readonly system: string | undefined;
  /** The model (a function given to defineAgent is called on first read). */
  readonly model: LanguageModelV4;
  /** The other runDurable settings, passed on every run. */
  readonly settings: AgentSettings<TOOLS>;
  /** The executor's retry policy for this agent's runs, defaults filled in. */
  readonly retry: RetryPolicy;
  /** How long its ended runs are kept (days, or 'forever'); undefined: the fleet default. */
  readonly retentionDays: number | 'forever' | undefined;
  /** Memory across its runs, if the definition gave it. */
  readonly memory: AgentMemory | undefined;
  /** What the version is computed from: tool names and input-schema hashes, model provider and id, system prompt. */
  readonly fingerprint: AgentFingerprint;
  /** 16 hex characters; equal definitions have equal versions in every process. */
  readonly version: string;
  /** What this version means for open runs of an earlier one ('pinned' unless the definition said 'continue'). */
  readonly onChange: OnChange;
}

const AGENT = Symbol.for('gnl.agent');

export const AGENT_NAME = /^[a-z][a-z0-9-]{0,63}$/;
/** Tool names every provider accepts. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Whole days, at least 1 and at most 100 years, or 'forever'. The fleet default (lib/executor retention-policy.ts) is checked by the same rule. */
export const retentionDaysSchema = z.union([z.number().int().min(1).max(36_500), z.literal('forever')], {
  error: "must be a whole number of days from 1 to 36500, or 'forever'",
});

const definitionSchema = z.object({
  name: z.string().regex(AGENT_NAME, 'must be lower-case letters, digits and dashes, starting with a letter, at most 64 characters'),
  description: z.string().optional(),
  model: z.custom<LanguageModel | (() => LanguageModel)>(
    (m) => typeof m === 'string' || typeof m === 'function' || (typeof m === 'object' && m !== null && 'doGenerate' in m),
    'must be a language model, a model id, or a function returning one',
  ),
  tools: z
    .record(
      z.string(),
      z.custom<object>((t) => typeof t === 'object' && t !== null && 'inputSchema' in t, 'must be a tool (from ai tool() or gnlTool())'),
    )
    .superRefine((tools, ctx) => {
      for (const name of Object.keys(tools)) {
        if (!TOOL_NAME.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'tool names are 1 to 64 letters, digits, _ or -' });
      }
    }),
  system: z.string().optional(),
  onChange: z.enum(['continue', 'pinned'], { error: "must be 'continue' or 'pinned'" }).optional(),
  instructions: z.undefined({ error: 'the journal records `system`, not `instructions`: use system' }).optional(),
  retry: retryPolicySchema.optional(),
  retentionDays: retentionDaysSchema.optional(),
  memory: z
    .object({
      store: z
        .custom<AgentMemory['store']>((v) => typeof v === 'function' || (typeof v === 'object' && v !== null), 'memory.store: a MemoryStore (storage.memory)')
        .optional(),
      lastMessages: z.number().int().min(0).max(100).optional(),
      recall: z.object({ embeddingModel: z.unknown(), topK: z.number().int().min(1).max(20).optional() }).optional(),
    })
    .optional(),
});

export function defineAgent<TOOLS extends ToolSet>(definition: AgentDefinition<TOOLS>): Agent<TOOLS> {
  const parsed = definitionSchema.safeParse(definition);
  if (!parsed.success) {
    const name = typeof (definition as { name?: unknown }).name === 'string' ? ` "${(definition as { name: string }).name}"` : '';
    throw new AgentDefinitionError({ what: `defineAgent${name}`, problems: problemsOf(parsed.error) });
  }
  const {
    name,
    description,
    model,
    tools,
    system,
    onChange = 'pinned',
    retry,
    retentionDays,
    memory,
    ...settings
  } = definition as AgentDefinition<TOOLS> & Record<string, unknown>;
  let resolved: LanguageModelV4 | undefined;
  let fingerprint: AgentFingerprint | undefined;
  const agent = {
    [AGENT]: true,
    name,
    description,
    tools,
    system,
    onChange,
    settings: Object.freeze(settings) as unknown as AgentSettings<TOOLS>,
    retry: resolveRetryPolicy(retry),
    retentionDays,
    memory,
    get model() {
      resolved ??= resolveModel(typeof model === 'function' ? model() : model);
      return resolved;
    },
    get fingerprint() {
      fingerprint ??= agentFingerprint({ model: agent.model, system, tools });
      return fingerprint;
    },
    get version() {
      return versionOf(agent.fingerprint);
    },
  };
  return Object.freeze(agent) as Agent<TOOLS>;
}

export function isAgent(value: unknown): value is Agent {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[AGENT] === true;
}
