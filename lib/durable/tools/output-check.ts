/**
 * An operator's output for a side effect marked done, or for a tool without execute, checked against the
 * tool's output schema before anything is written: the model and later steps will take it for what the
 * tool returned. Any schema the AI SDK accepts: zod and valibot name each field that does not fit; a
 * jsonSchema() is checked only by the validate function it is given (the AI SDK does not validate JSON
 * Schema itself). Without a schema any storable value is accepted (the journal cannot know the tool's
 * schema on its own).
 *
 * The one checker: the journal's operator API (`outputSchema` of resolveSideEffect and
 * provideToolResult, which the CLI passes) throws with it, the Studio asks it before the journal.
 */
import { type FlexibleSchema, safeValidateTypes } from '@ai-sdk/provider-utils';
import { JournalDataError, type OutputIssue } from '../errors';
import { plainIssueMessage } from './plain-issues';

export type { OutputIssue };

export type OutputCheck =
  /** `value`: what the schema parsed (unknown keys stripped, as the schema says), or the output itself without a schema: what is recorded. */
  | { ok: true; value: unknown }
  | {
      ok: false;
      /** Each field that does not fit, and why. */
      issues: OutputIssue[];
      /** "The output does not match issueRefund's output schema: refund.amount: …" */
      message: string;
      /** The schema library's error. */
      cause: unknown;
    };

/** `output` against `schema`; ok when it matches or there is no schema. `toolName` is named in the message. */
export async function checkOutputSchema(args: { schema: FlexibleSchema<unknown> | undefined; output: unknown; toolName?: string }): Promise<OutputCheck> {
  if (!args.schema) return { ok: true, value: args.output };
  const result = await safeValidateTypes({ value: args.output, schema: args.schema });
  if (result.success) return { ok: true, value: result.value };
  const issues = issuesOf(result.error.cause);
  return { ok: false, issues, message: `The output ${mismatchText(args.toolName, issues)}.`, cause: result.error };
}

/** The output as the schema parsed it (what is recorded); JournalDataError (its `outputMismatch` names the call and the fields) when it does not match. */
export async function assertOutputMatchesSchema(args: {
  schema: FlexibleSchema<unknown> | undefined;
  toolCallId: string;
  output: unknown;
  /** The operation named in the refusal. Default 'resolveSideEffect'. */
  what?: 'resolveSideEffect' | 'provideToolResult';
}): Promise<unknown> {
  const checked = await checkOutputSchema(args);
  if (checked.ok) return checked.value;
  throw new JournalDataError(
    `${args.what ?? 'resolveSideEffect'}: the output for call ${args.toolCallId} ${mismatchText(undefined, checked.issues)}. Nothing was recorded.`,
    { cause: checked.cause, outputMismatch: { toolCallId: args.toolCallId, issues: checked.issues } },
  );
}

/** "does not match issueRefund's output schema: refund.amount: Invalid input; refund.refundId: …" */
function mismatchText(toolName: string | undefined, issues: readonly OutputIssue[]): string {
  const fields = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  return `does not match ${toolName ? `${toolName}'s` : "the tool's"} output schema${fields ? `: ${fields}` : ''}`;
}

/** Standard Schema issues (zod, valibot): a path of keys or `{ key }` segments, and a message; else the validator's own error. */
function issuesOf(cause: unknown): OutputIssue[] {
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues)) return cause instanceof Error && cause.message ? [{ path: '', message: cause.message }] : [];
  return issues.map((issue: { path?: readonly unknown[]; message?: unknown }) => ({
    path: (issue.path ?? []).map((segment) => String((segment as { key?: unknown } | null)?.key ?? segment)).join('.'),
    message: typeof issue.message === 'string' ? plainIssueMessage(issue.message) : '',
  }));
}
