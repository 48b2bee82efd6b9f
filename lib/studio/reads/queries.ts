/**
 * The Studio's react-query resources, one queryOptions factory each (browser-safe). Server components
 * render the first view and hand it over as initialData; after that the live-events hooks
 * (components/live/) are the only code that writes to these entries. The queryFns here re-read a
 * resource when a hook invalidates it (the stream said changes may have been missed).
 */
import { queryOptions } from '@tanstack/react-query';
import type { RunStatus } from '@/lib/durable';
import { encodeRunSegment } from './run-path';
import { CHUNK_SIZE, type Tail, tailStartFor } from './timeline-window';
import type { DemoServiceState } from '../demo';
import type { CallDecision } from './call-decision';
import type { Inbox, InboxItem } from './inbox';
import type { NotificationView } from './notifications';
import type { RunListPage } from './run-listing';
import type { WireEvent, WireRun } from './wire';

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' });
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
  return (await res.json()) as T;
}

export interface RunsListParams {
  status?: RunStatus;
  agent?: string;
  /** Run-id prefix, tool name or idempotency key. */
  q?: string;
  cursor?: string;
  limit: number;
}

export function runsQuery(params: RunsListParams) {
  const search = new URLSearchParams({ limit: String(params.limit) });
  if (params.status) search.set('status', params.status);
  if (params.agent) search.set('agent', params.agent);
  if (params.q) search.set('q', params.q);
  if (params.cursor) search.set('cursor', params.cursor);
  return queryOptions({
    queryKey: ['runs', params.status ?? null, params.cursor ?? null, params.limit, params.agent ?? null, params.q ?? null] as const,
    queryFn: () => getJson<RunListPage>(`/api/runs?${search}`),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function runQuery(runId: string) {
  return queryOptions({
    queryKey: ['run', runId] as const,
    queryFn: () => getJson<WireRun>(`/api/runs/${encodeRunSegment(runId)}`),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/**
 * A run's webhook notifications (the outbox's rows). Not journal events: a new one comes with a run
 * event (the same transaction), its deliveries later, so its reader re-reads on both (live-run-notifications.tsx).
 */
export function runNotificationsQuery(runId: string) {
  return queryOptions({
    queryKey: ['run', runId, 'notifications'] as const,
    queryFn: () => getJson<NotificationView[]>(`/api/runs/${encodeRunSegment(runId)}/notifications`),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The live end of a run's journal (timeline-window.ts): written by useRunLive as events arrive. */
export function runTailQuery(runId: string) {
  return queryOptions({
    queryKey: ['run', runId, 'tail'] as const,
    queryFn: async (): Promise<Tail> => {
      const run = await getJson<WireRun>(`/api/runs/${encodeRunSegment(runId)}`);
      const startSeq = tailStartFor(run.lastSeq);
      const first = (startSeq - 1) / CHUNK_SIZE;
      const chunks = await Promise.all(
        Array.from({ length: Math.floor((run.lastSeq - startSeq) / CHUNK_SIZE) + 1 }, (_, i) => getJson<WireEvent[]>(chunkUrl(runId, first + i))),
      );
      return { startSeq, events: chunks.flat() };
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
}

function chunkUrl(runId: string, chunk: number): string {
  return `/api/runs/${encodeRunSegment(runId)}/chunks/${chunk}`;
}

/** A chunk of events before the tail: complete and never changing once the tail has moved past it. */
export function runChunkQuery(runId: string, chunk: number) {
  return queryOptions({
    queryKey: ['run', runId, 'chunk', chunk] as const,
    queryFn: () => getJson<WireEvent[]>(chunkUrl(runId, chunk)),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 5 * 60_000,
  });
}

export function inboxQuery() {
  return queryOptions({
    queryKey: ['inbox'] as const,
    queryFn: () => getJson<Inbox>('/api/inbox'),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** One run's part of the inbox, for its run page's choices; under ['inbox'], so whatever re-reads the inbox re-reads it too. */
export function runInboxQuery(runId: string) {
  return queryOptions({
    queryKey: ['inbox', 'run', runId] as const,
    queryFn: () => getJson<InboxItem[]>(`/api/runs/${encodeRunSegment(runId)}/inbox`),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** How many items wait in the inbox (the nav); under ['inbox'], so re-read whenever the inbox is. */
export function inboxCountQuery() {
  return queryOptions({
    queryKey: ['inbox', 'count'] as const,
    queryFn: () => getJson<{ items: number }>('/api/inbox/count'),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The demo's outside service counters; re-read by the live hooks whenever a run changes. */
export function demoStatsQuery() {
  return queryOptions({
    queryKey: ['demo', 'stats'] as const,
    queryFn: () => getJson<DemoServiceState>('/api/demo/stats'),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/**
 * What the journal recorded for one call, read when a decision's answer never came (the server died
 * after recording it, the network dropped). Asked until the Studio answers (it may be restarting), each
 * time afresh (`askedAt`).
 */
export function callDecisionQuery(runId: string, toolCallId: string, askedAt: number) {
  return queryOptions({
    // askedAt: each lost answer asks anew; an earlier asking's result says nothing about a later decision.
    queryKey: ['decision', runId, toolCallId, askedAt] as const,
    queryFn: () => getJson<CallDecision>(`/api/runs/${encodeRunSegment(runId)}/decision?${new URLSearchParams({ call: toolCallId })}`),
    retry: true,
    retryDelay: (failures: number) => Math.min(500 * 2 ** failures, 5_000),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });
}
