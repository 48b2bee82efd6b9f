/**
 * An agent registry: the agents a deployment runs, by name. A run records its agent's name; whoever
 * resumes it (the Studio's server, a worker, the CLI) looks the name up here. The deployment's own
 * registry is `agents/index.ts`.
 */
import type { FlexibleSchema } from '@ai-sdk/provider-utils';
import type { Tool } from 'ai';
import { z } from 'zod';
import { type ToolDeclaration, toolDeclaration } from '@/lib/durable';
import { type Agent, AGENT_NAME, isAgent } from './define-agent';
import { AgentDefinitionError, AgentInputError, UnknownAgentError } from './errors';

export interface AgentRegistry {
  /** The agent registered under `name`; UnknownAgentError (naming the known ones) if none is. */
  getAgent(name: string): Agent;
  /** Every registered agent, sorted by name. */
  listAgents(): Agent[];
  hasAgent(name: string): boolean;
}

const nameSchema = z.string({ error: 'an agent name must be a string' }).min(1, 'an agent name must not be empty');

export function createAgentRegistry(agents: readonly Agent[]): AgentRegistry {
  const byName = new Map<string, Agent>();
  const problems: string[] = [];
  agents.forEach((agent, index) => {
    if (!isAgent(agent)) problems.push(`agents[${index}] is not an Agent made by defineAgent`);
    else if (byName.has(agent.name)) problems.push(`two agents are named "${agent.name}"`);
    else byName.set(agent.name, agent);
  });
  if (problems.length > 0) throw new AgentDefinitionError({ what: 'createAgentRegistry', problems });
  const sorted = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));

  return {
    getAgent(name) {
      const parsed = nameSchema.safeParse(name);
      if (!parsed.success) throw new AgentInputError({ what: 'getAgent', problems: parsed.error.issues.map((i) => i.message) });
      const agent = byName.get(parsed.data);
      if (agent) return agent;
      throw new UnknownAgentError({
        agentName: parsed.data,
        known: sorted.map((a) => a.name),
        ...(AGENT_NAME.test(parsed.data) ? {} : { hint: 'names are lower-case letters, digits and dashes' }),
      });
    },
    listAgents: () => [...sorted],
    hasAgent: (name) => typeof name === 'string' && byName.has(name),
  };
}

/**
 * The output schema of `toolName` in the agent registered as `agentName` (the name a run records), or
 * undefined: no such agent, no such tool, or a tool without one (then any JSON is accepted). The one
 * place the Studio, the CLI and code find what an output an operator gives must match.
 */
export function toolOutputSchema(registry: AgentRegistry, agentName: string | undefined, toolName: string): FlexibleSchema<unknown> | undefined {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  const tool = (registry.getAgent(agentName).tools as Record<string, { outputSchema?: FlexibleSchema<unknown> } | undefined>)[toolName];
  return tool?.outputSchema;
}

/**
 * How each tool of a registered agent is declared (the core's toolDeclaration), by name: what the run
 * projection's plan (planResume) decides with. Undefined when the run names no registered agent.
 */
export function toolDeclarations(registry: AgentRegistry, agentName: string | undefined): Record<string, ToolDeclaration> | undefined {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  const tools = registry.getAgent(agentName).tools as Record<string, Tool>;
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, toolDeclaration(tool)]));
}
