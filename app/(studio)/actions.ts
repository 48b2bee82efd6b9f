'use server';
/**
 * The Studio's server actions. Each: the session (who decides: the signed-in operator, never a name
 * the browser sends) → zod parse → one call into lib/studio/actions/operator-actions → a typed result.
 * Next refuses an action whose Origin is not this host; the session cookie is SameSite=Strict.
 */
import { z } from 'zod';
import { jsonText } from '@/lib/studio/forms/json-text';
import { CRASH_POINTS } from '@/lib/demo';
import { type ActionResult, cancel, decide, type ResumeNote, resume, scheduleResumeAt, startDemoRun } from '@/lib/studio/actions/operator-actions';
import { migrate } from '@/lib/studio/actions/migrate-action';
import { eraseRun } from '@/lib/studio/actions/erase-action';
import { editWorkingMemory, type MemoryEditResult } from '@/lib/studio/actions/memory-actions';
import { fork, forkPreview } from '@/lib/studio/actions/fork-actions';
import { runNow, setSchedulePaused } from '@/lib/studio/actions/schedule-actions';
import { sendWorkflowEvent, startDemoWorkflow } from '@/lib/studio/actions/workflow-actions';
import { currentOperator } from '@/lib/studio/auth/session';
import { changeRole, makeToken, revokeToken, signOutPerson } from '@/lib/studio/actions/people-actions';
import { addWebhook, removeWebhook, rotateWebhookKey, sendTestWebhook, setWebhookEnabled } from '@/lib/studio/actions/webhook-actions';
import { authorize, PERMISSIONS, type Permission, ROLES, type Role } from '@/lib/accounts';
import type { Decision } from '@/lib/durable';
import { RUN_STATUSES } from '@/lib/durable';
import { BULK_ACTION_NAMES, type BulkApplied, type PausedState } from '@/lib/executor';
import { applyBulkChange, type BulkResult, previewBulkChange, type StudioPreview } from '@/lib/studio/actions/bulk-actions';

const runId = z.string().min(1).max(512);
const toolCallId = z.string().min(1).max(1000);
const reason = z.string().trim().max(4000);
const requiredReason = reason.min(1, 'Say why: the reason is recorded with your decision.');

/** `input`: changed arguments as JSON text (edit, then approve); absent: as the model asked. */
const approveSchema = z.object({ runId, toolCallId, reason: reason.optional(), input: jsonText.optional() });
const rejectSchema = z.object({ runId, toolCallId, reason: requiredReason });
const resolveSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('done'), runId, toolCallId, reason: requiredReason, output: jsonText }),
  z.object({ outcome: z.literal('not-done'), runId, toolCallId, reason: requiredReason }),
]);
const provideSchema = z.object({ runId, toolCallId, output: jsonText, reason: reason.optional() });
const resumeSchema = z.object({ runId, reason: requiredReason });
const cancelSchema = z.object({ runId, reason: requiredReason });
const eraseSchema = z.object({ runId, reason: requiredReason });
/** A working memory edit: the resource, the version edited, the record as JSON text (an object, at most 64 KiB), why, and the form's request id. */
const memoryEditSchema = z.object({
  resource: z
    .string()
    .min(1)
    .max(200)
    .refine((v) => !/[\p{Cc}\p{Cf}]/u.test(v), 'The resource id holds control or invisible characters.'),
  expectedVersion: z.number().int().min(0),
  value: z
    .string()
    .max(65_536, 'The working memory is at most 64 KiB of JSON.')
    .pipe(jsonText)
    .refine((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'Working memory is a JSON object: { "field": value, … }.'),
  reason: requiredReason,
  requestId: z.uuid(),
});
/** An instant with its zone (the browser turns the operator's local time into one), in the future. */
const resumeAtSchema = z.object({
  runId,
  at: z.iso
    .datetime({ offset: true, error: 'Choose a date and a time.' })
    .refine((at) => Date.parse(at) > Date.now(), 'Choose a time in the future (a resume now is Resume).')
    .refine((at) => Date.parse(at) <= Date.now() + 366 * 86_400_000, 'Choose a time within a year and a day.'),
  reason: requiredReason,
});
const migrateSchema = z.object({
  runId,
  to: z.string().regex(/^[0-9a-f]{16}$/, 'Choose a registered version.'),
  reason: requiredReason,
  force: z.boolean().default(false),
});
const forkFields = z.object({
  runId,
  atStep: z.number().int().min(1).max(100_000),
  instruction: z.string().trim().max(20_000).optional(),
  /** An edited tool result: a call of the step before, and its output as JSON text. */
  toolResult: z.object({ toolCallId, output: jsonText }).optional(),
});
const oneEdit = (fork: z.output<typeof forkFields>) => !(fork.instruction && fork.toolResult);
const ONE_EDIT = 'Give an instruction or an edited result, not both.';
const forkPreviewSchema = forkFields.refine(oneEdit, ONE_EDIT);
/** One request id per fork form: a double click or a retried submit makes no second fork. */
const forkSchema = forkFields.extend({ reason: requiredReason, requestId: z.uuid('A bad request id: reload the page.') }).refine(oneEdit, ONE_EDIT);
const demoSchema = z.object({
  prompt: z.string().trim().min(1, 'Write what the customer asks.').max(4000),
  crashAt: z.enum(CRASH_POINTS).optional(),
  /** false: the support agent without `check` (an unknown outcome blocks the run). */
  checks: z.boolean().optional(),
  /** true: the support agent whose refunds another person approves (four eyes). */
  fourEyes: z.boolean().optional(),
  /** One per start the form makes: a double click or a retried request starts no second run. */
  requestId: z.uuid('A bad request id: reload the page.'),
});

/** An event for a waiting workflow: its payload as JSON text (the workflow's schema judges it on the server), and its id (sent twice: once; the form makes one when the operator gives none). */
const sendEventSchema = z.object({
  runId,
  name: z.string().regex(/^[a-z][a-z0-9-]{0,63}$/, 'An event name is lower-case letters, digits and dashes.'),
  payload: jsonText,
  eventId: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[\x21-\x7e]+$/, 'An event id is printable ASCII without spaces.'),
});
const demoWorkflowSchema = z.object({
  customerId: z.string().trim().min(1, 'Give the customer’s id, like c_42.').max(64),
  message: z.string().trim().min(1, 'Write what the customer asks.').max(4000),
  /** One per start the form makes: a double click or a retried request starts no second run. */
  requestId: z.uuid('A bad request id: reload the page.'),
});

type Parsed<T> = { ok: true; data: T } | { ok: false; kind: 'invalid' | 'unauthenticated' | 'forbidden'; message: string };

/**
 * The session, then what the operator's role allows (lib/accounts/authorize.ts: every action names the
 * permission it needs), then the input.
 */
async function authenticate<T extends z.ZodType>(
  permission: Permission,
  schema: T,
  input: unknown,
): Promise<Parsed<z.output<T>> & { by?: string; role?: Role }> {
  const operator = await currentOperator();
  if (!operator) return { ok: false, kind: 'unauthenticated', message: 'Your session has ended: sign in again.' };
  const allowed = authorize({ kind: 'operator', login: operator.login, role: operator.role }, permission);
  if (!allowed.ok) return { ok: false, kind: 'forbidden', message: `${allowed.message} An admin can change your role.` };
  const parsed = schema.safeParse(input);
  if (!parsed.success) return { ok: false, kind: 'invalid', message: parsed.error.issues.map((i) => i.message).join(' ') };
  return { ok: true, data: parsed.data, by: operator.login, role: operator.role };
}

export type DecisionResult = ActionResult<{ decision: Decision; resume: ResumeNote }>;

export async function approveAction(input: z.input<typeof approveSchema>): Promise<DecisionResult> {
  const parsed = await authenticate('decide', approveSchema, input);
  if (!parsed.ok) return parsed;
  // The role goes with it: a call whose approval rule names a role is refused to a lower one (record-decision.ts).
  return decide({ kind: 'approve', ...parsed.data, by: parsed.by as string, ...(parsed.role ? { role: parsed.role } : {}) });
}

export async function rejectAction(input: z.input<typeof rejectSchema>): Promise<DecisionResult> {
  const parsed = await authenticate('decide', rejectSchema, input);
  if (!parsed.ok) return parsed;
  return decide({ kind: 'reject', ...parsed.data, by: parsed.by as string });
}

export async function resolveSideEffectAction(input: z.input<typeof resolveSchema>): Promise<DecisionResult> {
  const parsed = await authenticate('decide', resolveSchema, input);
  if (!parsed.ok) return parsed;
  return decide({ kind: 'resolve', ...parsed.data, by: parsed.by as string });
}

export async function provideToolResultAction(input: z.input<typeof provideSchema>): Promise<DecisionResult> {
  const parsed = await authenticate('decide', provideSchema, input);
  if (!parsed.ok) return parsed;
  return decide({ kind: 'provide', ...parsed.data, by: parsed.by as string });
}

export async function resumeRunAction(input: z.input<typeof resumeSchema>): Promise<ActionResult<{ resume: ResumeNote }>> {
  const parsed = await authenticate('decide', resumeSchema, input);
  if (!parsed.ok) return parsed;
  return resume({ ...parsed.data, by: parsed.by as string });
}

/** Schedules the run's next invocation at a time, in the signed-in operator's name with the reason; replaces an earlier one. */
export async function scheduleResumeAction(input: z.input<typeof resumeAtSchema>): Promise<ActionResult<{ resumeAt: string }>> {
  const parsed = await authenticate('decide', resumeAtSchema, input);
  if (!parsed.ok) return parsed;
  return scheduleResumeAt({ ...parsed.data, by: parsed.by as string });
}

export async function cancelRunAction(input: z.input<typeof cancelSchema>): Promise<ActionResult<{ canceledBy: string }>> {
  const parsed = await authenticate('decide', cancelSchema, input);
  if (!parsed.ok) return parsed;
  return cancel({ ...parsed.data, by: parsed.by as string });
}

/** Erases an ended run in the operator's name (docs/erasure.md): its key destroyed, its data unreadable; audited. */
export async function eraseRunAction(input: z.input<typeof eraseSchema>): Promise<ActionResult<{ erasedBy: string; erasedAt: string }>> {
  const parsed = await authenticate('admin', eraseSchema, input);
  if (!parsed.ok) return parsed;
  return eraseRun({ ...parsed.data, by: parsed.by as string });
}

/** Writes a resource's working memory in the operator's name with the reason, as the version after the one edited; audited. */
export async function editWorkingMemoryAction(input: z.input<typeof memoryEditSchema>): Promise<MemoryEditResult> {
  const parsed = await authenticate('admin', memoryEditSchema, input);
  if (!parsed.ok) return parsed;
  return editWorkingMemory({ ...parsed.data, value: parsed.data.value as Record<string, unknown>, by: parsed.by as string });
}

export async function startDemoRunAction(input: z.input<typeof demoSchema>): Promise<ActionResult<{ runId: string }>> {
  const parsed = await authenticate('start', demoSchema, input);
  if (!parsed.ok) return parsed;
  return startDemoRun({ ...parsed.data, by: parsed.by as string });
}

/** Moves a run to another registered version of its agent, in the operator's name, after the preview they saw. */
export async function migrateRunAction(input: z.input<typeof migrateSchema>): Promise<ActionResult<{ seq: number; to: string }>> {
  const parsed = await authenticate('decide', migrateSchema, input);
  if (!parsed.ok) return parsed;
  return migrate({ ...parsed.data, by: parsed.by as string });
}

/** What forking the run at this model step would keep and which side effects could act again (nothing written). */
export async function forkPreviewAction(input: z.input<typeof forkPreviewSchema>) {
  const parsed = await authenticate('decide', forkPreviewSchema, input);
  if (!parsed.ok) return parsed;
  return forkPreview(parsed.data);
}

/** Forks the run at this model step in the signed-in operator's name, with the reason; the Studio's executor runs the fork. */
export async function forkRunAction(input: z.input<typeof forkSchema>): Promise<ActionResult<{ runId: string }>> {
  const parsed = await authenticate('decide', forkSchema, input);
  if (!parsed.ok) return parsed;
  return fork({ ...parsed.data, by: parsed.by as string });
}

/** A form field: empty means no filter. */
const optionalText = z
  .string()
  .trim()
  .max(200)
  .optional()
  .transform((value) => (value ? value : undefined));
const bulkPreviewSchema = z.object({
  action: z.enum(BULK_ACTION_NAMES),
  status: z.union([z.enum(RUN_STATUSES), z.literal('')]).optional(),
  agent: optionalText,
  version: optionalText,
  tool: optionalText,
  olderThan: optionalText,
  newerThan: optionalText,
});
const bulkApplySchema = z.object({ previewId: z.uuid(), action: z.enum(BULK_ACTION_NAMES), reason: requiredReason });

/** The dry run of a bulk action: what would change and what would be skipped, recorded as a preview to apply. */
export async function previewBulkAction(input: z.input<typeof bulkPreviewSchema>): Promise<BulkResult<{ preview: StudioPreview }>> {
  const parsed = await authenticate('read', bulkPreviewSchema, input);
  if (!parsed.ok) return parsed;
  const { action, status, ...rest } = parsed.data;
  const filter = Object.fromEntries(Object.entries({ ...rest, status: status || undefined }).filter(([, value]) => value !== undefined));
  return previewBulkChange({ action, filter, by: parsed.by as string });
}

/** Applies a preview: each run it listed, judged again now, changed in the operator's name with the reason. */
export async function applyBulkAction(input: z.input<typeof bulkApplySchema>): Promise<BulkResult<{ applied: BulkApplied }>> {
  const parsed = await authenticate('decide', bulkApplySchema, input);
  if (!parsed.ok) return parsed;
  return applyBulkChange({ ...parsed.data, by: parsed.by as string });
}

const scheduleId = z.string().min(1).max(100);
const schedulePauseSchema = z.object({ scheduleId, paused: z.boolean(), reason: requiredReason });
/** One per form the operator opens: a double click or a retried request sends it again and makes no second run. */
const runNowSchema = z.object({
  scheduleId,
  requestId: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/, 'A bad request id: reload the page.'),
  reason: requiredReason,
});

/** Pauses (no executor starts its slots) or unpauses a schedule, in the operator's name with the reason (audited). */
export async function setSchedulePausedAction(input: z.input<typeof schedulePauseSchema>): Promise<ActionResult<{ state: PausedState }>> {
  const parsed = await authenticate('decide', schedulePauseSchema, input);
  if (!parsed.ok) return parsed;
  return setSchedulePaused({ ...parsed.data, by: parsed.by as string });
}

/** Starts one extra run of the schedule now, named by the request (audited with the operator and the reason). */
export async function runScheduleNowAction(input: z.input<typeof runNowSchema>): Promise<ActionResult<{ runId: string; created: boolean }>> {
  const parsed = await authenticate('start', runNowSchema, input);
  if (!parsed.ok) return parsed;
  return runNow({ ...parsed.data, by: parsed.by as string });
}

/** Sends a waiting workflow run an event, recorded with the signed-in operator as its sender. */
export async function sendEventAction(input: z.input<typeof sendEventSchema>): Promise<ActionResult<{ eventId: string; recorded: boolean }>> {
  const parsed = await authenticate('events', sendEventSchema, input);
  if (!parsed.ok) return parsed;
  return sendWorkflowEvent({ ...parsed.data, by: parsed.by as string });
}

/** Starts the demo support-flow workflow (agents/support-flow.ts), executed by the Studio's server. */
export async function startDemoWorkflowAction(input: z.input<typeof demoWorkflowSchema>): Promise<ActionResult<{ runId: string }>> {
  const parsed = await authenticate('start', demoWorkflowSchema, input);
  if (!parsed.ok) return parsed;
  return startDemoWorkflow({ ...parsed.data, by: parsed.by as string });
}

const loginText = z.string().trim().min(1).max(254);
const roleSchema = z.object({ login: loginText, role: z.enum(ROLES), reason: requiredReason });
const signOutSchema = z.object({ login: loginText });
const tokenSchema = z.object({
  name: z.string().trim().min(2, 'Name the token (2 to 64 characters).').max(64),
  scopes: z.array(z.enum(PERMISSIONS)).min(1, 'Choose at least one scope.'),
  agents: z.array(z.string().trim().min(1).max(200)).max(100).optional(),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});
const revokeTokenSchema = z.object({ name: z.string().trim().min(1).max(64), reason: requiredReason });

/** Gives an account another role (admins only), audited with the reason; the last admin keeps the role. */
export async function setRoleAction(input: z.input<typeof roleSchema>): Promise<ActionResult<{ role: string }>> {
  const parsed = await authenticate('admin', roleSchema, input);
  if (!parsed.ok) return parsed;
  return changeRole({ ...parsed.data, by: parsed.by as string });
}

/** Ends every session of a person: anyone for themselves, an admin for anyone (audited). */
export async function signOutEverywhereAction(input: z.input<typeof signOutSchema>): Promise<ActionResult<{ sessions: number }>> {
  const parsed = await authenticate('read', signOutSchema, input);
  if (!parsed.ok) return parsed;
  const operator = await currentOperator();
  if (!operator) return { ok: false, kind: 'unauthenticated', message: 'Your session has ended: sign in again.' };
  if (parsed.data.login.toLowerCase() !== operator.login) {
    const allowed = authorize({ kind: 'operator', login: operator.login, role: operator.role }, 'admin');
    if (!allowed.ok) return { ok: false, kind: 'forbidden', message: `${allowed.message} Only an admin signs another person out.` };
  }
  return signOutPerson({ login: parsed.data.login, by: operator.login });
}

/** Makes an API token (admins only); the answer holds the token this once. */
export async function createTokenAction(input: z.input<typeof tokenSchema>): Promise<ActionResult<{ token: string }>> {
  const parsed = await authenticate('admin', tokenSchema, input);
  if (!parsed.ok) return parsed;
  const made = await makeToken({ ...parsed.data, by: parsed.by as string });
  return made.ok ? { ok: true, token: made.token } : made;
}

/** Revokes an API token (admins only), with the reason. */
export async function revokeTokenAction(input: z.input<typeof revokeTokenSchema>): Promise<ActionResult<{ alreadyRevoked: boolean }>> {
  const parsed = await authenticate('admin', revokeTokenSchema, input);
  if (!parsed.ok) return parsed;
  return revokeToken({ ...parsed.data, by: parsed.by as string });
}

const webhookId = z.string().regex(/^[0-9a-f]{12}$/, 'Not a webhook of this Studio.');
const webhookAddSchema = z.object({
  label: z.string().trim().min(1, 'Say what the webhook is for (a label).').max(80),
  url: z.string().trim().min(1, 'Give the address (https://…).').max(2_000),
  format: z.enum(['json', 'slack']),
});
const webhookRotateSchema = z.object({
  id: webhookId,
  overlapHours: z.number().int().min(0).max(168),
  requestId: z.uuid('A bad request id: reload the page.'),
});
const webhookEnabledSchema = z.object({ id: webhookId, enabled: z.boolean(), reason: requiredReason });
const webhookRemoveSchema = z.object({ id: webhookId, reason: requiredReason });
const webhookTestSchema = z.object({ id: webhookId });

/** Adds a webhook (admins only); the answer holds its signing key this once. */
export async function addWebhookAction(input: z.input<typeof webhookAddSchema>): Promise<ActionResult<{ secret: string; id: string }>> {
  const parsed = await authenticate('admin', webhookAddSchema, input);
  if (!parsed.ok) return parsed;
  const made = await addWebhook({ ...parsed.data, by: parsed.by as string });
  return made.ok ? { ok: true, secret: made.secret, id: made.record.id } : made;
}

/** A new signing key for a webhook (admins only), the old one signing too for the overlap; shown this once. */
export async function rotateWebhookKeyAction(
  input: z.input<typeof webhookRotateSchema>,
): Promise<ActionResult<{ secret: string; previousUntil: string | null }>> {
  const parsed = await authenticate('admin', webhookRotateSchema, input);
  if (!parsed.ok) return parsed;
  return rotateWebhookKey({ ...parsed.data, by: parsed.by as string });
}

/** Pauses or resumes a webhook (admins only), with the reason. */
export async function setWebhookEnabledAction(input: z.input<typeof webhookEnabledSchema>): Promise<ActionResult<{ enabled: boolean }>> {
  const parsed = await authenticate('admin', webhookEnabledSchema, input);
  if (!parsed.ok) return parsed;
  return setWebhookEnabled({ ...parsed.data, by: parsed.by as string });
}

/** Removes a webhook (admins only), with the reason. */
export async function removeWebhookAction(input: z.input<typeof webhookRemoveSchema>): Promise<ActionResult<{ removed: true }>> {
  const parsed = await authenticate('admin', webhookRemoveSchema, input);
  if (!parsed.ok) return parsed;
  return removeWebhook({ ...parsed.data, by: parsed.by as string });
}

/** Sends a webhook a signed test now (admins only); audited with what the receiver answered. */
export async function sendTestWebhookAction(
  input: z.input<typeof webhookTestSchema>,
): Promise<ActionResult<{ delivered: boolean; httpStatus: number | null; error: string | null; ms: number; eventId: string }>> {
  const parsed = await authenticate('admin', webhookTestSchema, input);
  if (!parsed.ok) return parsed;
  return sendTestWebhook({ ...parsed.data, by: parsed.by as string });
}
