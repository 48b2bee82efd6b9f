/**
 * An agent registry: the agents a deployment runs, by name. A run records its agent's name; whoever
 * resumes it (the Studio's server, a worker, the CLI) looks the name up here. The deployment's own
 * registry is `agents/index.ts`.
 */
import type { FlexibleSchema } from '@ai-sdk/provider-utils';
import type { Tool } from 'ai';
import { z } from 'zod';
import { isWorkflow, type ToolDeclaration, toolDeclaration, toolLookup, type Workflow } from '@/lib/durable';
import { type Agent, AGENT_NAME, isAgent } from './define-agent';
import { AgentDefinitionError, AgentInputError, UnknownAgentError } from './errors';

export interface AgentRegistry {
  /** The current version of the agent registered under `name`; UnknownAgentError (naming the known ones) if none is. */
  getAgent(name: string): Agent;
  /** Every registered agent's current version, sorted by name. */
  listAgents(): Agent[];
  hasAgent(name: string): boolean;
  /** Every registered version of `name`, in the order given (oldest first); empty when none is registered. */
  listVersions(name: string): Agent[];
  /** The registered version of `name` whose version string is `version`, or undefined. */
  findVersion(name: string, version: string): Agent | undefined;
  /**
   * The workflow registered under `name` (lib/durable/workflow): the version `version` when registered,
   * else the current one (the last listed); UnknownAgentError naming the known workflows if none is.
   */
  getWorkflow(name: string, version?: string): Workflow;
  hasWorkflow(name: string): boolean;
  /** Every registered workflow's current version, sorted by name. */
  listWorkflows(): Workflow[];
  /** Every registered version of the workflow `name`, in registration order (the last is the current one). */
  listWorkflowVersions(name: string): Workflow[];
}

export interface AgentRegistryOptions {
  /**
   * The version new runs of an agent start on, by agent name. Default: the version listed last under
   * that name. Runs started on another registered version stay on it (pinned) unless the current one
   * declares onChange 'continue'.
   */
  current?: Record<string, string>;
  /** The workflows this deployment runs (defineWorkflow), several versions of one side by side allowed. A name is an agent's or a workflow's, not both. */
  workflows?: readonly Workflow[];
}

const nameSchema = z.string({ error: 'an agent name must be a string' }).min(1, 'an agent name must not be empty');

/**
 * The registry of `agents`. Several versions of one agent may be listed side by side (one entry per
 * version: listing the same version twice is refused); runs record the version they started on.
 */
export function createAgentRegistry(agents: readonly Agent[], options: AgentRegistryOptions = {}): AgentRegistry {
  const versions = new Map<string, Agent[]>();
  const problems: string[] = [];
  for (const [index, agent] of agents.entries()) {
    if (!isAgent(agent)) {
      problems.push(`agents[${index}] is not an Agent made by defineAgent`);
      continue;
    }
    const listed = versions.get(agent.name) ?? [];
    // Two definitions with one version would be two agents under one name: which one resumes a run?
    if (listed.some((other) => other.version === agent.version)) problems.push(`two agents are named "${agent.name}" with the same version ${agent.version}`);
    else versions.set(agent.name, [...listed, agent]);
  }
  const current = new Map<string, Agent>();
  for (const [name, listed] of versions) current.set(name, listed.at(-1) as Agent);
  for (const [name, version] of Object.entries(options.current ?? {})) {
    const chosen = versions.get(name)?.find((agent) => agent.version === version);
    if (chosen) current.set(name, chosen);
    else
      problems.push(
        `current: "${name}" has no registered version ${version}${
          versions.has(name)
            ? ` (registered: ${versions
                .get(name)
                ?.map((a) => a.version)
                .join(', ')})`
            : ''
        }`,
      );
  }
  const workflowVersions = new Map<string, Workflow[]>();
  for (const [index, workflow] of (options.workflows ?? []).entries()) {
    if (!isWorkflow(workflow)) {
      problems.push(`workflows[${index}] is not a Workflow made by defineWorkflow`);
      continue;
    }
    if (versions.has(workflow.name)) problems.push(`"${workflow.name}" is registered as an agent and as a workflow`);
    const listed = workflowVersions.get(workflow.name) ?? [];
    if (listed.some((other) => other.version === workflow.version))
      problems.push(`two workflows are named "${workflow.name}" with the same version ${workflow.version}`);
    else workflowVersions.set(workflow.name, [...listed, workflow]);
  }
  if (problems.length > 0) throw new AgentDefinitionError({ what: 'createAgentRegistry', problems });
  const sorted = [...current.values()].sort((a, b) => a.name.localeCompare(b.name));
  const currentWorkflows = [...workflowVersions.values()].map((listed) => listed.at(-1) as Workflow).sort((a, b) => a.name.localeCompare(b.name));

  return {
    getAgent(name) {
      const parsed = nameSchema.safeParse(name);
      if (!parsed.success) throw new AgentInputError({ what: 'getAgent', problems: parsed.error.issues.map((i) => i.message) });
      const agent = current.get(parsed.data);
      if (agent) return agent;
      throw new UnknownAgentError({
        agentName: parsed.data,
        known: sorted.map((a) => a.name),
        ...(AGENT_NAME.test(parsed.data) ? {} : { hint: 'names are lower-case letters, digits and dashes' }),
      });
    },
    listAgents: () => [...sorted],
    hasAgent: (name) => typeof name === 'string' && current.has(name),
    listVersions: (name) => [...(versions.get(name) ?? [])],
    findVersion: (name, version) => versions.get(name)?.find((agent) => agent.version === version),
    getWorkflow(name, version) {
      const listed = typeof name === 'string' ? workflowVersions.get(name) : undefined;
      const workflow = (version !== undefined ? listed?.find((w) => w.version === version) : undefined) ?? listed?.at(-1);
      if (workflow) return workflow;
      throw new UnknownAgentError({ agentName: String(name), known: currentWorkflows.map((w) => w.name), hint: 'no workflow is registered under this name' });
    },
    hasWorkflow: (name) => typeof name === 'string' && workflowVersions.has(name),
    listWorkflows: () => [...currentWorkflows],
    listWorkflowVersions: (name) => [...(workflowVersions.get(name) ?? [])],
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

/** How a registered agent's tool looks up what the outside system holds under a key (gnlTool's `lookup`), if it says. */
export function toolLookupOf(registry: AgentRegistry, agentName: string | undefined, toolName: string) {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  const tool = (registry.getAgent(agentName).tools as Record<string, Tool | undefined>)[toolName];
  return tool ? toolLookup(tool) : undefined;
}

/** The input schema a registered agent's tool declares: what arguments an approver changes must match (undefined: none found). */
export function toolInputSchema(registry: AgentRegistry, agentName: string | undefined, toolName: string): FlexibleSchema<unknown> | undefined {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  const tool = (registry.getAgent(agentName).tools as Record<string, { inputSchema?: FlexibleSchema<unknown> } | undefined>)[toolName];
  return tool?.inputSchema;
}

/**
 * How each tool of a registered agent is declared (the core's toolDeclaration), by name: what the run
 * projection's plan (planResume) decides with. Undefined when the run names no registered agent.
 */
export function toolDeclarations(registry: AgentRegistry, agentName: string | undefined): Record<string, ToolDeclaration> | undefined {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  return toolDeclarationsOf(registry.getAgent(agentName));
}

/** How each tool of one agent version is declared, by name. */
export function toolDeclarationsOf(agent: Agent): Record<string, ToolDeclaration> {
  const tools = agent.tools as Record<string, Tool>;
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, toolDeclaration(tool)]));
}
