/**
 * A tool's output schema, found through the agent registry (the run records its agent's name), to
 * check the output an operator gives when marking a side effect done. A tool without one (or a run not
 * started by a registered agent) accepts any JSON. Server-only.
 */
import 'server-only';
import { asSchema, type FlexibleSchema, safeValidateTypes } from '@ai-sdk/provider-utils';
import { registry } from '@/agents';

function outputSchemaOf(agentName: string | undefined, toolName: string): FlexibleSchema<unknown> | undefined {
  if (!agentName || !registry.hasAgent(agentName)) return undefined;
  const tool = (registry.getAgent(agentName).tools as Record<string, { outputSchema?: FlexibleSchema<unknown> } | undefined>)[toolName];
  return tool?.outputSchema;
}

/** The JSON Schema the output must match, to show beside the form; undefined when any JSON is accepted. */
export async function toolOutputJsonSchema(agentName: string | undefined, toolName: string): Promise<unknown> {
  const schema = outputSchemaOf(agentName, toolName);
  return schema ? await asSchema(schema).jsonSchema : undefined;
}

/** Checks `output` against the tool's output schema; ok when it matches or the tool has none. */
export async function checkToolOutput(args: {
  agentName: string | undefined;
  toolName: string;
  output: unknown;
}): Promise<{ ok: true } | { ok: false; message: string }> {
  const schema = outputSchemaOf(args.agentName, args.toolName);
  if (!schema) return { ok: true };
  const result = await safeValidateTypes({ value: args.output, schema });
  if (result.success) return { ok: true };
  const cause = result.error.cause as { issues?: { path?: PropertyKey[]; message?: string }[] } | undefined;
  const issues = cause?.issues?.map((i) => `${i.path?.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message ?? ''}`) ?? [];
  return { ok: false, message: `The output does not match ${args.toolName}'s output schema${issues.length ? `: ${issues.join('; ')}` : ''}.` };
}
