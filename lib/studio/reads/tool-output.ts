/**
 * A tool's output schema, found through the agent registry (the run records its agent's name), to
 * check the output an operator gives when marking a side effect done. A tool without one (or a run not
 * started by a registered agent) accepts any JSON. Server-only.
 */
import 'server-only';
import { asSchema, type FlexibleSchema } from '@ai-sdk/provider-utils';
import { registry } from '@/agents';
import { toolOutputSchema } from '@/lib/agents';
import { checkOutputSchema, type OutputCheck } from '@/lib/durable';

function outputSchemaOf(agentName: string | undefined, toolName: string): FlexibleSchema<unknown> | undefined {
  return toolOutputSchema(registry, agentName, toolName);
}

/** The JSON Schema the output must match, to show beside the form; undefined when any JSON is accepted. */
export async function toolOutputJsonSchema(agentName: string | undefined, toolName: string): Promise<unknown> {
  const schema = outputSchemaOf(agentName, toolName);
  return schema ? await asSchema(schema).jsonSchema : undefined;
}

/**
 * Checks `output` against the tool's output schema; ok when it matches or the tool has none. The core's
 * checker, the one the journal refuses with when the CLI passes it the same schema (toolOutputSchema).
 */
export function checkToolOutput(args: { agentName: string | undefined; toolName: string; output: unknown }): Promise<OutputCheck> {
  return checkOutputSchema({ schema: outputSchemaOf(args.agentName, args.toolName), toolName: args.toolName, output: args.output });
}
