/**
 * `GET /runs/{runId}/follow`: a run's journal as server-sent events, then live (LiveJournal.subscribe:
 * each event once, in order). The SSE id is the last event's seq, so a client that reconnects with
 * Last-Event-ID (or `?after=`) continues exactly after what it received, across dropped connections and
 * restarted servers. `run` follows each batch with the run's summary. Each heartbeat checks the token
 * again: revoked or expired, the stream says `signed-out` and ends. At most GNL_STUDIO_MAX_STREAMS_PER_OPERATOR
 * streams per token (the Studio's bound per person, stream-limits.ts).
 */
import { authenticateApiToken } from '@/lib/accounts';
import { sseResponse } from '@/lib/studio/live/sse';
import { sendEventBatches } from '@/lib/studio/live/event-batches';
import type { ApiCall } from './api-context';
import { problem } from './problem';
import { runResourceOf } from './run-resource';

function resumeFrom(call: ApiCall): number | undefined {
  const header = call.request.headers.get('last-event-id');
  const raw = header ?? call.query.get('after') ?? '0';
  const after = Number(raw);
  return Number.isSafeInteger(after) && after >= 0 ? after : undefined;
}

export function followRun(call: ApiCall): Response {
  const afterSeq = resumeFrom(call);
  if (afterSeq === undefined)
    return problem({ kind: 'invalid-request', status: 400, detail: 'Last-Event-ID (or after) must be a sequence number: 0 or more.' });
  const { storage } = call.context;
  const token = (call.request.headers.get('authorization') ?? '').replace(/^Bearer\s+/i, '');
  const response = sseResponse({
    signal: call.request.signal,
    heartbeatMs: call.context.stream?.heartbeatMs ?? 15_000,
    maxMs: call.context.stream?.maxMs ?? 5 * 60_000,
    holder: `token:${call.principal.id}`,
    stillAuthorized: async () => {
      const check = await authenticateApiToken(token, { storage });
      return check.ok;
    },
    onError: (error) => console.error(`gnl api: following ${call.run.runId}:`, error),
    async start(channel) {
      let summaryQueued = Promise.resolve();
      const sendSummary = () => {
        summaryQueued = summaryQueued
          .then(async () => {
            const run = await storage.runs.getRun(call.run.runId);
            if (run) channel.send({ event: 'run', data: runResourceOf(run) });
          })
          .catch((error) => console.error(`gnl api: reading ${call.run.runId}:`, error));
      };
      const subscription = await storage.runs.subscribe({
        runId: call.run.runId,
        afterSeq,
        onEvents: (events) => {
          sendEventBatches(channel, events);
          sendSummary();
        },
        onError: (error) => console.error(`gnl api: following ${call.run.runId}:`, error),
      });
      sendSummary();
      return () => subscription.close();
    },
  });
  if (response.status === 429)
    return problem({ kind: 'too-many-streams', status: 429, detail: 'This token has too many live streams open.', headers: { 'Retry-After': '10' } });
  return response;
}
