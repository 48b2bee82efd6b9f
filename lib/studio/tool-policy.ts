/**
 * How each tool of a run's agent is declared (gnlTool's options, whether it has execute), read through
 * the agent registry with the core's own reader (toolDeclaration): what the resume preview decides with.
 * Server-only: the registry holds the tools themselves.
 */
import 'server-only';
import type { Tool } from 'ai';
import { registry } from '@/agents';
import { type ToolDeclaration, toolDeclaration } from '@/lib/durable';

/** Every tool of the agent, by name; undefined when the run names no registered agent (GNL cannot see its tools). */
export function toolDeclarations(agentName: string | undefined): Record<string, ToolDeclaration> | undefined {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  const tools = registry.getAgent(agentName).tools as Record<string, Tool>;
  return Object.fromEntries(Object.entries(tools).map(([name, tool]) => [name, toolDeclaration(tool)]));
}
