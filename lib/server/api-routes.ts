/**
 * The HTTP API's routes, one table: method, path, the permission each needs (authorize.ts), the zod
 * schemas of its query, body and answer, and what it does. api-handler.ts serves the table;
 * openapi.ts makes the OpenAPI document from the same table, so the two cannot disagree
 * (api-handler.test.ts checks every route against the document).
 *
 * What changes a run is done by the same functions the Studio and the CLI call (startRun, startWorkflow,
 * recordDecision, resumeRun, cancelRun, sendEvent), in the token's name (`token:<name>`), so the run's
 * own journal says which service did it.
 */
import { z } from 'zod';
import { type Permission, agentInScope, roleOf } from '@/lib/accounts';
import type { RecordedEvent, RunSummary } from '@/lib/durable';
import {
  decisionAnswer,
  decisionBody,
  eventPage,
  inboxPage,
  reasonBody,
  runResource,
  runResult,
  startedRun,
  startRunBody,
  workflowEventAnswer,
  workflowEventBody,
} from '@/lib/durable/client';
import { cancelRun, type DecisionRequest, recordDecision, resumeAfterDecision, sendEvent, startWorkflow } from '@/lib/executor';
import { toWireEvent } from '@/lib/studio/reads/wire';
import type { ApiCall } from './api-context';
import { problem } from './problem';
import { runName, runResourceOf, runResultOf } from './run-resource';
import { followRun } from './run-follow';

export interface ApiRoute {
  id: string;
  method: 'GET' | 'POST';
  /** OpenAPI style: `/runs/{runId}`. */
  path: string;
  permission: Permission;
  summary: string;
  /** The path names a run: read it first (404), and check it against the token's agents. */
  run?: boolean;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The success answer: its status and schema (`sse`: a text/event-stream). */
  answer: { status: number; schema: z.ZodType | 'sse'; description: string };
  /** Other statuses it may answer with a problem, for the document. */
  problems: number[];
  handle(call: ApiCall): Promise<Response>;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  Response.json(body, { status, headers: { 'Cache-Control': 'no-store', ...headers } });

const intParam = (what: string, max: number) =>
  z.coerce
    .number({ error: `${what}: a number` })
    .int(`${what}: a whole number`)
    .min(0, `${what}: 0 or more`)
    .max(max, `${what}: at most ${max}`)
    .optional();

const WAITING: readonly RunSummary['status'][] = ['waiting-approval', 'waiting-tool-result', 'blocked'];

async function reread(call: ApiCall): Promise<RunSummary> {
  return (await call.context.storage.runs.getRun(call.run.runId)) ?? call.run;
}

export const API_ROUTES: readonly ApiRoute[] = [
  {
    id: 'startRun',
    method: 'POST',
    path: '/runs',
    permission: 'start',
    summary: 'Start a run of a registered agent or workflow (the runId is the request’s idempotency)',
    body: startRunBody,
    answer: { status: 201, schema: startedRun, description: 'Created (200 with created: false when the run existed with this input).' },
    problems: [400, 401, 403, 404, 409, 413, 415, 429],
    async handle(call) {
      const body = call.body as z.output<typeof startRunBody>;
      const { registry, storage, executor } = call.context;
      const name = (body.agent ?? body.workflow) as string;
      const known = body.agent !== undefined ? registry.hasAgent(name) : registry.hasWorkflow(name);
      if (!known)
        return problem({ kind: 'unknown-agent', status: 404, detail: `No ${body.agent !== undefined ? 'agent' : 'workflow'} "${name}" is registered here.` });
      if (!agentInScope(call.principal, name))
        return problem({
          kind: 'out-of-scope',
          status: 403,
          detail: `The token "${call.principal.name}" is limited to ${call.principal.agents?.join(', ')}; it may not start "${name}".`,
        });
      // A runId another agent's run holds is out of scope as that run is on its own routes: compared with the
      // body, its input's differences (which fields) would tell the token what it may not read.
      if (body.runId !== undefined && call.principal.kind === 'token' && call.principal.agents !== null) {
        const existing = await storage.runs.getRun(await storage.runs.runIdOf(body.runId));
        if (existing && !agentInScope(call.principal, runName(existing)))
          return problem({
            kind: 'out-of-scope',
            status: 403,
            detail: `The token "${call.principal.name}" is limited to ${call.principal.agents.join(', ')}; the run "${existing.runId}" is of another agent.`,
          });
      }
      let started: { runId: string; created: boolean; run: RunSummary };
      if (body.agent !== undefined) {
        started = await executor.startRun({ agent: name, ...(body.runId ? { runId: body.runId } : {}), input: body.input as never, by: call.by });
      } else {
        started = await startWorkflow({
          storage,
          registry,
          workflow: name,
          input: body.input,
          ...(body.runId ? { runId: body.runId } : {}),
          ...(body.subject ? { subject: body.subject } : {}),
          by: call.by,
        });
        executor.kick();
      }
      call.made(started.runId);
      const location = `/api/v1/runs/${encodeURIComponent(started.runId)}`;
      return json(started.created ? 201 : 200, { created: started.created, run: runResourceOf(started.run) }, { Location: location });
    },
  },
  {
    id: 'getRun',
    method: 'GET',
    path: '/runs/{runId}',
    permission: 'read',
    run: true,
    summary: 'Read a run: its status and what it waits for',
    answer: { status: 200, schema: runResource, description: 'The run.' },
    problems: [401, 403, 404, 429],
    handle: async (call) => json(200, runResourceOf(call.run)),
  },
  {
    id: 'listEvents',
    method: 'GET',
    path: '/runs/{runId}/events',
    permission: 'read',
    run: true,
    summary: 'Read a run’s journal, a page at a time',
    query: z.strictObject({ after: intParam('after', Number.MAX_SAFE_INTEGER), limit: intParam('limit', 1000) }),
    answer: { status: 200, schema: eventPage, description: 'Events after `after` (default 0), at most `limit` (default 200).' },
    problems: [400, 401, 403, 404, 429],
    async handle(call) {
      const after = Number(call.query.get('after') ?? 0);
      const limit = Number(call.query.get('limit') ?? 200) || 200;
      const events: RecordedEvent[] = await call.context.storage.runs.events(call.run.runId, { afterSeq: after, limit: limit + 1 });
      const page = events.slice(0, limit);
      return json(200, { events: page.map(toWireEvent), lastSeq: page[page.length - 1]?.seq ?? after, more: events.length > limit });
    },
  },
  {
    id: 'followRun',
    method: 'GET',
    path: '/runs/{runId}/follow',
    permission: 'read',
    run: true,
    summary: 'Follow a run live (server-sent events, resumable with Last-Event-ID)',
    query: z.strictObject({ after: intParam('after', Number.MAX_SAFE_INTEGER) }),
    answer: {
      status: 200,
      schema: 'sse',
      description:
        '`events` (a batch of journal events; the SSE id is the last one’s seq), `run` (the run after each batch), `ping`, `signed-out` (the token was revoked or expired: the stream ends).',
    },
    problems: [400, 401, 403, 404, 429],
    handle: async (call) => followRun(call),
  },
  {
    id: 'getResult',
    method: 'GET',
    path: '/runs/{runId}/result',
    permission: 'read',
    run: true,
    summary: 'Read what a run ended with (finished: false while it has not)',
    answer: { status: 200, schema: runResult, description: 'The result, or the status while the run goes on.' },
    problems: [401, 403, 404, 429],
    async handle(call) {
      const finished = ['completed', 'failed', 'canceled'].includes(call.run.status);
      const events = finished ? await call.context.storage.runs.events(call.run.runId) : [];
      return json(200, runResultOf(call.run, events));
    },
  },
  {
    id: 'listInbox',
    method: 'GET',
    path: '/inbox',
    permission: 'read',
    summary: 'Runs that wait for a person: approvals, tool results, side effects of unknown outcome',
    answer: { status: 200, schema: inboxPage, description: 'Newest first, at most 500 per status, only the token’s agents.' },
    problems: [401, 403, 429],
    async handle(call) {
      const runs: RunSummary[] = [];
      // A token limited to agents reads only theirs: a page read first and filtered after would miss them
      // behind 500 waiting runs of others.
      const names = call.principal.kind === 'token' && call.principal.agents !== null ? { names: call.principal.agents } : {};
      for (const status of WAITING) runs.push(...(await call.context.storage.runs.listRuns({ status, limit: 500, ...names })).runs);
      const items = runs
        .filter((run) => agentInScope(call.principal, runName(run)))
        .sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())
        .map((run) => {
          const resource = runResourceOf(run);
          return { runId: run.runId, name: resource.name, status: run.status, pending: resource.pending, updatedAt: resource.updatedAt };
        });
      return json(200, { items });
    },
  },
  {
    id: 'decide',
    method: 'POST',
    path: '/runs/{runId}/decisions',
    permission: 'decide',
    run: true,
    summary: 'Decide on a call: approve, reject, mark done (output checked by the tool’s schema), mark not done, provide a result',
    body: decisionBody,
    answer: { status: 201, schema: decisionAnswer, description: 'Recorded; the run resumes once nothing it waits for is left undecided.' },
    problems: [400, 401, 403, 404, 409, 413, 415, 429],
    async handle(call) {
      const body = call.body as z.output<typeof decisionBody>;
      const base = { runId: call.run.runId, toolCallId: body.toolCallId, by: call.by };
      const request: DecisionRequest =
        body.decision === 'approve'
          ? {
              kind: 'approve',
              ...base,
              // A call whose approval rule names a role: the token's, by its scopes (authorize.ts roleOf).
              role: roleOf(call.principal),
              ...(body.reason ? { reason: body.reason } : {}),
              ...(body.input !== undefined ? { input: body.input } : {}),
            }
          : body.decision === 'reject'
            ? { kind: 'reject', ...base, ...(body.reason ? { reason: body.reason } : {}) }
            : body.decision === 'provide'
              ? { kind: 'provide', ...base, output: body.output, ...(body.reason ? { reason: body.reason } : {}) }
              : {
                  kind: 'resolve',
                  ...base,
                  reason: body.reason,
                  outcome: body.decision === 'mark-done' ? 'done' : 'not-done',
                  ...(body.decision === 'mark-done' ? { output: body.output } : {}),
                };
      const recorded = await recordDecision(request, { storage: call.context.storage, registry: call.context.registry });
      if (!recorded.ok)
        return problem({
          kind: 'invalid-request',
          status: 400,
          detail: recorded.message,
          errors: (recorded.issues ?? []).map((issue) => ({ path: `output${issue.path ? `.${issue.path}` : ''}`, message: issue.message })),
        });
      const after = await reread(call);
      const next = resumeAfterDecision(request, after);
      const resumed = next.resume !== undefined && WAITING.includes(after.status);
      if (next.resume && resumed) await call.context.executor.resumeRun(after.runId, next.resume);
      const approvals = recorded.decision.approvals ? { approvals: recorded.decision.approvals } : {};
      return json(201, { recorded: true, resumed, ...approvals, run: runResourceOf(await reread(call)) });
    },
  },
  {
    id: 'sendWorkflowEvent',
    method: 'POST',
    path: '/runs/{runId}/workflow-events',
    permission: 'events',
    run: true,
    summary: 'Send an event to a workflow run (checked by the schema its workflow declares; once per eventId)',
    body: workflowEventBody,
    answer: { status: 202, schema: workflowEventAnswer, description: 'Journaled (recorded: false when this eventId was sent before).' },
    problems: [400, 401, 403, 404, 409, 413, 415, 429],
    async handle(call) {
      const body = call.body as z.output<typeof workflowEventBody>;
      const sent = await sendEvent({
        storage: call.context.storage,
        registry: call.context.registry,
        runId: call.run.runId,
        name: body.name,
        by: call.by,
        ...(body.payload !== undefined ? { payload: body.payload } : {}),
        ...(body.eventId !== undefined ? { eventId: body.eventId } : {}),
      });
      call.context.executor.kick();
      return json(202, sent);
    },
  },
  {
    id: 'cancelRun',
    method: 'POST',
    path: '/runs/{runId}/cancel',
    permission: 'decide',
    run: true,
    summary: 'Cancel a run (it stops at its next step boundary; a workflow’s children with it)',
    body: reasonBody,
    answer: { status: 200, schema: runResource, description: 'The run after the cancel.' },
    problems: [400, 401, 403, 404, 409, 413, 415, 429],
    async handle(call) {
      await cancelRun(call.run.runId, { storage: call.context.storage, by: call.by, reason: (call.body as { reason: string }).reason });
      return json(200, runResourceOf(await reread(call)));
    },
  },
  {
    id: 'resumeRun',
    method: 'POST',
    path: '/runs/{runId}/resume',
    permission: 'decide',
    run: true,
    summary: 'Resume a run that stopped (journaled with who asked and why)',
    body: reasonBody,
    answer: { status: 200, schema: runResource, description: 'The run, resumed by this server’s executor.' },
    problems: [400, 401, 403, 404, 409, 413, 415, 429],
    async handle(call) {
      await call.context.executor.resumeRun(call.run.runId, { by: call.by, reason: (call.body as { reason: string }).reason });
      return json(200, runResourceOf(await reread(call)));
    },
  },
];
