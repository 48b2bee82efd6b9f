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
import { type ForkPreview, getExecutor } from '@/lib/executor';
import { jsonSafe } from '../reads/wire';
import type { ActionResult, Refusal } from './operator-actions';

export type { ForkPreview };

export interface ForkRequest {
  runId: string;
  /** Counted from 1, as the timeline's "Model step N". */
  atStep: number;
  instruction?: string;
}

export async function forkPreview(request: ForkRequest): Promise<ActionResult<{ preview: ForkPreview }>> {
  try {
    const preview = await getExecutor().previewFork({ runId: request.runId, atStep: request.atStep, ...editOf(request) });
    return { ok: true, preview: jsonSafe(preview) };
  } catch (error) {
    return refusal(error);
  }
}

export async function fork(request: ForkRequest & { by: string; reason: string }): Promise<ActionResult<{ runId: string }>> {
  try {
    const { runId, atStep, by, reason } = request;
    const forked = await getExecutor().forkRun({ runId, atStep, by, reason, ...editOf(request) });
    return { ok: true, runId: forked.runId };
  } catch (error) {
    return refusal(error);
  }
}

function editOf(request: ForkRequest): { edit?: ForkEdit } {
  return request.instruction ? { edit: { instruction: request.instruction } } : {};
}

function refusal(error: unknown): Refusal {
  if (ForkRefusedError.isInstance(error) || JournalDataError.isInstance(error) || InvalidRunIdError.isInstance(error))
    return { ok: false, kind: 'invalid', message: error.message };
  console.error('studio: fork failed:', error);
  return { ok: false, kind: 'error', message: 'The fork could not be recorded; the Studio’s server log says why.' };
}
