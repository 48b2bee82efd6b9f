/**
 * A tool's input schema, found through the agent registry (the run records its agent's name): the form
 * an approver edits a call's arguments in, and what the journal checks the changed arguments with
 * (journal.approve's `inputSchema`). A tool without one (or a run not started by a registered agent)
 * shows its arguments as one JSON field. Server-only.
 */
import 'server-only';
import { asSchema, type FlexibleSchema } from '@ai-sdk/provider-utils';
import { registry } from '@/agents';
import { toolInputSchema } from '@/lib/agents';

export function toolInputSchemaOf(agentName: string | undefined, toolName: string): FlexibleSchema<unknown> | undefined {
  return toolInputSchema(registry, agentName, toolName);
}

/** The JSON Schema of the tool's arguments, for the form; undefined when the tool is not found. */
export async function toolInputJsonSchema(agentName: string | undefined, toolName: string): Promise<unknown> {
  const schema = toolInputSchemaOf(agentName, toolName);
  return schema ? await asSchema(schema).jsonSchema : undefined;
}
