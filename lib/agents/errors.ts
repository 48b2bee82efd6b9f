/**
 * The agent layer's errors. They are GnlErrors (recognised across bundles with `isInstance`), each
 * carrying what the caller needs to act: the unknown name and the known ones, or the list of problems.
 */
import { GnlError } from '@/lib/durable';

function hasName<T>(name: string) {
  return (error: unknown): error is T => GnlError.isInstance(error) && error.name === name;
}

/** No agent is registered under this name. */
export class UnknownAgentError extends GnlError {
  override name = 'UnknownAgentError';
  readonly agentName: string;
  /** The names the registry knows, sorted. */
  readonly known: string[];
  constructor(args: { agentName: string; known: string[]; hint?: string }) {
    const known = args.known.length > 0 ? args.known.map((n) => `"${n}"`).join(', ') : 'none';
    super(`No agent is registered as "${args.agentName}". Known agents: ${known}.${args.hint ? ` (${args.hint})` : ''}`);
    this.agentName = args.agentName;
    this.known = args.known;
  }
  static override isInstance = hasName<UnknownAgentError>('UnknownAgentError');
}

/** defineAgent or createAgentRegistry was given something it cannot use (a bad name, no model, a duplicate). */
export class AgentDefinitionError extends GnlError {
  override name = 'AgentDefinitionError';
  readonly problems: string[];
  constructor(args: { what: string; problems: string[] }) {
    super(`${args.what}: ${args.problems.join('; ')}`);
    this.problems = args.problems;
  }
  static override isInstance = hasName<AgentDefinitionError>('AgentDefinitionError');
}

/** runAgent or getAgent was called with input it refuses (an empty prompt, no runId, a setting that belongs to the agent). Nothing was run. */
export class AgentInputError extends GnlError {
  override name = 'AgentInputError';
  readonly problems: string[];
  constructor(args: { what: string; problems: string[] }) {
    super(`${args.what}: ${args.problems.join('; ')}`);
    this.problems = args.problems;
  }
  static override isInstance = hasName<AgentInputError>('AgentInputError');
}
