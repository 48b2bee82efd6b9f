/**
 * The HTTP API's wire (docs/api.md): every request body and every answer as a zod schema. The server
 * (lib/server) parses requests with these, its OpenAPI document is generated from them, and the typed
 * client (gnl-client.ts) takes its types from them: one definition, three uses. zod only (browser- and
 * package-safe); `.meta({ id })` names a schema as an OpenAPI component.
 */
import { z } from 'zod';
import { RUN_STATUSES } from '../journal/run-status';

const text = (what: string, max: number) =>
  z
    .string({ error: `${what}: a string` })
    .min(1, `${what}: must not be empty`)
    .max(max, `${what}: at most ${max} characters`);

export const runIdParam = text('runId', 512).meta({ description: 'The run (URL-encoded: encodeURIComponent).' });

export const startRunBody = z
  .strictObject({
    agent: text('agent', 200).optional().meta({ description: 'A registered agent’s name. Give agent or workflow, not both.' }),
    workflow: text('workflow', 200).optional().meta({ description: 'A registered workflow’s name.' }),
    runId: text('runId', 512)
      .optional()
      .meta({ description: 'Names the job: the same runId returns the same run; a different input for it is refused (409). Default: a new id.' }),
    input: z
      .unknown()
      .meta({ description: 'An agent’s { prompt } or { messages } (with conversationId, subject); a workflow’s input, checked by its schema.' }),
    subject: text('subject', 200)
      .optional()
      .meta({ description: 'A workflow run: who its data is about (erasure). An agent’s run names it in its input ({ prompt, subject }).' }),
  })
  .refine((body) => (body.agent === undefined) !== (body.workflow === undefined), { message: 'name exactly one of agent and workflow', path: ['agent'] })
  // Taken for a workflow only: beside an agent it would be dropped, and the run's data would not be found by its subject.
  .refine((body) => body.agent === undefined || body.subject === undefined, {
    message: 'an agent’s run names its subject in its input ({ prompt, subject }), not beside it',
    path: ['subject'],
  })
  .meta({ id: 'StartRun' });

const pendingSchema = z
  .looseObject({
    toolCallId: z.string(),
    toolName: z.string(),
    kind: z.string().meta({ description: '`approval`, `side-effect` (unknown outcome) or `tool-result` (a tool a person answers).' }),
    input: z.unknown().optional(),
    decision: z.looseObject({ outcome: z.string(), by: z.string() }).optional(),
  })
  .meta({ id: 'PendingCall' });

export const runResource = z
  .object({
    runId: z.string(),
    kind: z.enum(['agent', 'workflow']),
    name: z.string().meta({ description: 'The agent’s or workflow’s registered name.' }),
    version: z.string().optional(),
    status: z.enum(RUN_STATUSES),
    stepCount: z.number().int(),
    lastSeq: z.number().int().meta({ description: 'The last event’s sequence number: follow from here.' }),
    pending: z.array(pendingSchema),
    parent: z.string().optional().meta({ description: 'The run that started this one (a workflow’s child, a sub-agent).' }),
    erased: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Run' });

export const startedRun = z
  .object({ created: z.boolean().meta({ description: 'False: the run existed with this input.' }), run: runResource })
  .meta({ id: 'StartedRun' });

export const journalEvent = z
  .looseObject({ seq: z.number().int(), at: z.string(), type: z.string() })
  .meta({ id: 'JournalEvent', description: 'One journal event (docs/journal.md), secrets redacted.' });

export const eventPage = z
  .object({ events: z.array(journalEvent), lastSeq: z.number().int(), more: z.boolean().meta({ description: 'More events follow after the last one here.' }) })
  .meta({ id: 'EventPage' });

export const runResult = z
  .object({
    runId: z.string(),
    status: z.enum(RUN_STATUSES),
    finished: z.boolean().meta({ description: 'True once the run completed, failed or was canceled: the rest is final.' }),
    text: z.string().optional().meta({ description: 'An agent’s final text.' }),
    output: z.unknown().optional().meta({ description: 'An agent’s structured output, or a workflow’s return value.' }),
    error: z.object({ name: z.string(), message: z.string() }).optional(),
    canceled: z.object({ by: z.string(), reason: z.string().optional() }).optional(),
  })
  .meta({ id: 'RunResult' });

export const inboxPage = z
  .object({
    items: z.array(z.object({ runId: z.string(), name: z.string(), status: z.enum(RUN_STATUSES), pending: z.array(pendingSchema), updatedAt: z.string() })),
  })
  .meta({ id: 'Inbox' });

const reason = text('reason', 4000);

export const decisionBody = z
  .discriminatedUnion('decision', [
    z.strictObject({
      decision: z.literal('approve'),
      toolCallId: text('toolCallId', 200),
      reason: reason.optional(),
      input: z.unknown().optional().meta({
        description:
          'Changed arguments (edit, then approve), checked by the tool’s input schema. Under an approval rule with four eyes or more than one approval they are a proposal; an approval of a proposal sends its arguments again.',
      }),
    }),
    z.strictObject({ decision: z.literal('reject'), toolCallId: text('toolCallId', 200), reason: reason.optional() }),
    z.strictObject({
      decision: z.literal('mark-done'),
      toolCallId: text('toolCallId', 200),
      reason,
      output: z.unknown().meta({ description: 'What the side effect returned, checked by the tool’s output schema.' }),
    }),
    z.strictObject({ decision: z.literal('mark-not-done'), toolCallId: text('toolCallId', 200), reason }),
    z.strictObject({ decision: z.literal('provide'), toolCallId: text('toolCallId', 200), reason: reason.optional(), output: z.unknown() }),
  ])
  .meta({ id: 'Decision' });

export const decisionAnswer = z
  .object({
    recorded: z.literal(true),
    resumed: z.boolean().meta({ description: 'The run was resumed: nothing it waits for is left undecided.' }),
    approvals: z
      .object({ given: z.number().int(), needed: z.number().int() })
      .optional()
      .meta({ description: 'A call whose approval rule asks for more than one approval: how many are given, this one included, and how many it needs.' }),
    run: runResource,
  })
  .meta({ id: 'DecisionRecorded' });

export const workflowEventBody = z
  .strictObject({
    name: text('name', 200),
    eventId: text('eventId', 200).optional().meta({ description: 'Delivered once per id: the same id again records nothing.' }),
    payload: z.unknown().optional(),
  })
  .meta({ id: 'WorkflowEvent' });

export const workflowEventAnswer = z.object({ runId: z.string(), eventId: z.string(), recorded: z.boolean() }).meta({ id: 'WorkflowEventSent' });

export const reasonBody = z.strictObject({ reason }).meta({ id: 'Reason' });

export const problemSchema = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details.' });

export type StartRunBody = z.input<typeof startRunBody>;
export type RunResource = z.output<typeof runResource>;
export type StartedRunAnswer = z.output<typeof startedRun>;
export type ApiJournalEvent = z.output<typeof journalEvent>;
export type EventPage = z.output<typeof eventPage>;
export type RunResult = z.output<typeof runResult>;
export type InboxPage = z.output<typeof inboxPage>;
export type DecisionBody = z.input<typeof decisionBody>;
export type DecisionAnswer = z.output<typeof decisionAnswer>;
export type WorkflowEventBody = z.input<typeof workflowEventBody>;
export type WorkflowEventAnswer = z.output<typeof workflowEventAnswer>;
export type Problem = z.output<typeof problemSchema>;
