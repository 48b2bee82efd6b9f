/**
 * A typed client of GNL's HTTP API (docs/api.md), for another service: start a run, follow it live,
 * decide, send a workflow an event, read its result. fetch only. Every answer is parsed with the wire's
 * schemas (api-schemas.ts); a refusal is GnlApiError carrying the server's problem details.
 *
 * - A 429 is waited out (its Retry-After) and asked again, at most `retries` times: nothing was done.
 * - `follow` reconnects by itself after a dropped connection or a restarted server, from the last event
 *   it received (Last-Event-ID): each event once, in order, across reconnects.
 */
import type { z } from 'zod';
import {
  type DecisionBody,
  decisionAnswer,
  type ApiJournalEvent,
  eventPage,
  inboxPage,
  runResource,
  type RunResource,
  runResult,
  type StartRunBody,
  startedRun,
  type WorkflowEventBody,
  workflowEventAnswer,
} from './api-schemas';

export interface GnlClientOptions {
  /** The server, e.g. `http://127.0.0.1:3000` (the API is under /api/v1). */
  baseUrl: string;
  /** An API token (`gnl token create`): sent as `Authorization: Bearer`, never in a URL. */
  token: string;
  fetch?: typeof fetch;
  /** How many times a 429 is waited out and asked again. Default 3. */
  retries?: number;
}

export interface FollowOptions {
  /** Events after this sequence number. Default 0: the whole journal, then live. */
  after?: number;
  /** Stops following once this holds for the run. Default: it finished (completed, failed, canceled). */
  until?(run: RunResource): boolean;
  signal?: AbortSignal;
  /** The longest pause between reconnects. Default 5 000 ms. */
  maxBackoffMs?: number;
}

export type FollowUpdate = { type: 'events'; events: ApiJournalEvent[] } | { type: 'run'; run: RunResource };

/** The server refused: `status` and its RFC 9457 problem (`type`, `title`, `detail`, extensions). */
export class GnlApiError extends Error {
  override name = 'GnlApiError';
  readonly status: number;
  readonly problem: { type: string; title: string; detail: string; [key: string]: unknown };
  constructor(status: number, problem: GnlApiError['problem']) {
    super(`${problem.title} (${status}): ${problem.detail}`);
    this.status = status;
    this.problem = problem;
  }
  /** The problem's kind: the last part of its type (`urn:gnl:problem:decision-conflict` → `decision-conflict`). */
  get kind(): string {
    return this.problem.type.split(':').pop() ?? this.problem.type;
  }
}

const FINISHED = new Set(['completed', 'failed', 'canceled']);

export interface GnlClient {
  start(body: StartRunBody): Promise<z.output<typeof startedRun>>;
  get(runId: string): Promise<RunResource>;
  events(runId: string, options?: { after?: number; limit?: number }): Promise<z.output<typeof eventPage>>;
  follow(runId: string, options?: FollowOptions): AsyncGenerator<FollowUpdate, RunResource | undefined>;
  result(runId: string): Promise<z.output<typeof runResult>>;
  inbox(): Promise<z.output<typeof inboxPage>>;
  decide(runId: string, body: DecisionBody): Promise<z.output<typeof decisionAnswer>>;
  sendEvent(runId: string, body: WorkflowEventBody): Promise<z.output<typeof workflowEventAnswer>>;
  cancel(runId: string, reason: string): Promise<RunResource>;
  resume(runId: string, reason: string): Promise<RunResource>;
}

export function createGnlClient(options: GnlClientOptions): GnlClient {
  const base = `${options.baseUrl.replace(/\/+$/, '')}/api/v1`;
  const doFetch = options.fetch ?? fetch;
  const retries = options.retries ?? 3;
  const run = (runId: string) => `/runs/${encodeURIComponent(runId)}`;

  async function call<T extends z.ZodType>(schema: T, method: 'GET' | 'POST', path: string, body?: unknown): Promise<z.output<T>> {
    for (let attempt = 0; ; attempt++) {
      const response = await doFetch(`${base}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${options.token}`,
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (response.status === 429 && attempt < retries) {
        await response.body?.cancel();
        await pause(Number(response.headers.get('retry-after') ?? '1') * 1000);
        continue;
      }
      if (!response.ok) throw await apiError(response);
      return schema.parse(await response.json());
    }
  }

  async function* follow(runId: string, followOptions: FollowOptions = {}): AsyncGenerator<FollowUpdate, RunResource | undefined> {
    const until = followOptions.until ?? ((r: RunResource) => FINISHED.has(r.status));
    let lastSeq = followOptions.after ?? 0;
    let backoff = 250;
    while (!followOptions.signal?.aborted) {
      let response: Response;
      try {
        response = await doFetch(`${base}${run(runId)}/follow`, {
          headers: { Authorization: `Bearer ${options.token}`, Accept: 'text/event-stream', 'Last-Event-ID': String(lastSeq) },
          ...(followOptions.signal ? { signal: followOptions.signal } : {}),
        });
      } catch {
        // Not reached (a restarting server, a dropped network): asked again after a pause, until the caller aborts.
        if (followOptions.signal?.aborted) return undefined;
        await pause(backoff);
        backoff = Math.min(backoff * 2, followOptions.maxBackoffMs ?? 5000);
        continue;
      }
      if (response.status === 429 || response.status >= 500) {
        await response.body?.cancel();
        await pause(response.status === 429 ? Number(response.headers.get('retry-after') ?? '1') * 1000 : backoff);
        backoff = Math.min(backoff * 2, followOptions.maxBackoffMs ?? 5000);
        continue;
      }
      if (!response.ok || !response.body) throw await apiError(response);
      try {
        for await (const message of sseMessages(response.body)) {
          backoff = 250;
          if (message.event === 'events') {
            const events = eventPage.shape.events.parse(JSON.parse(message.data)).filter((e) => e.seq > lastSeq);
            if (events.length === 0) continue;
            lastSeq = (events[events.length - 1] as ApiJournalEvent).seq;
            yield { type: 'events', events };
          } else if (message.event === 'run') {
            const current = runResource.parse(JSON.parse(message.data));
            yield { type: 'run', run: current };
            // Done once the run holds the condition and every event up to its summary was received.
            if (until(current) && current.lastSeq <= lastSeq) return current;
          } else if (message.event === 'signed-out') {
            // The token was revoked or expired while the stream was open.
            throw new GnlApiError(401, { type: 'urn:gnl:problem:unauthenticated', title: 'Unauthenticated', detail: 'The API token was revoked or expired.' });
          }
        }
      } catch (error) {
        if (error instanceof GnlApiError || followOptions.signal?.aborted) {
          if (followOptions.signal?.aborted) return undefined;
          throw error;
        }
        // The connection dropped mid-stream (a restarted server): reconnect from lastSeq.
      }
      await pause(backoff);
      backoff = Math.min(backoff * 2, followOptions.maxBackoffMs ?? 5000);
    }
    return undefined;
  }

  return {
    start: (body) => call(startedRun, 'POST', '/runs', body),
    get: (runId) => call(runResource, 'GET', run(runId)),
    events: (runId, page = {}) => {
      const query = new URLSearchParams();
      if (page.after !== undefined) query.set('after', String(page.after));
      if (page.limit !== undefined) query.set('limit', String(page.limit));
      return call(eventPage, 'GET', `${run(runId)}/events${query.size > 0 ? `?${query}` : ''}`);
    },
    follow,
    result: (runId) => call(runResult, 'GET', `${run(runId)}/result`),
    inbox: () => call(inboxPage, 'GET', '/inbox'),
    decide: (runId, body) => call(decisionAnswer, 'POST', `${run(runId)}/decisions`, body),
    sendEvent: (runId, body) => call(workflowEventAnswer, 'POST', `${run(runId)}/workflow-events`, body),
    cancel: (runId, reason) => call(runResource, 'POST', `${run(runId)}/cancel`, { reason }),
    resume: (runId, reason) => call(runResource, 'POST', `${run(runId)}/resume`, { reason }),
  };
}

async function apiError(response: Response): Promise<GnlApiError> {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (body && typeof body.type === 'string' && typeof body.detail === 'string') return new GnlApiError(response.status, body);
  } catch {
    // not a problem document: described below
  }
  return new GnlApiError(response.status, {
    type: 'about:blank',
    title: response.statusText || 'Error',
    detail: text.slice(0, 500) || `HTTP ${response.status}`,
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Server-sent events from a response body: each message's event name, data and id. */
async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<{ event: string; data: string; id?: string }> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event = 'message';
        const data: string[] = [];
        let id: string | undefined;
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
          else if (line.startsWith('id: ')) id = line.slice(4);
        }
        if (data.length > 0) yield { event, data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
