/**
 * The Studio's workflow actions, each one call into the executor layer (lib/executor/workflows.ts):
 * send a waiting run an event (its payload checked by the schema the workflow declares for it, recorded
 * in the run's journal with the operator's login) and start the demo support-flow. The registry is this
 * server's (agents/); the run is woken and this server's executor (or any worker) goes on. Server-only.
 */
import 'server-only';
import { registry } from '@/agents';
import { EventRefusedError, InvalidRunIdError, RunDivergedError, WorkflowInputError } from '@/lib/durable';
import { storageFromEnv } from '@/lib/durable/storage';
import { sendEvent, startWorkflow } from '@/lib/executor';
import type { ActionResult, Refusal } from './operator-actions';

export async function sendWorkflowEvent(request: {
  runId: string;
  name: string;
  payload: unknown;
  eventId?: string;
  by: string;
}): Promise<ActionResult<{ eventId: string; recorded: boolean }>> {
  try {
    const sent = await sendEvent({ storage: storageFromEnv(), registry, ...request });
    return { ok: true, eventId: sent.eventId, recorded: sent.recorded };
  } catch (error) {
    return refusal(error);
  }
}

/** `by`: the operator who starts it, recorded on the run's start. */
export async function startDemoWorkflow(request: {
  customerId: string;
  message: string;
  by: string;
  requestId: string;
}): Promise<ActionResult<{ runId: string }>> {
  const { by, requestId, ...input } = request;
  try {
    // Named by the form's request: a retried start is the same run, never a second refund flow.
    const runId = `support-flow:${requestId}`;
    const started = await startWorkflow({ storage: storageFromEnv(), registry, workflow: 'support-flow', input, subject: request.customerId, by, runId });
    return { ok: true, runId: started.runId };
  } catch (error) {
    return refusal(error);
  }
}

function refusal(error: unknown): Refusal {
  if (EventRefusedError.isInstance(error) || WorkflowInputError.isInstance(error) || InvalidRunIdError.isInstance(error) || RunDivergedError.isInstance(error))
    return { ok: false, kind: 'invalid', message: error.message };
  console.error('studio: workflow action failed:', error);
  return { ok: false, kind: 'error', message: 'The journal could not record this; the Studio’s server log says why.' };
}
