/**
 * An operator's output for a side effect marked done, or for a tool without execute, checked against the
 * tool's output schema before anything is written (`outputSchema` of journal.resolveSideEffect and provideToolResult): the model and later steps will take
 * it for what the tool returned. Any schema the AI SDK accepts (zod, valibot, jsonSchema()). Without a
 * schema any storable value is accepted (the journal cannot know the tool's schema on its own).
 */
import { type FlexibleSchema, safeValidateTypes } from '@ai-sdk/provider-utils';
import { JournalDataError } from './errors';

export async function assertOutputMatchesSchema(args: {
  schema: FlexibleSchema<unknown> | undefined;
  toolCallId: string;
  output: unknown;
  /** The operation named in the refusal. Default 'resolveSideEffect'. */
  what?: 'resolveSideEffect' | 'provideToolResult';
}): Promise<void> {
  if (!args.schema) return;
  const result = await safeValidateTypes({ value: args.output, schema: args.schema });
  if (result.success) return;
  const cause = result.error.cause as { issues?: { path?: readonly unknown[]; message?: string }[] } | undefined;
  const issues =
    cause?.issues?.map((i) => `${i.path?.length ? `${i.path.map((p) => String((p as { key?: unknown })?.key ?? p)).join('.')}: ` : ''}${i.message ?? ''}`) ??
    [];
  throw new JournalDataError(
    `${args.what ?? 'resolveSideEffect'}: the output for call ${args.toolCallId} does not match the tool's output schema${issues.length ? ` (${issues.join('; ')})` : ''}. Nothing was recorded.`,
    { cause: result.error },
  );
}
