/**
 * How each tool of a run's agent is declared, through the deployment's agent registry: what the resume
 * preview decides with. Server-only: the registry holds the tools themselves.
 */
import 'server-only';
import { registry } from '@/agents';
import { toolDeclarations as declarationsIn } from '@/lib/agents';
import type { ToolDeclaration } from '@/lib/durable';

/** Every tool of the agent, by name; undefined when the run names no registered agent (GNL cannot see its tools). */
export function toolDeclarations(agentName: string | undefined): Record<string, ToolDeclaration> | undefined {
  return declarationsIn(registry, agentName);
}
