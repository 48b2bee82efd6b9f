/**
 * The AI SDK's ToolLoopAgent, durable: the same settings (model, instructions, tools, stopWhen, output,
 * toolApproval, prepareStep, …) given once, and each call names its run. `generate` is runDurable and
 * `stream` is streamDurable with the agent's settings under the call's own (a call's `prompt` or
 * `messages`, and any setting it overrides). As with ToolLoopAgent, the default is 20 steps.
 *
 *   const support = new DurableAgent({ model, instructions: 'You are a support agent.', tools, journal });
 *   const done = await support.generate({ runId: `ticket:${id}`, prompt });
 *   const live = support.stream({ runId: `chat:${turnId}`, messages });  // live.textStream, live.durable
 */
import type { ToolSet } from 'ai';
import type { Journal } from '../journal/journal';
import { type DurableResult, type RunDurableOptions, runDurable } from './run-durable';
import { type StreamDurableOptions, type StreamDurableResult, streamDurable } from '../stream/stream-durable';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What the agent is given once: runDurable's options without a run or a prompt; `journal` may be given per call instead. */
export type DurableAgentSettings<TOOLS extends ToolSet> = DistributiveOmit<RunDurableOptions<TOOLS>, 'runId' | 'journal' | 'prompt' | 'messages'> & {
  /** The agent's id (informational, like ToolLoopAgent's). */
  id?: string;
  journal?: Journal;
};

/** One call: the run it names, its prompt or messages, and any setting it overrides. */
export type DurableAgentCall<TOOLS extends ToolSet> = { runId: string; journal?: Journal } & (
  | { prompt: RunDurableOptions<TOOLS>['prompt']; messages?: never }
  | { messages: RunDurableOptions<TOOLS>['messages']; prompt?: never }
) &
  Partial<DistributiveOmit<RunDurableOptions<TOOLS>, 'runId' | 'journal' | 'prompt' | 'messages'>>;

export class DurableAgent<TOOLS extends ToolSet = ToolSet> {
  readonly version = 'durable-agent-v1';
  constructor(private readonly settings: DurableAgentSettings<TOOLS>) {}

  get id(): string | undefined {
    return this.settings.id;
  }

  get tools(): TOOLS {
    return (this.settings.tools ?? {}) as TOOLS;
  }

  /** runDurable with the agent's settings: resolves and rejects exactly as runDurable does. */
  generate(call: DurableAgentCall<TOOLS>): Promise<DurableResult<TOOLS>> {
    return runDurable(this.options(call));
  }

  /** streamDurable with the agent's settings: streamText's result plus `durable`. */
  stream(call: DurableAgentCall<TOOLS> & Partial<Pick<StreamDurableOptions<TOOLS>, 'onChunk' | 'onError' | 'onAbort'>>): StreamDurableResult<TOOLS> {
    return streamDurable(this.options(call) as StreamDurableOptions<TOOLS>);
  }

  private options(call: DurableAgentCall<TOOLS>): RunDurableOptions<TOOLS> {
    const { id: _id, journal: ownJournal, ...settings } = this.settings;
    const journal = call.journal ?? ownJournal;
    if (!journal) throw new TypeError(`DurableAgent${this.settings.id ? ` ${this.settings.id}` : ''}: no journal: give one to the agent or to the call.`);
    return { ...settings, ...call, journal } as unknown as RunDurableOptions<TOOLS>;
  }
}
