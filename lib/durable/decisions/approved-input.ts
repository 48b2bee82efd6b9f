/**
 * Edit, then approve: an approver may change a call's arguments before approving it. The decision event
 * keeps the approved arguments beside the request's original ones, with a hash of them; the call executes
 * with exactly those, and the hash is checked before it does, so arguments that are not the ones
 * approved (a row written by hand, a codec that changed a value) are refused instead of executed.
 * The hash is of the arguments as canonical JSON (json-codec's encoding: Dates and bytes included), the
 * same on both sides of the journal whatever the order of keys jsonb gives back.
 */
import { createHash } from 'node:crypto';
import type { FlexibleSchema } from '@ai-sdk/provider-utils';
import { canonicalJson } from '../identity/canonical-json';
import { JournalDataError } from '../errors';
import { encodeJson } from '../journal/json-codec';
import { checkOutputSchema } from '../tools/output-check';
import type { ApprovalState } from '../projection/run-state';

/** SHA-256 (base64url) of the arguments as canonical JSON. */
export function approvedInputHash(input: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(encodeJson(input)))
    .digest('base64url');
}

/** Refuses approved arguments that do not match the tool's input schema (each field named), before anything is recorded. */
export async function assertInputMatchesSchema(args: { schema: FlexibleSchema<unknown> | undefined; toolCallId: string; input: unknown }): Promise<unknown> {
  const checked = await checkOutputSchema({ schema: args.schema, output: args.input });
  // The parsed arguments are what is recorded, hashed and executed: keys the schema does not know are stripped (or refused, by a strict schema).
  if (checked.ok) return checked.value;
  const fields = checked.issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ');
  throw new JournalDataError(
    `approve: the arguments for call ${args.toolCallId} do not match the tool's input schema${fields ? `: ${fields}` : ''}. Nothing was recorded.`,
    {
      cause: checked.cause,
      inputMismatch: { toolCallId: args.toolCallId, issues: checked.issues },
    },
  );
}

/**
 * Before an approved call executes: when the approval changed its arguments, the arguments about to run
 * must hash to what the decision recorded. Otherwise JournalDataError (`approvedInputMismatch`): nothing runs.
 */
export function assertApprovedInput(args: { runId: string; toolCallId: string; toolName: string; approval: ApprovalState | undefined; input: unknown }): void {
  const decision = args.approval?.decision;
  if (decision?.approved !== true || decision.approvedInput === undefined) return;
  const computed = approvedInputHash(args.input);
  if (decision.approvedInputHash === computed) return;
  throw new JournalDataError(
    `Run "${args.runId}": ${args.toolName} (${args.toolCallId}) was approved with changed arguments, but the arguments about to execute ` +
      `do not hash to the approved ones (recorded ${decision.approvedInputHash ?? 'none'}, computed ${computed}). Nothing was executed.`,
    { approvedInputMismatch: { toolCallId: args.toolCallId, recorded: decision.approvedInputHash, computed } },
  );
}
