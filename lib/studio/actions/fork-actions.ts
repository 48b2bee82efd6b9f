/**
 * "Fork from here" in the Studio: the preview of a fork (what it keeps, which side effects could act
 * again and under which key) and the fork itself, each one call of this server's executor (previewFork,
 * forkRun: lib/executor/fork-run.ts), which then picks the fork up. Server-only. The server actions in
 * app/(studio)/actions.ts authenticate and parse, then call exactly one of these; the operator is the
 * session's, recorded as `by` with the reason (the fork's run-start and the parent's run-forked).
 * Secrets in the preview's arguments are redacted like every value the browser gets (jsonSafe).
 */
import 'server-only';
import { type ForkEdit, ForkRefusedError, InvalidRunIdError, JournalDataError } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { type ForkPreview as ExecutorForkPreview, getExecutor } from '@/lib/executor';
import { checkToolOutput, toolOutputJsonSchema } from '../reads/tool-output';
import { jsonSafe } from '../reads/wire';
import type { ActionResult, Refusal } from './operator-actions';

/** The executor's preview, with the JSON Schema each editable call's output must match (when its tool declares one). */
export type ForkPreview = Omit<ExecutorForkPreview, 'editableResults'> & {
  editableResults: { toolCallId: string; toolName: string; output: unknown; outputSchema?: unknown }[];
};

export interface ForkRequest {
  runId: string;
  /** Counted from 1, as the timeline's "Model step N". */
  atStep: number;
  /** At most one of these two (the form sends the one the operator chose). */
  instruction?: string;
  /** The output the model reads instead of a call of step atStep-1's recorded one. */
  toolResult?: { toolCallId: string; output: unknown };
}

/** The preview; with an edited result, first checked against its tool's output schema, as the fork will be. */
export async function forkPreview(request: ForkRequest): Promise<ActionResult<{ preview: ForkPreview }>> {
  try {
    if (request.toolResult) {
      const invalid = await editRefusal(request, request.toolResult);
      if (invalid) return invalid;
    }
    const preview = await previewOf(request);
    return { ok: true, preview: jsonSafe(preview) };
  } catch (error) {
    return refusal(error);
  }
}

/** Forks in the operator's name; an edited result is first checked against its tool's output schema (refused, naming the fields, when it does not match). */
export async function fork(request: ForkRequest & { by: string; reason: string; requestId: string }): Promise<ActionResult<{ runId: string }>> {
  try {
    const { runId, atStep, by, reason } = request;
    if (request.toolResult) {
      const invalid = await editRefusal(request, request.toolResult);
      if (invalid) return invalid;
    }
    // The fork is named by the form's request: a double click or a retried submit finds the fork made, not a second one.
    const parent = await storageFromEnv().runs.getRun(runId);
    const name = parent?.input.agent ?? parent?.input.workflow?.name ?? 'run';
    const forked = await getExecutor().forkRun({ runId, atStep, by, reason, ...editOf(request), newRunId: `${name}:fork-${request.requestId}` });
    return { ok: true, runId: forked.runId };
  } catch (error) {
    return refusal(error);
  }
}

async function previewOf(request: ForkRequest): Promise<ForkPreview> {
  const preview = await getExecutor().previewFork({ runId: request.runId, atStep: request.atStep, ...editOf(request) });
  const agentName = (await storageFromEnv().runs.getRun(request.runId))?.input.agent;
  const editableResults = await Promise.all(
    (preview.editableResults ?? []).map(async (call) => {
      const outputSchema = await toolOutputJsonSchema(agentName, call.toolName);
      return outputSchema === undefined ? call : { ...call, outputSchema };
    }),
  );
  return { ...preview, editableResults };
}

/** An edited output that its tool's output schema refuses (the tool found among the calls the fork may edit). */
async function editRefusal(request: ForkRequest, edit: { toolCallId: string; output: unknown }): Promise<Refusal | undefined> {
  const preview = await getExecutor().previewFork({ runId: request.runId, atStep: request.atStep });
  const call = preview.editableResults?.find((c) => c.toolCallId === edit.toolCallId);
  if (!call) return undefined; // the fork's plan refuses it, saying why (invalid-edit)
  const agentName = (await storageFromEnv().runs.getRun(request.runId))?.input.agent;
  const checked = await checkToolOutput({ agentName, toolName: call.toolName, output: edit.output });
  return checked.ok ? undefined : { ok: false, kind: 'invalid', message: checked.message };
}

function editOf(request: ForkRequest): { edit?: ForkEdit } {
  if (request.toolResult) return { edit: { toolResult: request.toolResult } };
  return request.instruction ? { edit: { instruction: request.instruction } } : {};
}

function refusal(error: unknown): Refusal {
  if (ForkRefusedError.isInstance(error) || JournalDataError.isInstance(error) || InvalidRunIdError.isInstance(error))
    return { ok: false, kind: 'invalid', message: error.message };
  console.error('studio: fork failed:', error);
  return { ok: false, kind: 'error', message: 'The fork could not be recorded; the Studio’s server log says why.' };
}
