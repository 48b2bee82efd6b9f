/**
 * How each tool of a run's agent is declared (gnlTool's options), read through the agent registry: what
 * the resume preview needs to say whether a repeated call is protected by its idempotency key.
 * Server-only: the registry holds the tools themselves.
 */
import 'server-only';
import { registry } from '@/agents';
import type { ToolPolicy } from './resume-preview';

/** gnlTool keeps its options on the tool under this registered symbol (lib/durable/gnl-tool.ts). */
const GNL_TOOL_OPTIONS = Symbol.for('gnl.tool.options');

type DeclaredOptions = { sideEffect?: boolean; idempotency?: 'call' | 'args'; retrySafe?: boolean; check?: unknown };

/** Every tool of the agent, by name; undefined when the run names no registered agent (GNL cannot see its tools). */
export function toolPolicies(agentName: string | undefined): Record<string, ToolPolicy> | undefined {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  const tools = registry.getAgent(agentName).tools as Record<string, object>;
  return Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => {
      const options = ((tool as Record<symbol, unknown>)[GNL_TOOL_OPTIONS] ?? {}) as DeclaredOptions;
      return [
        name,
        {
          sideEffect: options.sideEffect === true,
          idempotency: options.idempotency ?? 'call',
          retrySafe: options.retrySafe === true,
          check: typeof options.check === 'function',
        },
      ];
    }),
  );
}
