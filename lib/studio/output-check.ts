/**
 * Checks an output an operator gives for a side effect against the tool's output schema (any schema the
 * AI SDK accepts: zod, valibot, JSON Schema via jsonSchema()). No schema: any JSON is accepted. Pure.
 */
import { type FlexibleSchema, safeValidateTypes } from '@ai-sdk/provider-utils';

export async function checkOutput(args: {
  schema: FlexibleSchema<unknown> | undefined;
  toolName: string;
  output: unknown;
}): Promise<{ ok: true } | { ok: false; message: string }> {
  if (!args.schema) return { ok: true };
  const result = await safeValidateTypes({ value: args.output, schema: args.schema });
  if (result.success) return { ok: true };
  const cause = result.error.cause as { issues?: { path?: PropertyKey[]; message?: string }[] } | undefined;
  const issues = cause?.issues?.map((i) => `${i.path?.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message ?? ''}`) ?? [];
  return { ok: false, message: `The output does not match ${args.toolName}'s output schema${issues.length ? `: ${issues.join('; ')}` : ''}.` };
}
