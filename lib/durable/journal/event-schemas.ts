/**
 * The journal's event vocabulary as zod schemas: one per event type, discriminated on `type`. The
 * TypeScript types (events.ts) are inferred from them, so the compiler and the append check read the
 * same words. ARCHITECTURE.md lists the vocabulary.
 *
 * Rows are never rewritten: a new shape is added beside an old one, a field added later stays optional
 * (its comment says which runs lack it), and fields a schema does not name are let through (a row
 * written by a newer version, a RecordedEvent's seq and at). The check never rewrites what it checks:
 * the event is stored as the caller gave it.
 *
 * Each event type declares, beside its schema, the fields that hold user data (secret-journal.ts seals
 * exactly those): `eventType` takes the declaration as an argument, so an event type without it does
 * not compile and its user data cannot be stored unsealed by omission.
 *
 * Payloads are stored through json-codec (Dates, bytes and undefined survive the round trip), so a
 * payload field is `unknown` here: the schema checks GNL's own fields, never the user's values.
 */
import { z } from 'zod';
import { JournalDataError } from '../errors';
import { RUN_STATUSES } from './run-status';

/**
 * One event type: its schema and its user-data fields (the fields secret-journal.ts seals and opens;
 * `[]` when it holds none). A field the shape does not have is a compile error.
 */
export function eventType<Type extends string, Shape extends z.core.$ZodShape, const UserData extends readonly Exclude<keyof Shape & string, 'type'>[]>(
  type: Type,
  shape: Shape,
  userData: UserData,
) {
  return { type, schema: z.object({ type: z.literal(type), ...shape }), userData };
}

/**
 * Where a fork comes from (fork-plan.ts, docs/fork.md). `atStep` counts model steps from 1, as the
 * Studio's timeline does: the fork holds the parent's history up to step atStep-1's tool results and asks
 * the model again at step atStep.
 */
export const forkOriginSchema = z.object({
  runId: z.string(),
  atStep: z.number().int().min(1),
  by: z.string(),
  reason: z.string(),
  /** The run at the start of the lineage (the parent's own root when the parent is a fork): 'args' keys are made from it. */
  rootRunId: z.string(),
  /** An operator's instruction, given to the model as a user message at step atStep (after the shared history). */
  instruction: z.string().optional(),
  /** The call (of step atStep-1) whose recorded output the operator replaced in the copied history. */
  editedToolCallId: z.string().optional(),
  /**
   * The lineage's side effects recorded after the fork point (the parent's, then those it inherited):
   * a call of the fork's own, to the same tool with the same arguments, takes the n-th one's key (fork-keys.ts).
   */
  inheritedKeys: z.array(
    z.object({
      toolName: z.string(),
      input: z.unknown(),
      idempotencyKey: z.string(),
      /** A workflow's: the primitive (wf-k) that made it; the fork's same primitive with the same arguments takes the key (fork-keys.ts). */
      toolCallId: z.string().optional(),
    }),
  ),
  /** A workflow's fork: the registered version the operator chose for it (the parent ran another). */
  version: z.string().optional(),
  /** How many events of the parent's history were copied after the fork's run-start. */
  copiedEvents: z.number().int().min(0),
});

/**
 * Set when the run restarts another (lib/executor restartRun): the same job started again as a new run.
 * Its side effects answer from the old run's record (the door's related-effects.ts) unless a person
 * asked for a new attempt (`newAttempt`), which is then recorded here with who asked.
 */
export const restartOriginSchema = z.object({
  runId: z.string(),
  by: z.string(),
  newAttempt: z.boolean().optional(),
});

/** What a run was started with; compared on resume (production semantics come in a later issue). */
export const runInputSchema = z.object({
  /** The registered agent the run belongs to (runs started by name); absent for direct runDurable calls. */
  agent: z.string().optional(),
  /** The agent's version fingerprint when the run was started (informational: changes are caught field by field). */
  agentVersion: z.string().optional(),
  /** The conversation this run is one turn of (a chat): its messages are the conversation so far. */
  conversationId: z.string().optional(),
  /** Who the run's data is about (a customer id): every run of a subject can be erased at once (docs/erasure.md). */
  subject: z.string().optional(),
  prompt: z.unknown().optional(),
  messages: z.unknown().optional(),
  system: z.unknown().optional(),
  /** v7's `instructions`, when given instead of (or beside) system. */
  instructions: z.unknown().optional(),
  modelId: z.string(),
  provider: z.string(),
  toolNames: z.array(z.string()),
  /** SHA-256 of each tool's input JSON Schema (canonical JSON). Absent in runs started before it was recorded. */
  toolSchemas: z.record(z.string(), z.string()).optional(),
  /** The step limit runDurable applied because the call gave no stopWhen. */
  defaultStepLimit: z.number().optional(),
  /** The scheme this run's idempotency keys are made by (idempotency-key.ts); absent in runs from before schemes: 1. */
  keyScheme: z.number().optional(),
  /** Set when the run is a fork of another (fork-plan.ts): where it comes from and which keys it inherits. Absent otherwise. */
  forkOf: forkOriginSchema.optional(),
  /** Set when the run restarts another (restartOriginSchema). Absent otherwise. */
  restartOf: restartOriginSchema.optional(),
  /** Set when the run is a workflow's (lib/durable/workflow): its registered name, version and typed input. Absent for agent runs. */
  workflow: z.object({ name: z.string(), version: z.string().optional(), input: z.unknown() }).optional(),
  /** Set when the run is a child run of a workflow (or of an agent's sub-agent tool): the parent and the wait (or call) it answers. */
  parent: z.object({ runId: z.string(), waitId: z.string() }).optional(),
  /**
   * Set when the run was given memory (lib/durable/memory/run-memory.ts): whose, which thread, and the
   * messages read for it when it started (the thread's last messages, and what semantic recall found,
   * with scores): a resume gives the model these, never a fresh read.
   */
  memory: z
    .object({
      resource: z.string(),
      thread: z.string(),
      messages: z.unknown(),
      recalled: z.array(z.object({ id: z.number(), kind: z.string(), score: z.number() })).optional(),
    })
    .optional(),
});

/**
 * What a workflow waits for (workflow-wait, a `wait` pending item): a time (a durable sleep), an event
 * sent to the run (by name, an optional deadline and a match on the payload's fields), or child runs
 * (started at most `concurrency` at a time; `onFailure`: 'throw' starts no more once one fails, 'collect' runs all).
 */
export const workflowWaitSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sleep'), until: z.string() }),
  z.object({
    kind: z.literal('event'),
    event: z.string(),
    timeoutAt: z.string().optional(),
    match: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    kind: z.literal('children'),
    children: z.array(z.object({ runId: z.string(), kind: z.enum(['agent', 'workflow']), name: z.string() })),
    concurrency: z.number().int().min(1),
    onFailure: z.enum(['throw', 'collect']),
  }),
]);

export const errorInfoSchema = z.object({ name: z.string(), message: z.string() });

/**
 * Who may approve a call, as its tool declares it (gnlTool's `approvers`) and its approval request records
 * it: the least role of an approver (the Studio, the API and the CLI check it), how many different people
 * approve before it runs (N of M: each approval before the last is a `tool-approval-vote`; one rejection
 * rejects), and four eyes (neither who started the run nor who changed its arguments approves it).
 * Under a rule asking four eyes or more than one approval, changed arguments are a proposal (a vote that
 * carries them): the approvals counted before it are void, and the call runs with them only once others
 * approve them as changed.
 */
export const approvalRuleSchema = z.object({
  role: z.enum(['approver', 'admin']).optional(),
  approvals: z.number().int().min(1).max(10).optional(),
  fourEyes: z.boolean().optional(),
});

/** One approval counted toward a rule's N before the N-th decides (`tool-approval-vote`). */
export const approvalVoteSchema = z.object({
  by: z.string(),
  at: z.string(),
  reason: z.string().optional(),
  /** This vote changed the arguments (a proposal): the approvals before it were void. */
  proposed: z.boolean().optional(),
});

/** Arguments changed under a rule, waiting for others to approve them as changed (decisions.ts). */
export const approvalProposalSchema = z.object({
  /** The arguments as changed (user data: sealed like the request's). */
  input: z.unknown(),
  /** SHA-256 of them (approved-input.ts): an approval of the proposal names the same arguments. */
  inputHash: z.string(),
  by: z.string(),
  at: z.string(),
});

export const decisionSchema = z.object({
  /** 'counted': an approval counted toward the N a rule asks (the call still waits for the others); never a pending item's decision. */
  outcome: z.enum(['approved', 'rejected', 'done', 'not-done', 'provided', 'counted']),
  by: z.string(),
  at: z.string(),
  reason: z.string().optional(),
  /** Approved with arguments the approver changed (the decision event holds them). Absent: as asked. */
  editedInput: z.boolean().optional(),
  /** With a rule asking for more than one approval: how many are given (this one included) and how many the rule needs. */
  approvals: z.object({ given: z.number().int(), needed: z.number().int() }).optional(),
});

export const pendingItemSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('approval'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    requestedAt: z.string(),
    /** Past this instant the next resume treats the call as rejected ("expired"). */
    expiresAt: z.string().optional(),
    /** Who may approve it (approvalRuleSchema). Absent: any one person who may decide. */
    rule: approvalRuleSchema.optional(),
    /** Approvals counted so far toward the rule's N, in order (since the last change of arguments). */
    votes: z.array(approvalVoteSchema).optional(),
    /** Arguments changed under the rule, waiting to be approved as changed. Absent: as asked. */
    proposal: approvalProposalSchema.optional(),
    decision: decisionSchema.optional(),
  }),
  z.object({
    kind: z.literal('side-effect'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    idempotencyKey: z.string(),
    attempt: z.number(),
    startedAt: z.string(),
    reason: z.string(),
    decision: decisionSchema.optional(),
  }),
  /** A call to a tool without `execute` (a client-side tool): the run waits for journal.provideToolResult. */
  z.object({
    kind: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    idempotencyKey: z.string(),
    requestedAt: z.string(),
    decision: decisionSchema.optional(),
  }),
]);

/**
 * The OpenTelemetry span of the invocation that recorded the event (tracing.ts), when a tracer provider
 * records spans: the run's first one is the trace every later invocation of the run continues.
 */
export const traceContextSchema = z.object({ traceId: z.string().regex(/^[0-9a-f]{32}$/), spanId: z.string().regex(/^[0-9a-f]{16}$/) });

const runStart = eventType(
  'run-start',
  {
    input: runInputSchema,
    trace: traceContextSchema.optional(),
    /** Who started the run, when a person or a service started it by name (the Studio, the API, gnl start --by): a four-eyes rule keeps them from approving its calls. Not compared on resume. */
    by: z.string().optional(),
  },
  ['input'],
);

const runResume = eventType('run-resume', { fromStatus: z.enum(RUN_STATUSES), trace: traceContextSchema.optional() }, []);

const modelStep = eventType(
  'model-step',
  {
    step: z.number(),
    provider: z.string(),
    modelId: z.string(),
    latencyMs: z.number(),
    /** SHA-256 of the model call's input (prompt, tools, settings), to notice a replay that asks differently (request-hash.ts: "2:…" a running hash, unprefixed the whole call). Absent in runs recorded before it. */
    requestHash: z.string().optional(),
    /** The model's raw result (LanguageModelV4GenerateResult without request/response bodies). */
    result: z.unknown(),
  },
  ['result'],
);

const toolCallStart = eventType(
  'tool-call-start',
  {
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    idempotencyKey: z.string(),
    attempt: z.number(),
    sideEffect: z.boolean(),
  },
  ['input'],
);

const toolCallEnd = eventType(
  'tool-call-end',
  {
    toolCallId: z.string(),
    toolName: z.string(),
    idempotencyKey: z.string(),
    attempt: z.number(),
    output: z.unknown(),
    durationMs: z.number(),
    /** Read-only calls record no start: their end carries the input and when execute began. */
    input: z.unknown().optional(),
    startedAt: z.string().optional(),
    /**
     * executed: execute returned it; check: the outside system said done; deduplicated: another call with
     * the same key did the work; provided: a tool without execute, answered by journal.provideToolResult.
     */
    source: z.enum(['executed', 'check', 'deduplicated', 'provided']),
    /** The run of the same job whose record answered this call (source 'deduplicated'; related-effects.ts). */
    inheritedFrom: z.string().optional(),
    /** Who provided the output (source 'provided'). */
    by: z.string().optional(),
    /** Why, as they said it (source 'provided'): the audit keeps it like a decision's reason. */
    reason: z.string().optional(),
  },
  ['input', 'output'],
);

const toolCallError = eventType(
  'tool-call-error',
  {
    toolCallId: z.string(),
    toolName: z.string(),
    idempotencyKey: z.string(),
    attempt: z.number(),
    error: errorInfoSchema,
    durationMs: z.number(),
    /** Read-only calls record no start: their error carries the input and when execute began. */
    input: z.unknown().optional(),
    startedAt: z.string().optional(),
    /**
     * true: execute threw; the run failed and the call is tried again on resume (a side effect under the
     * unknown-outcome rule). false or absent: final; replayed to the model as the call's error.
     */
    retryable: z.boolean().optional(),
  },
  ['input'],
);

/**
 * What the run's repairToolCall made of a call the SDK could not parse (step, call id), or null when
 * it gave up. Replayed as recorded: the repair (often a paid model call) runs once per call.
 */
const toolCallRepair = eventType(
  'tool-call-repair',
  {
    step: z.number(),
    toolCallId: z.string(),
    /** The repaired call as the SDK takes it (LanguageModelV4ToolCall: input is the JSON text), or null. */
    repaired: z.unknown(),
  },
  ['repaired'],
);

const toolApprovalRequest = eventType(
  'tool-approval-request',
  {
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    requestedAt: z.string(),
    expiresAt: z.string().optional(),
    /** Who may approve it, as the tool declared it when it was asked (a later deploy does not change it). */
    rule: approvalRuleSchema.optional(),
  },
  ['input'],
);

/**
 * An approval counted toward the N of the call's rule; the N-th approval is the tool-approval-response.
 * With `proposedInput`, the voter changed the arguments: the votes before it are void, and the call waits
 * for approvals of these arguments (under four eyes, the proposer's own does not count).
 */
const toolApprovalVote = eventType(
  'tool-approval-vote',
  {
    toolCallId: z.string(),
    by: z.string(),
    reason: z.string().optional(),
    proposedInput: z.unknown().optional(),
    /** SHA-256 of proposedInput (approved-input.ts). Present with it. */
    proposedInputHash: z.string().optional(),
  },
  ['proposedInput'],
);

const toolApprovalResponse = eventType(
  'tool-approval-response',
  {
    toolCallId: z.string(),
    approved: z.boolean(),
    by: z.string(),
    reason: z.string().optional(),
    expired: z.boolean().optional(),
    /**
     * Decided by the toolApproval policy (no request was journaled before it): the call it names, so the
     * decision is replayed as recorded even when the policy later answers otherwise.
     */
    policy: z.object({ toolName: z.string(), input: z.unknown() }).optional(),
    /**
     * Approved with changed arguments (edit, then approve): the arguments the call executes with, instead of
     * those the request holds (the original stays there). Who changed them is `by`, or `editedBy`. Absent: as asked.
     */
    approvedInput: z.unknown().optional(),
    /** SHA-256 of approvedInput (approved-input.ts), checked before the call executes. Present with approvedInput. */
    approvedInputHash: z.string().optional(),
    /** Under a rule: who proposed the changed arguments this approval approves (a tool-approval-vote), when another person. */
    editedBy: z.string().optional(),
  },
  ['policy', 'approvedInput'],
);

const sideEffectCheck = eventType(
  'side-effect-check',
  {
    toolCallId: z.string(),
    idempotencyKey: z.string(),
    attempt: z.number(),
    result: z.union([z.object({ done: z.literal(true) }), z.object({ done: z.literal(false) }), z.object({ done: z.literal('unknown'), reason: z.string() })]),
  },
  [],
);

const sideEffectResolution = eventType(
  'side-effect-resolution',
  {
    toolCallId: z.string(),
    idempotencyKey: z.string(),
    outcome: z.enum(['done', 'not-done']),
    output: z.unknown().optional(),
    by: z.string(),
    reason: z.string().optional(),
  },
  ['output'],
);

const replayMismatch = eventType(
  'replay-mismatch',
  {
    /**
     * 'model-call': the step's input differs from the recorded one. 'tool-arguments' (older runs only): a
     * replayed call's arguments were derived differently; replays now run the recorded arguments (call-identity.ts).
     */
    kind: z.enum(['model-call', 'tool-arguments']),
    step: z.number().optional(),
    toolCallId: z.string().optional(),
    recorded: z.string(),
    given: z.string(),
  },
  ['recorded', 'given'],
);

const runSuspend = eventType(
  'run-suspend',
  { status: z.enum(['waiting-approval', 'blocked', 'waiting-tool-result', 'waiting']), pending: z.array(pendingItemSchema) },
  ['pending'],
);

const runComplete = eventType(
  'run-complete',
  {
    text: z.string(),
    finishReason: z.string(),
    steps: z.number(),
    /**
     * The SDK's result as the run completed (completed-result.ts: `{ v: 1, steps, … }`): a later call with
     * the runId answers from it without running the loop. Absent in runs completed before it was recorded,
     * or whose answer could not be journaled: those replay.
     */
    answer: z.unknown().optional(),
    /** A workflow's return value (lib/durable/workflow). Absent for agent runs. */
    output: z.unknown().optional(),
  },
  ['text', 'answer', 'output'],
);

/** An operator canceled the run: it stops at its next step boundary and never executes another tool. Terminal. */
const runCancel = eventType('run-cancel', { by: z.string(), reason: z.string().optional() }, []);

/**
 * An operator asked for the run to continue (journal.requestResume): the audit of a resume, appended from
 * anywhere like a decision. Inert: it changes neither the status nor the pending list, and replay skips it;
 * the invocation that follows records its own `run-resume`.
 */
const runResumeRequest = eventType(
  'run-resume-request',
  {
    by: z.string(),
    reason: z.string().optional(),
    /** A scheduled resume (scheduleResume): the executor invokes the run no earlier than this instant (ISO). Absent: at once. */
    resumeAt: z.string().optional(),
  },
  [],
);

/**
 * The executor's verdict on an invocation that failed on a transient error (the provider unreachable, a
 * 5xx or 429 past the SDK's retries, a timeout), appended after that invocation's run-fail: attempt
 * `attempt` of the agent's `attempts` failed with `error`; `retryAt` is when the executor resumes the run
 * again. Without `retryAt` the attempts are used up: the run stays failed for a person. Inert for status
 * and replay, like a resume request.
 */
const runRetry = eventType(
  'run-retry',
  {
    /** The executor that decided (its owner name). */
    by: z.string(),
    attempt: z.number().int().min(1),
    attempts: z.number().int().min(1),
    error: errorInfoSchema,
    retryAt: z.string().optional(),
  },
  [],
);

const runFail = eventType('run-fail', { error: errorInfoSchema }, []);

/**
 * The run continues on another version of its agent from here (migrateRun, or an agent declaring
 * `onChange: 'continue'`): `input` is the start input every later invocation is compared with instead of
 * the run-start's. Everything recorded stays recorded: model steps replay from the journal, finished calls
 * keep their outputs and keys. Inert otherwise: status and pending are unchanged.
 */
const runMigrate = eventType(
  'run-migrate',
  {
    /** The new start input (the run-start's shape): what the run is compared with from here on. */
    input: runInputSchema,
    /** The agent version the run was on (its start's or the last migration's), and the one it runs from here. */
    fromVersion: z.string().optional(),
    toVersion: z.string().optional(),
    /** The start-input fields that differ (run-input.ts's names: `system`, `tool schema: refund`, …). */
    changed: z.array(z.string()),
    by: z.string(),
    reason: z.string(),
    /** The refusals of the preview that `by` overrode on purpose (force), as the preview worded them. */
    overridden: z.array(z.string()).optional(),
  },
  ['input'],
);

/**
 * An operator forked the run (forkRun): the child's id and where it forks. Inert like a resume request:
 * status, pending and replay unchanged; the child's run-start carries the link back (`input.forkOf`).
 */
const runForked = eventType('run-forked', { childRunId: z.string(), atStep: z.number().int().min(1), by: z.string(), reason: z.string() }, []);

/**
 * An operator restarted the run (restartRun): the new run's id (its run-start carries the link back,
 * `input.restartOf`), who, and whether they asked for a new attempt. Inert like run-forked: status,
 * pending and replay unchanged. It lets the job's other runs (this run's forks, its parent) find the
 * restart: related-effects.ts walks it. Absent for restarts made before it was recorded.
 */
const runRestarted = eventType('run-restarted', { restartedAs: z.string(), by: z.string(), newAttempt: z.boolean().optional() }, []);

/**
 * The run came into this journal from an export (journal.importRun, `gnl import`): appended after the
 * imported events, in the same transaction, at this journal's clock. Which run it was exported as, when,
 * whether the export was redacted (then the run is evidence only), and who imported it. Inert like
 * run-restarted: status, pending and replay unchanged; the Studio marks the run "imported".
 */
const runImported = eventType('run-imported', { from: z.object({ runId: z.string(), exportedAt: z.string(), redacted: z.boolean() }), by: z.string() }, []);

/**
 * A workflow begins to wait (workflow/run-workflow.ts): its `waitId` (`wf-<n>`, the n-th primitive), the
 * name the workflow gave, and what it waits for, fixed when first recorded (a sleep's end is computed once).
 */
const workflowWait = eventType('workflow-wait', { waitId: z.string(), name: z.string(), wait: workflowWaitSchema }, ['wait']);

/**
 * A workflow's wait ended: the sleep elapsed, an event was delivered (`eventId`, its payload as `value`),
 * the deadline passed, or the children settled (their outcomes as `value`). Replayed, never decided again.
 */
const workflowWaitEnd = eventType(
  'workflow-wait-end',
  {
    waitId: z.string(),
    outcome: z.enum(['elapsed', 'event', 'timeout', 'children']),
    eventId: z.string().optional(),
    value: z.unknown().optional(),
  },
  ['value'],
);

/**
 * An event sent to a workflow run (journal.sendEvent, from code, the CLI or the Studio), appended from
 * anywhere like a decision. Inert: status and pending are unchanged; it waits in the journal until a
 * wait for its name takes it (once: the wait-end names its id). The same `eventId` again writes nothing.
 */
const workflowEvent = eventType('workflow-event', { eventId: z.string(), name: z.string(), payload: z.unknown(), by: z.string() }, ['payload']);

/** Every event type. A type missing here is no event: nothing can write it (JournalEvent does not hold it). */
const EVENT_TYPES = [
  runStart,
  runResume,
  modelStep,
  toolCallStart,
  toolCallEnd,
  toolCallError,
  toolCallRepair,
  toolApprovalRequest,
  toolApprovalResponse,
  toolApprovalVote,
  sideEffectCheck,
  sideEffectResolution,
  replayMismatch,
  runSuspend,
  runComplete,
  runCancel,
  runResumeRequest,
  runFail,
  runMigrate,
  runForked,
  runRestarted,
  runImported,
  runRetry,
  workflowWait,
  workflowWaitEnd,
  workflowEvent,
] as const;

type EventTypes = (typeof EVENT_TYPES)[number];
type SchemasOf<List extends readonly unknown[]> = { -readonly [I in keyof List]: List[I] extends { schema: infer S } ? S : never };

export const journalEventSchema = z.discriminatedUnion('type', EVENT_TYPES.map((event) => event.schema) as unknown as SchemasOf<typeof EVENT_TYPES>);

/** The user-data fields of each event type, as declared beside its schema. */
export const USER_DATA = Object.fromEntries(EVENT_TYPES.map((event) => [event.type, event.userData])) as {
  readonly [E in EventTypes as E['type']]: E['userData'];
};

const SCHEMA_OF: ReadonlyMap<string, z.ZodType> = new Map(EVENT_TYPES.map((event) => [event.type, event.schema]));

/**
 * Refuses an event that does not match its type's schema, before anything is written: a JournalDataError
 * naming the type and the fields (`invalidEvent`), the zod error as its cause.
 */
export function assertValidEvent(event: unknown): void {
  const type = typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined;
  const schema = typeof type === 'string' ? SCHEMA_OF.get(type) : undefined;
  if (!schema) {
    const named = typeof type === 'string' ? `"${type}"` : String(type);
    throw new JournalDataError(`An event of unknown type ${named} cannot be journaled (known: ${[...SCHEMA_OF.keys()].join(', ')}). Nothing was written.`, {
      invalidEvent: { eventType: typeof type === 'string' ? type : String(type), fields: ['type'] },
    });
  }
  const result = schema.safeParse(event);
  if (result.success) return;
  const fields = [...new Set(result.error.issues.map((issue) => formatPath(issue.path)))];
  const problems = result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`).join('; ');
  throw new JournalDataError(`A ${type} event cannot be journaled: ${problems}. Nothing was written.`, {
    cause: result.error,
    invalidEvent: { eventType: type as string, fields },
  });
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(the event)';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('');
}
