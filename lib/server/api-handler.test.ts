/**
 * The HTTP API on real journals, with the demo agent, its real outside service (judged by the service's
 * own counters) and a real executor: driven through the typed client (its fetch is the handler) and by
 * hand for what a client never sends (bad bodies, tokens in URLs, wrong scopes). Every token state,
 * every scope, the agent limits, the rate limit, the audit, and the OpenAPI document against the routes.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { supportAgent } from '@/agents/support';
import { apiTokens } from '@/db/schema';
import { apiTokenAuditTrail, createApiToken, revokeApiToken } from '@/lib/accounts';
import { createAgentRegistry } from '@/lib/agents';
import { type OutsideService, startOutsideService } from '@/lib/demo';
import { defineWorkflow, RunState } from '@/lib/durable';
import { createGnlClient, GnlApiError } from '@/lib/durable/client';
import { Executor, queueEntry } from '@/lib/executor';
import { describeEachStorage } from '@/tests/support/executor-storages';
import { uniqueRunId } from '@/tests/support/journals';
import { API_ROUTES, createApi, openApiDocument } from './index';
import { tokenBuckets } from './rate-limit';

const REFUND = { prompt: 'Customer c_42 wants a refund of 40 for order o_17' };
const BASE = 'http://127.0.0.1:9';

const waitsForReply = defineWorkflow({
  name: 'waits-for-reply',
  input: z.object({ customer: z.string() }),
  events: { 'customer-reply': z.object({ text: z.string() }) },
  run: async (wf, { customer }) => {
    const reply = await wf.waitForEvent<{ text: string }>('customer-reply', { timeoutMs: 600_000 });
    return { customer, reply: reply.timedOut ? null : reply.payload.text };
  },
});

describeEachStorage('the HTTP API', (holder) => {
  let service: OutsideService;
  let executor: Executor;
  let api: ReturnType<typeof createApi>;
  const tokens: Record<string, string> = {};
  const suffix = crypto.randomUUID().slice(0, 8);

  beforeAll(async () => {
    service = await startOutsideService();
    const registry = createAgentRegistry(
      [
        supportAgent({ serviceUrl: service.url }),
        // Its refunds need two admins, neither of them who started the run (the approval-rule test).
        supportAgent({ name: 'support-guarded', serviceUrl: service.url, refundApprovers: { role: 'admin', approvals: 2, fourEyes: true } }),
      ],
      { workflows: [waitsForReply] },
    );
    executor = new Executor({ storage: holder.storage, registry, concurrency: 3, leaseMs: 5_000, pollMs: 50 }).start();
    api = createApi({ storage: holder.storage, registry, executor, rateLimit: tokenBuckets({ perSecond: 1000, burst: 1000 }), stream: { heartbeatMs: 200 } });
    const make = async (name: string, scopes: string[], extra: { agents?: string[] } = {}) => {
      tokens[name] = (await createApiToken({ storage: holder.storage, name: `${name}-${suffix}`, scopes, by: 'ops@example.com', ...extra })).token;
    };
    await make('service', ['read', 'start', 'decide', 'events']);
    await make('reader', ['read']);
    await make('starter', ['start']);
    await make('other-agent', ['admin'], { agents: ['billing'] });
    await make('guarded-only', ['read', 'start'], { agents: ['support-guarded'] });
    for (const admin of ['admin-a', 'admin-b', 'admin-c']) await make(admin, ['admin']);
    await make('revoked', ['read']);
    await make('expired', ['read']);
    await revokeApiToken({ storage: holder.storage, name: `revoked-${suffix}`, by: 'ops@example.com', reason: 'leaked in a log' });
    const db = await holder.storage.database();
    await db.transaction((tx) =>
      tx
        .update(apiTokens)
        .set({ expiresAt: new Date(Date.now() - 60_000) })
        .where(eq(apiTokens.name, `expired-${suffix}`)),
    );
  });
  afterAll(async () => {
    await executor.stop({ graceMs: 5_000 });
    await service.close();
  });

  const fetchVia = (): typeof fetch => (input, init) => api.handle(new Request(input as string, init));
  const client = (token = tokens.service as string) => createGnlClient({ baseUrl: BASE, token, fetch: fetchVia() });
  const raw = (method: string, path: string, options: { token?: string | null; body?: string; headers?: Record<string, string> } = {}) =>
    api.handle(
      new Request(`${BASE}/api/v1${path}`, {
        method,
        headers: {
          ...(options.token === null ? {} : { Authorization: `Bearer ${options.token ?? tokens.service}` }),
          ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...options.headers,
        },
        ...(options.body !== undefined ? { body: options.body } : {}),
      }),
    );
  const problemOf = async (response: Response) => ({ status: response.status, type: response.headers.get('content-type'), body: await response.json() });
  const settled = async (runId: string, outcome: string) => {
    for (let i = 0; i < 400; i++) {
      const entry = await queueEntry(runId, { storage: holder.storage });
      if (entry && !entry.runnable && entry.leaseOwner === null && entry.outcome === outcome) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`run ${runId} did not settle as ${outcome}`);
  };

  it('a service starts a run, follows it to its approval, approves the refund and reads the result: one refund, the decision in the token’s name', async () => {
    const before = service.stats();
    const runId = uniqueRunId('api-refund');
    const gnl = client();
    const started = await gnl.start({ agent: 'support', runId, input: REFUND });
    expect(started).toMatchObject({ created: true, run: { runId, kind: 'agent', name: 'support' } });
    // The runId is the request's idempotency: the same start is the same run; another input is refused.
    expect(await gnl.start({ agent: 'support', runId, input: REFUND })).toMatchObject({ created: false, run: { runId } });
    const conflict = await gnl.start({ agent: 'support', runId, input: { prompt: 'something else' } }).catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(GnlApiError);
    expect(conflict).toMatchObject({ status: 409, kind: 'run-input-conflict', problem: { fields: ['prompt'] } });

    const seen: number[] = [];
    let waiting: Awaited<ReturnType<typeof gnl.get>> | undefined;
    for await (const update of gnl.follow(runId, { until: (run) => run.status === 'waiting-approval' })) {
      if (update.type === 'events') seen.push(...update.events.map((e) => e.seq));
      else waiting = update.run;
    }
    expect(waiting).toMatchObject({ status: 'waiting-approval', pending: [{ toolName: 'issueRefund', kind: 'approval' }] });
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1)); // each event once, in order
    expect((await gnl.inbox()).items.map((item) => item.runId)).toContain(runId);

    const toolCallId = waiting?.pending[0]?.toolCallId as string;
    await settled(runId, 'waiting-approval');
    const decided = await gnl.decide(runId, { decision: 'approve', toolCallId, reason: 'within policy' });
    expect(decided).toMatchObject({ recorded: true, resumed: true });
    const twice = await gnl.decide(runId, { decision: 'approve', toolCallId }).catch((e: unknown) => e);
    expect(twice).toMatchObject({ status: 409, kind: 'decision-conflict', problem: { reason: 'already-decided', decidedBy: `token:service-${suffix}` } });

    // Following again from where it stopped: only what came after, to the end.
    let last: number = seen[seen.length - 1] as number;
    for await (const update of gnl.follow(runId, { after: last })) {
      if (update.type === 'events') {
        expect(update.events[0]?.seq).toBe(last + 1);
        last = update.events[update.events.length - 1]?.seq as number;
      }
    }
    const result = await gnl.result(runId);
    expect(result).toMatchObject({ runId, status: 'completed', finished: true });
    expect(result.text?.length).toBeGreaterThan(0);
    expect(service.stats().refunds.performed - before.refunds.performed).toBe(1);
    const events = await gnl.events(runId, { limit: 1000 });
    expect(events.more).toBe(false);
    expect(events.events.find((e) => e.type === 'tool-approval-response')).toMatchObject({ by: `token:service-${suffix}`, reason: 'within policy' });
    expect(events.events.find((e) => e.type === 'run-resume-request')).toMatchObject({ by: `token:service-${suffix}` });
    const page = await gnl.events(runId, { after: 2, limit: 3 });
    expect(page).toMatchObject({ more: true, lastSeq: 5 });
    expect(page.events.map((e) => e.seq)).toEqual([3, 4, 5]);

    const audit = await apiTokenAuditTrail(`service-${suffix}`, { storage: holder.storage });
    expect(audit[0]).toMatchObject({ action: 'created', by: 'ops@example.com' });
    const calls = audit.filter((a) => a.action === 'call').map((a) => a.detail);
    expect(calls).toContainEqual({ method: 'POST', route: '/runs/{runId}/decisions', status: 201, runId });
    expect(calls).toContainEqual({ method: 'POST', route: '/runs/{runId}/decisions', status: 409, runId });
    expect(calls).toContainEqual({ method: 'POST', route: '/runs', status: 409 });
    // A start's row names the run it made, as a run route's names its run.
    expect(calls).toContainEqual({ method: 'POST', route: '/runs', status: 201, runId });
  });

  it('a refund under an approval rule: a decide-only token is refused by the role, the starter by four eyes, the same admin twice; two other admins approve, the first counted; one refund', async () => {
    const before = service.stats().refunds.performed;
    const runId = uniqueRunId('api-rule');
    await client(tokens['admin-a']).start({ agent: 'support-guarded', runId, input: REFUND });
    await settled(runId, 'waiting-approval');
    const waiting = await client().get(runId);
    const toolCallId = waiting.pending[0]?.toolCallId as string;
    const approve = (token: string) =>
      client(token)
        .decide(runId, { decision: 'approve', toolCallId })
        .catch((e: unknown) => e);
    expect(await approve(tokens.service as string)).toMatchObject({ status: 403, kind: 'approval-rule', problem: { reason: 'role' } });
    expect(await approve(tokens['admin-a'] as string)).toMatchObject({ status: 403, kind: 'approval-rule', problem: { reason: 'four-eyes' } });
    expect(await approve(tokens['admin-b'] as string)).toMatchObject({ recorded: true, resumed: false, approvals: { given: 1, needed: 2 } });
    expect(await approve(tokens['admin-b'] as string)).toMatchObject({ status: 403, problem: { reason: 'approved-already' } });
    expect(service.stats().refunds.performed).toBe(before);
    expect(await approve(tokens['admin-c'] as string)).toMatchObject({ recorded: true, resumed: true, approvals: { given: 2, needed: 2 } });
    for await (const _ of client().follow(runId)) {
      // to the end
    }
    expect((await client().result(runId)).status).toBe('completed');
    expect(service.stats().refunds.performed - before).toBe(1);
    const events = (await client().events(runId, { limit: 1000 })).events;
    expect(events[0]).toMatchObject({ type: 'run-start', by: `token:admin-a-${suffix}` });
    expect(events.filter((e) => e.type === 'tool-approval-vote')).toMatchObject([{ by: `token:admin-b-${suffix}` }]);
    expect(events.find((e) => e.type === 'tool-approval-response')).toMatchObject({ by: `token:admin-c-${suffix}`, approved: true });
  });

  it('cancels with a reason (none is refused), refuses a resume of a canceled run, and sends a workflow an event once per id, checked by its schema', async () => {
    const gnl = client();
    const runId = uniqueRunId('api-cancel');
    await gnl.start({ agent: 'support', runId, input: REFUND });
    await settled(runId, 'waiting-approval');
    const noReason = await raw('POST', `/runs/${encodeURIComponent(runId)}/cancel`, { body: '{}' });
    expect(await problemOf(noReason)).toMatchObject({ status: 400, body: { errors: [{ path: 'body.reason' }] } });
    expect(await gnl.cancel(runId, 'customer withdrew')).toMatchObject({ status: 'canceled' });
    const resume = await gnl.resume(runId, 'try again').catch((e: unknown) => e);
    expect(resume).toMatchObject({ status: 409, kind: 'not-resumable' });
    const notWorkflow = await gnl.sendEvent(runId, { name: 'customer-reply', payload: { text: 'hi' } }).catch((e: unknown) => e);
    expect(notWorkflow).toMatchObject({ status: 409, kind: 'event-refused', problem: { reason: 'not-a-workflow' } });

    const flow = uniqueRunId('api-flow');
    expect(await gnl.start({ workflow: 'waits-for-reply', runId: flow, input: { customer: 'c_42' } })).toMatchObject({
      created: true,
      run: { kind: 'workflow' },
    });
    // A subject the journal cannot keep is refused before anything is written (recorded, every invocation of
    // the run would fail on it), and one beside an agent's start is refused rather than dropped.
    const longSubject = await raw('POST', '/runs', {
      body: JSON.stringify({ workflow: 'waits-for-reply', runId: uniqueRunId('api-flow'), input: { customer: 'c_42' }, subject: 'x'.repeat(300) }),
    });
    expect(await problemOf(longSubject)).toMatchObject({ status: 400, body: { errors: [{ path: 'body.subject' }] } });
    const controlSubject = uniqueRunId('api-flow');
    const control = await raw('POST', '/runs', {
      body: JSON.stringify({ workflow: 'waits-for-reply', runId: controlSubject, input: { customer: 'c_42' }, subject: 'customer\u0000c_42' }),
    });
    expect((await problemOf(control)).status).toBe(400);
    expect(await holder.storage.runs.getRun(controlSubject)).toBeUndefined();
    const besideAgent = await raw('POST', '/runs', { body: JSON.stringify({ agent: 'support', input: { prompt: 'Refund o_17' }, subject: 'customer:c_42' }) });
    expect(await problemOf(besideAgent)).toMatchObject({ status: 400, body: { errors: [{ path: 'body.subject' }] } });
    // Its start records the token that started it, as an agent's does.
    expect(new RunState(await holder.storage.runs.events(flow)).startedBy).toBe(`token:service-${suffix}`);
    expect(new RunState(await holder.storage.runs.events(runId)).startedBy).toBe(`token:service-${suffix}`);
    const bad = await gnl.sendEvent(flow, { name: 'customer-reply', eventId: 'reply-1', payload: { text: 7 } }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, kind: 'event-refused', problem: { reason: 'invalid-payload' } });
    expect(await gnl.sendEvent(flow, { name: 'customer-reply', eventId: 'reply-1', payload: { text: 'thanks' } })).toMatchObject({ recorded: true });
    expect(await gnl.sendEvent(flow, { name: 'customer-reply', eventId: 'reply-1', payload: { text: 'thanks' } })).toMatchObject({ recorded: false });
    // The same id for another event is refused, never taken for delivered; an id longer than the journal keeps is a 400 naming it.
    const taken = await gnl.sendEvent(flow, { name: 'customer-left', eventId: 'reply-1' }).catch((e: unknown) => e);
    expect(taken).toMatchObject({ status: 409, kind: 'event-refused', problem: { reason: 'event-id-taken' } });
    const longId = await raw('POST', `/runs/${encodeURIComponent(flow)}/workflow-events`, {
      body: JSON.stringify({ name: 'customer-reply', eventId: 'e'.repeat(300) }),
    });
    expect(await problemOf(longId)).toMatchObject({ status: 400, body: { errors: [{ path: 'body.eventId' }] } });
    // A workflow's input its schema refuses is the client's to fix (400, each problem named), not a 500 it would retry.
    const badInput = await gnl.start({ workflow: 'waits-for-reply', input: {} }).catch((e: unknown) => e);
    expect(badInput).toMatchObject({ status: 400, kind: 'invalid-request', problem: { errors: [{ path: 'body.input' }] } });
    // A retried start naming another subject than the run's is refused (the run keeps its subject; erasure finds it by it).
    const withSubject = uniqueRunId('api-flow');
    await gnl.start({ workflow: 'waits-for-reply', runId: withSubject, input: { customer: 'c_42' }, subject: 'customer:c_42' });
    const otherSubject = await gnl
      .start({ workflow: 'waits-for-reply', runId: withSubject, input: { customer: 'c_42' }, subject: 'customer:c_43' })
      .catch((e: unknown) => e);
    expect(otherSubject).toMatchObject({ status: 409, kind: 'run-input-conflict', problem: { fields: ['subject'] } });
    await gnl.cancel(withSubject, 'the test is done with it');
    for await (const _ of gnl.follow(flow)) {
      // to the end
    }
    expect(await gnl.result(flow)).toMatchObject({ status: 'completed', output: { customer: 'c_42', reply: 'thanks' } });
  });

  it('refuses every token state with its reason, never a token in the URL, and each missing scope or agent', async () => {
    const path = '/inbox';
    const cases: [string | null, number, string][] = [
      [null, 401, 'Send an API token'],
      ['not-a-token', 401, 'not a GNL API token'],
      [`gnl_${'A'.repeat(43)}`, 401, 'No API token matches'],
      [tokens.revoked as string, 401, 'was revoked by ops@example.com'],
      [tokens.expired as string, 401, 'expired at'],
    ];
    for (const [token, status, detail] of cases) {
      const refused = await problemOf(await raw('GET', path, { token }));
      expect(refused).toMatchObject({
        status,
        type: 'application/problem+json',
        body: { type: 'urn:gnl:problem:unauthenticated', detail: expect.stringContaining(detail) },
      });
    }
    const basic = await raw('GET', path, { token: null, headers: { Authorization: `Basic ${btoa('a:b')}` } });
    expect(basic.status).toBe(401);
    const inUrl = await problemOf(await raw('GET', `${path}?access_token=${tokens.service}`));
    expect(inUrl).toMatchObject({ status: 400, body: { type: 'urn:gnl:problem:token-in-url' } });
    const inUrlOnly = await raw('GET', `${path}?token=${tokens.service}`, { token: null });
    expect(inUrlOnly.status).toBe(400); // refused, never used

    const runId = uniqueRunId('api-scope');
    await client().start({ agent: 'support', runId, input: REFUND });
    const reader = client(tokens.reader);
    expect(await reader.get(runId)).toMatchObject({ runId });
    await expect(reader.start({ agent: 'support', input: REFUND })).rejects.toMatchObject({ status: 403, kind: 'forbidden' });
    await expect(reader.cancel(runId, 'no')).rejects.toMatchObject({ status: 403, kind: 'forbidden' });
    await expect(reader.sendEvent(runId, { name: 'x' })).rejects.toMatchObject({ status: 403, kind: 'forbidden' });
    await expect(client(tokens.starter).get(runId)).rejects.toMatchObject({ status: 403, kind: 'forbidden' });
    const other = client(tokens['other-agent']);
    await expect(other.get(runId)).rejects.toMatchObject({ status: 403, kind: 'out-of-scope' });
    await expect(other.start({ agent: 'support', input: REFUND })).rejects.toMatchObject({ status: 403, kind: 'out-of-scope' });
    // A start of its own agent under another agent's runId: refused as out of scope, the other run's input never
    // compared (a 409 naming the fields that differ would confirm a guessed prompt), nor its agent named.
    const guarded = client(tokens['guarded-only']);
    for (const guess of [REFUND, { prompt: 'a wrong guess' }]) {
      const refused = await guarded.start({ agent: 'support-guarded', runId, input: guess }).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 403, kind: 'out-of-scope' });
      expect(JSON.stringify(refused)).not.toContain('"support"');
    }
    expect((await other.inbox()).items).toEqual([]);
    // A token limited to an agent reads that agent's waiting runs, chosen by the journal's read (listRuns names),
    // not by filtering a page of everyone's.
    const own = uniqueRunId('api-scope-own');
    await guarded.start({ agent: 'support-guarded', runId: own, input: REFUND });
    await settled(own, 'waiting-approval');
    const ownInbox = (await guarded.inbox()).items.map((item) => item.runId);
    expect(ownInbox).toContain(own);
    expect(ownInbox).not.toContain(runId);
    expect((await client().cancel(own, 'done with it')).status).toBe('canceled');
    expect((await client().cancel(runId, 'done with it')).status).toBe('canceled');
  });

  it('refuses bad requests with each problem named, and writes nothing: unknown fields, wrong types, huge bodies, not JSON, unknown routes and runs', async () => {
    const runId = uniqueRunId('api-bad');
    const cases: [string, string, string | undefined, Record<string, string>, number, unknown][] = [
      [
        'POST',
        '/runs',
        JSON.stringify({ agent: 'support', runId, input: REFUND, priority: 9 }),
        {},
        400,
        { errors: [{ message: 'unknown field(s): priority' }] },
      ],
      ['POST', '/runs', JSON.stringify({ agent: 7, runId, input: REFUND }), {}, 400, { errors: [{ path: 'body.agent' }] }],
      ['POST', '/runs', JSON.stringify({ runId, input: REFUND }), {}, 400, { errors: [{ message: 'name exactly one of agent and workflow' }] }],
      ['POST', '/runs', JSON.stringify({ agent: 'support', runId, input: { prompt: '' } }), {}, 400, { detail: expect.stringContaining('prompt') }],
      ['POST', '/runs', JSON.stringify({ agent: 'nobody', runId, input: REFUND }), {}, 404, { type: 'urn:gnl:problem:unknown-agent' }],
      ['POST', '/runs', JSON.stringify({ agent: 'support', runId: `${runId}\u202e`, input: REFUND }), {}, 400, { detail: expect.stringContaining('U+202E') }],
      ['POST', '/runs', '{"agent":', {}, 400, { detail: expect.stringContaining('not JSON') }],
      ['POST', '/runs', JSON.stringify({ agent: 'support', input: { prompt: 'x'.repeat(300_000) } }), {}, 413, { type: 'urn:gnl:problem:body-too-large' }],
      ['POST', '/runs', 'agent=support', { 'Content-Type': 'application/x-www-form-urlencoded' }, 415, { type: 'urn:gnl:problem:unsupported-media-type' }],
      ['GET', '/runs/nope%20run', undefined, {}, 404, { type: 'urn:gnl:problem:not-found' }],
      ['GET', '/nothing-here', undefined, {}, 404, { type: 'urn:gnl:problem:not-found' }],
      ['DELETE', '/runs', undefined, {}, 405, { type: 'urn:gnl:problem:method-not-allowed' }],
      ['GET', '/runs/x/events?after=-1', undefined, {}, 404, {}],
    ];
    for (const [method, path, body, headers, status, expected] of cases) {
      const answer = await problemOf(await raw(method, path, { ...(body !== undefined ? { body } : {}), headers }));
      expect({ path, ...answer }).toMatchObject({ path, status, type: 'application/problem+json', body: expected });
    }
    expect(await holder.storage.runs.getRun(runId)).toBeUndefined();

    await client().start({ agent: 'support', runId, input: REFUND });
    await settled(runId, 'waiting-approval');
    const run = encodeURIComponent(runId);
    const query = await problemOf(await raw('GET', `/runs/${run}/events?after=-1&color=red`));
    expect(query).toMatchObject({ status: 400, body: { errors: expect.arrayContaining([{ path: 'query.after', message: 'after: 0 or more' }]) } });
    const other = await problemOf(
      await raw('POST', `/runs/${run}/decisions`, { body: JSON.stringify({ decision: 'approve', toolCallId: 'call-of-another-run' }) }),
    );
    expect(other).toMatchObject({ status: 409, body: { type: 'urn:gnl:problem:decision-conflict' } });
    const wrongOutput = await problemOf(
      await raw('POST', `/runs/${run}/decisions`, { body: JSON.stringify({ decision: 'mark-done', toolCallId: 'x', reason: 'r', output: 1, extra: true }) }),
    );
    expect(wrongOutput).toMatchObject({ status: 400, body: { errors: [{ message: 'unknown field(s): extra' }] } });
    expect((await holder.storage.runs.getRun(runId))?.status).toBe('waiting-approval');
    await client().cancel(runId, 'cleanup');
  });

  it('rate-limits per token (429 with Retry-After, the client waits it out), and audits every call with its status', async () => {
    const limited = createApi({
      storage: holder.storage,
      registry: createAgentRegistry([]),
      executor,
      rateLimit: tokenBuckets({ perSecond: 2, burst: 2 }),
    });
    const { token } = await createApiToken({ storage: holder.storage, name: `limited-${suffix}`, scopes: ['read'], by: 'ops@example.com' });
    const ask = () => limited.handle(new Request(`${BASE}/api/v1/inbox`, { headers: { Authorization: `Bearer ${token}` } }));
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    const third = await ask();
    expect(third.status).toBe(429);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const waited = createGnlClient({ baseUrl: BASE, token, fetch: (input, init) => limited.handle(new Request(input as string, init)) });
    expect((await waited.inbox()).items).toBeInstanceOf(Array);
    const audit = await apiTokenAuditTrail(`limited-${suffix}`, { storage: holder.storage });
    // 429s are refused before any work, and not audited as calls (a flood must not flood the audit).
    expect(audit.filter((a) => a.action === 'call').map((a) => a.detail.status)).toEqual([200, 200, 200]);
  });
});

describeEachStorage('the API when the journal fails a read', (holder) => {
  it('answers 500 and still audits the call, with its status', async () => {
    // The journal drops the read of the run (a lost session), after the token was checked on the same database.
    const runs = new Proxy(holder.storage.runs, {
      get(target, property, receiver) {
        if (property === 'getRun') return async () => Promise.reject(new Error('Connection terminated unexpectedly'));
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const storage = Object.create(holder.storage, { runs: { value: runs } }) as typeof holder.storage;
    const registry = createAgentRegistry([]);
    // Not started: this route reads, it executes nothing.
    const executor = new Executor({ storage: holder.storage, registry });
    const api = createApi({ storage, registry, executor, rateLimit: tokenBuckets({ perSecond: 100, burst: 100 }) });
    const name = `failing-${crypto.randomUUID().slice(0, 8)}`;
    const { token } = await createApiToken({ storage: holder.storage, name, scopes: ['read'], by: 'ops@example.com' });
    const logged = console.error;
    console.error = () => {};
    let answer: Response;
    try {
      answer = await api.handle(
        new Request(`${BASE}/api/v1/runs/${encodeURIComponent(uniqueRunId('gone'))}`, { headers: { Authorization: `Bearer ${token}` } }),
      );
    } finally {
      console.error = logged;
    }
    expect(answer.status).toBe(500);
    const audit = await apiTokenAuditTrail(name, { storage: holder.storage });
    expect(audit.filter((a) => a.action === 'call').map((a) => a.detail)).toMatchObject([{ method: 'GET', status: 500 }]);
  });
});

describeEachStorage('the API when the audit cannot be written', (holder) => {
  it('answers with the work it did (a start is not refused after the run exists), and logs the call in full', async () => {
    const service = await startOutsideService();
    const registry = createAgentRegistry([supportAgent({ serviceUrl: service.url })]);
    const executor = new Executor({ storage: holder.storage, registry });
    const api = createApi({ storage: holder.storage, registry, executor, rateLimit: tokenBuckets({ perSecond: 100, burst: 100 }) });
    const name = `audit-down-${crypto.randomUUID().slice(0, 8)}`;
    const { token } = await createApiToken({ storage: holder.storage, name, scopes: ['start', 'read'], by: 'ops@example.com' });
    // The database refuses the audit's insert, as a full disk or a revoked grant would.
    const db = await holder.storage.database();
    await db.execute(sql.raw(`create function gnl_test_refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit refused'; end $$`));
    await db.execute(
      sql.raw(
        `create trigger gnl_test_refuse_audit before insert on gnl.api_token_audit for each row when (new.action = 'call') execute function gnl_test_refuse_audit()`,
      ),
    );
    const logged: unknown[][] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    const runId = uniqueRunId('audit-down');
    let answer: Response;
    try {
      answer = await api.handle(
        new Request(`${BASE}/api/v1/runs`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ agent: 'support', runId, input: { prompt: 'Customer c_42 asks where order o_17 is' } }),
        }),
      );
    } finally {
      console.error = log;
      await db.execute(sql.raw('drop trigger gnl_test_refuse_audit on gnl.api_token_audit'));
      await db.execute(sql.raw('drop function gnl_test_refuse_audit()'));
      await service.close();
    }
    expect(answer.status).toBe(201);
    expect(await holder.storage.runs.getRun(runId)).toMatchObject({ runId });
    expect(String(logged[0]?.[0])).toContain('the audit of a call could not be written');
    expect(String(logged[0]?.[0])).toContain(`"name":"${name}"`);
  });
});

describe('the OpenAPI document', () => {
  it('is generated from the route table: every route is in it with its permission and schemas, and nothing else', () => {
    const document = openApiDocument() as unknown as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; 'x-gnl-permission': string }>>;
    };
    expect(document.openapi).toBe('3.1.0');
    const inDocument = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId} ${op['x-gnl-permission']}`),
    );
    expect(inDocument.sort()).toEqual(API_ROUTES.map((r) => `${r.method} ${r.path} ${r.id} ${r.permission}`).sort());
    const start = document.paths['/runs']?.post as unknown as { requestBody: { content: Record<string, { schema: unknown }> } };
    expect(JSON.stringify(start.requestBody.content['application/json']?.schema)).toContain('StartRun');
  });
});
