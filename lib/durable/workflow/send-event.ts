/**
 * journal.sendEvent: an event for a workflow run, from code, the CLI, the Studio or the HTTP API. The
 * request is checked here (zod, at the edge) and planned (pure) under the run's row lock, then appended
 * as `workflow-event` from anywhere, like a decision, even while the run executes: a wait takes it when
 * it reaches it (an event sent before the wait is kept). One event id is recorded once: sending it
 * again writes nothing (`recorded: false`). The payload's schema is the workflow's (define-workflow.ts),
 * checked by the executor's sendEvent, which knows the registry, before this.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { EventRefusedError } from '../errors';
import type { JournalEvent } from '../journal/events';
import { assertValidRunId } from '../identity/run-id';
import { WORKFLOW_NAME } from './workflow-name';

const printable = (value: string) => !/[\p{Cc}\p{Cs}]/u.test(value);

export const sendEventRequestSchema = z.object({
  runId: z.string().superRefine((value, ctx) => {
    try {
      assertValidRunId(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
    }
  }),
  /** The event's name, as the workflow waits for it. */
  name: z.string().regex(WORKFLOW_NAME, 'name: lower-case letters, digits and dashes, starting with a letter'),
  /** Delivered once per id: the sender's own id makes a retried send safe. Default: a new UUID. */
  eventId: z
    .string()
    .min(1)
    .max(200)
    .refine(printable, 'eventId must contain only printable characters')
    .default(() => randomUUID()),
  /** Any value the journal holds (null for none). */
  payload: z.unknown().transform((value) => (value === undefined ? null : value)),
  by: z.string().trim().min(1, 'by: say who sends').max(200).refine(printable, 'by must contain only printable characters (no control characters)'),
});

export type SendEventRequest = z.input<typeof sendEventRequestSchema>;

/** The workflow-event to append, or undefined when this event id is recorded already. */
export function planSendEvent(args: {
  request: z.output<typeof sendEventRequestSchema>;
  status: string | undefined;
  isWorkflow: boolean;
  /** The events the run holds already: each one's id and name. */
  sent: readonly { eventId: string; name: string }[];
}): JournalEvent | undefined {
  const { request, status, isWorkflow, sent } = args;
  const { runId } = request;
  if (status === undefined) throw new EventRefusedError({ runId, reason: 'unknown-run', detail: 'no such run' });
  if (!isWorkflow) throw new EventRefusedError({ runId, reason: 'not-a-workflow', detail: 'the run is an agent run; only a workflow waits for events' });
  const same = sent.find((event) => event.eventId === request.eventId);
  // The same id again is the same event sent again: nothing written. Under another name it is another event
  // the sender believes delivered: refused, so it is not lost in silence.
  if (same && same.name !== request.name)
    throw new EventRefusedError({
      runId,
      reason: 'event-id-taken',
      detail: `event id "${request.eventId}" was sent as event "${same.name}", not "${request.name}": give this event an id of its own`,
    });
  if (same) return undefined;
  if (status === 'completed' || status === 'canceled') throw new EventRefusedError({ runId, reason: 'ended', detail: `the run is ${status}` });
  return { type: 'workflow-event', eventId: request.eventId, name: request.name, payload: request.payload, by: request.by };
}
